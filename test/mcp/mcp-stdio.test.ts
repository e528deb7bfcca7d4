import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { seededRandom } from '../../bench/harness.js';
import { tempFile } from '../helpers/temp.js';
import { CLI, RawMcpChild } from './raw-child.js';

/** Resolves once the file can be opened exclusively: no process holds it any more. */
async function released(path: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const db = await openMemory(path, { mode: 'exclusive' });
      await db.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function sdkClient(path: string): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--file', path],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

describe('hedgehop mcp over stdio (a real child process)', { timeout: 120_000 }, () => {
  it('serves every tool to the SDK client, creates the file, and releases it when the client goes', async () => {
    const path = tempFile();
    const { client } = await sdkClient(path);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toHaveLength(30);
    const state = 'line one\nline two — ünïcødé\n';
    const committed = (await client.callTool({
      name: 'memory_commit',
      arguments: {
        lineId: 'infra',
        taskLabel: 'Set up CI',
        fullContext: state,
        conversationSummary: 'CI on push.',
      },
    })) as CallToolResult;
    expect(committed.isError).toBeFalsy();
    expect(textOf((await client.callTool({ name: 'memory_restore', arguments: {} })) as CallToolResult)).toBe(
      state,
    );
    const bad = (await client.callTool({
      name: 'memory_load',
      arguments: { lineId: 'infra', position: 'first' },
    })) as CallToolResult;
    expect(bad.isError).toBe(true);
    await client.close();
    await released(path);
    const db = await openMemory(path);
    expect((await db.primary().radial.listLines()).map((l) => l.id)).toEqual(['infra']);
    await db.close();
  });

  it('writes nothing but JSON-RPC to stdout, logs to stderr, and exits 0 when stdin closes', async () => {
    const path = tempFile();
    const child = new RawMcpChild(['--file', path]);
    const init = await child.initialize();
    expect(init).toMatchObject({ jsonrpc: '2.0', result: { serverInfo: { name: 'hedgehop' } } });
    await child.request('tools/list');
    await child.callTool('memory_origin', {});
    await child.callTool('create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: [] }],
    });
    const failed = await child.callTool('memory_navigate', { query: '' });
    expect(failed.isError).toBe(true);
    child.process.stdin.end();
    const exit = await child.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    for (const line of child.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(child.stdoutLines.length).toBeGreaterThanOrEqual(5);
    expect(child.stderr).toContain('hedgehop mcp: serving');
    await released(path, 1000);
  });

  it('shuts down cleanly on SIGTERM and releases the file', async () => {
    const path = tempFile();
    const child = new RawMcpChild(['--file', path]);
    await child.initialize();
    await child.callTool('create_entities', {
      entities: [{ name: 'Bo', entityType: 'person', observations: [] }],
    });
    child.process.kill('SIGTERM');
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stderr).toContain('stopped');
    await released(path, 1000);
  });

  it('refuses to start on a corrupt file with exit code 4 and a one-line error', async () => {
    const path = tempFile();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      path,
      'this is not an SQLite database, just text that is long enough to look like a header...',
    );
    const child = new RawMcpChild(['--file', path]);
    const exit = await child.exited;
    expect(exit.code).toBe(4);
    expect(child.stdoutLines).toEqual([]);
    expect(child.stderr).toMatch(/^hedgehop: CORRUPT: /m);
  });

  it('keeps every acknowledged write across kill -9 mid-write and a restart', async () => {
    const path = tempFile();
    const random = seededRandom(8_2026);
    const acknowledged: string[] = [];
    const committedTasks: string[] = [];
    for (let round = 0; round < 4; round++) {
      const child = new RawMcpChild(['--file', path]);
      await child.initialize();
      let stop = false;
      const writer = (async () => {
        for (let i = 0; !stop; i++) {
          const name = `r${round}-e${i}`;
          const created = child.callTool('create_entities', {
            entities: [{ name, entityType: 'note', observations: [`round ${round}`] }],
          });
          const label = `r${round}-t${i}`;
          const commit = child.callTool('memory_commit', {
            lineId: 'crash',
            taskLabel: label,
            fullContext: `state ${label}`,
            conversationSummary: '',
          });
          const [entity, task] = await Promise.all([
            created.catch(() => undefined),
            commit.catch(() => undefined),
          ]);
          if (entity && !entity.isError) acknowledged.push(name);
          if (task && !task.isError) committedTasks.push(label);
          if (!entity || !task) return;
        }
      })();
      // Kill mid-write once this round has an acknowledged write, so the count below does not
      // depend on how fast a loaded machine starts the child.
      const before = acknowledged.length;
      for (let waited = 0; acknowledged.length === before && waited < 60_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 250)));
      child.process.kill('SIGKILL');
      stop = true;
      await child.exited;
      await writer;
    }
    expect(acknowledged.length).toBeGreaterThanOrEqual(4);
    const { client } = await sdkClient(path);
    const graph = JSON.parse(
      textOf((await client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult),
    ) as {
      entities: { name: string }[];
    };
    const names = new Set(graph.entities.map((e) => e.name));
    expect(acknowledged.filter((name) => !names.has(name))).toEqual([]);
    await client.close();
    await released(path);
    const db = await openMemory(path);
    await db.check();
    const history = await db.primary().radial.getLineHistory('crash');
    const labels = new Set(history.map((h) => h.taskLabel));
    expect(committedTasks.filter((label) => !labels.has(label))).toEqual([]);
    await db.close();
  }, 120_000);
});
