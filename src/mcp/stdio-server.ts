import type { MemoryDB } from '../api/memory-db.js';
import { createMcpServer, type McpServerOptions } from './create-mcp-server.js';
import { LineTransport } from './line-transport.js';
import { whenIdle } from './tool-context.js';

/** Options of {@link serveStdio}. */
export interface StdioServeOptions extends McpServerOptions {
  readonly stdin?: NodeJS.ReadableStream;
  readonly stdout?: NodeJS.WritableStream;
  /** Where diagnostics go (never stdout, which carries only protocol). Default: stderr. */
  readonly log?: (line: string) => void;
  /**
   * Largest message read, in bytes (default 64 MiB). A longer one is skipped and answered with
   * a JSON-RPC error; the server stays up.
   */
  readonly maxMessageBytes?: number;
  /** Resolves (or aborts) to stop the server, e.g. on SIGTERM. */
  readonly signal?: AbortSignal;
}

/** Longest wait for running tool calls to finish once asked to stop. */
const DRAIN_MS = 10_000;

/**
 * Serves MCP over stdio until the client closes stdin, the transport closes, or `signal`
 * aborts; then lets running tool calls finish and closes the server. The caller closes `db`.
 * Nothing but protocol is written to stdout.
 */
export async function serveStdio(db: MemoryDB, options: StdioServeOptions = {}): Promise<{ reason: string }> {
  const {
    stdin = process.stdin,
    stdout = process.stdout,
    log = (line: string) => process.stderr.write(`${line}\n`),
    signal,
    maxMessageBytes,
    ...rest
  } = options;
  const server = createMcpServer(db, {
    ...rest,
    onInternalError:
      rest.onInternalError ??
      ((error) =>
        log(
          `hedgehop mcp: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        )),
  });
  const transport = new LineTransport(
    stdin,
    stdout,
    maxMessageBytes === undefined ? {} : { maxMessageBytes },
  );
  const stopped = new Promise<string>((resolve) => {
    stdin.once('end', () => resolve('stdin closed'));
    stdin.once('close', () => resolve('stdin closed'));
    transport.onclose = () => resolve('transport closed');
    if (signal?.aborted) resolve(String(signal.reason ?? 'stopped'));
    signal?.addEventListener('abort', () => resolve(String(signal.reason ?? 'stopped')), { once: true });
  });
  transport.onerror = (error) => log(`hedgehop mcp: refused a message: ${error.message}`);
  await server.connect(transport);
  const reason = await stopped;
  await Promise.race([whenIdle(server), new Promise((resolve) => setTimeout(resolve, DRAIN_MS).unref())]);
  await server.close();
  return { reason };
}
