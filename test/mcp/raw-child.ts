import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

/** The built CLI (tests that spawn children use dist/, see the helper rules). */
export const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

interface Pending {
  resolve: (message: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/**
 * `hedgehop mcp` as a child process spoken to in raw JSON-RPC lines, so a test sees every byte
 * the server writes to stdout.
 */
export class RawMcpChild {
  readonly process: ChildProcessWithoutNullStreams;
  /** Every stdout line, as written. */
  readonly stdoutLines: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #buffer = '';

  constructor(args: readonly string[]) {
    this.process = spawn(process.execPath, [CLI, 'mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.process.stdout.setEncoding('utf8');
    this.process.stdout.on('data', (chunk: string) => this.#onData(chunk));
    this.process.stderr.setEncoding('utf8');
    this.process.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.process.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) =>
      this.process.on('exit', (code, signal) => {
        for (const pending of this.#pending.values())
          pending.reject(new Error(`hedgehop mcp exited (${code ?? signal}): ${this.stderr}`));
        this.#pending.clear();
        resolve({ code, signal });
      }),
    );
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    let index = this.#buffer.indexOf('\n');
    while (index >= 0) {
      const line = this.#buffer.slice(0, index);
      this.#buffer = this.#buffer.slice(index + 1);
      this.stdoutLines.push(line);
      try {
        const message = JSON.parse(line) as Record<string, unknown>;
        const pending = typeof message.id === 'number' ? this.#pending.get(message.id) : undefined;
        if (pending) {
          this.#pending.delete(message.id as number);
          pending.resolve(message);
        }
      } catch {
        // kept in stdoutLines; the test asserts every line is protocol
      }
      index = this.#buffer.indexOf('\n');
    }
  }

  /** Sends a request and resolves with its response. */
  request(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    const promise = new Promise<Record<string, unknown>>((resolve, reject) =>
      this.#pending.set(id, { resolve, reject }),
    );
    this.process.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    return promise;
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    this.process.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, params })}\n`);
  }

  async initialize(): Promise<Record<string, unknown>> {
    const response = await this.request('initialize', {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'raw-test', version: '1.0.0' },
    });
    this.notify('notifications/initialized');
    return response;
  }

  /** Calls a tool; resolves with the tool result. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
  ): Promise<{ isError?: boolean; content: { text: string }[] }> {
    const response = await this.request('tools/call', { name, arguments: args });
    return response.result as { isError?: boolean; content: { text: string }[] };
  }
}
