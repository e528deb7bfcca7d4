import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { describeEngines } from '../helpers/engines.js';
import { LOGIN_FULL_STATE, openDemo } from '../http/demo-memory.js';

const cli = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const built = existsSync(cli);
if (!built) console.warn(`[serve/mcp engine tests skipped] ${cli} is absent: run 'npm run build' first`);

/** `hedgehop serve --file <memory> --port 0 --json` as a child; resolves with its URL. */
function serve(memory: string): { url: Promise<string>; stop: () => Promise<number | null> } {
  const child = spawn(process.execPath, [cli, 'serve', '--file', memory, '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      try {
        resolve((JSON.parse(stdout) as { url: string }).url);
        clearTimeout(timer);
      } catch {
        // wait for the whole document
      }
    });
    void exited.then(() => reject(new Error(`serve exited: ${stderr}`)));
  });
  url.catch(() => undefined);
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

describeEngines('hedgehop serve and mcp on a memory given as --file', (engine) => {
  it.skipIf(!built)('serve: recall and navigation over HTTP, writes kept, bad input refused', async () => {
    const memory = engine.memoryPath();
    await (await openDemo(memory)).close();
    const server = serve(memory);
    try {
      const base = await server.url;
      const lines = (await (await fetch(`${base}/api/agents/primary/lines`)).json()) as { id: string }[];
      expect(lines.map((line) => line.id)).toEqual(expect.arrayContaining(['auth', 'infra']));
      const recall = await post(`${base}/api/agents/primary/recall`, { query: 'JWT refresh tokens' });
      expect(recall.status).toBe(200);
      const hits = (recall.json as { hits: { layer: string }[] }).hits;
      expect(hits.length).toBeGreaterThan(0);
      const navigated = await post(`${base}/api/agents/primary/navigate`, { query: 'JWT login endpoint' });
      expect(navigated.status).toBe(200);
      const session = navigated.json as { found: boolean; session?: { node: { id: string } } };
      expect(session.found).toBe(true);
      const node = session.session?.node.id ?? '';
      const full = (await (await fetch(`${base}/api/agents/primary/nodes/${node}/full`)).json()) as {
        fullContext: string;
      };
      expect(full.fullContext).toBe(LOGIN_FULL_STATE);
      const created = await post(`${base}/api/agents/primary/lines`, { id: 'payroll', name: 'Payroll' });
      expect(created.status).toBeLessThan(300);
      const bad = await post(`${base}/api/agents/primary/recall`, { query: '' });
      expect(bad.status).toBe(400);
      expect(bad.json).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const db = await openMemory(memory);
    expect((await db.primary().radial.listLines()).map((line) => line.id)).toContain('payroll');
    await db.close();
  });

  it.skipIf(!built)(
    'mcp: tool calls over stdio commit and restore on the memory, bad input is a tool error',
    async () => {
      const memory = engine.memoryPath();
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cli, 'mcp', '--file', memory],
        stderr: 'pipe',
      });
      const client = new Client({ name: 'engine-test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const state = 'line one\nline two — ünïcødé\n';
        const committed = (await client.callTool({
          name: 'memory_commit',
          arguments: {
            lineId: 'infra',
            taskLabel: 'Set up CI',
            fullContext: state,
            conversationSummary: 'CI runs on every push.',
          },
        })) as CallToolResult;
        expect(committed.isError).toBeFalsy();
        const restored = (await client.callTool({ name: 'memory_restore', arguments: {} })) as CallToolResult;
        expect(textOf(restored)).toBe(state);
        const bad = (await client.callTool({
          name: 'memory_load',
          arguments: { lineId: 'infra', position: 'first' },
        })) as CallToolResult;
        expect(bad.isError).toBe(true);
        expect(textOf(bad)).toContain('position');
      } finally {
        await client.close();
      }
      const db = await openMemory(memory);
      const lines = await db.primary().radial.listLines();
      expect(lines.map((line) => line.id)).toContain('infra');
      await db.close();
    },
  );
});
