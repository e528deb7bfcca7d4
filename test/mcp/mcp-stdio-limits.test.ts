import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { fileDigest, tempFile } from '../helpers/temp.js';
import { CLI, RawMcpChild } from './raw-child.js';

const textOf = (result: CallToolResult): string => (result.content[0] as { text: string }).text;

/** A deterministic text of `bytes` ASCII bytes, in lines. */
function bigText(bytes: number): string {
  const line = 'The deploy log repeats: step ok, cache warm, artefact uploaded.\n';
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

describe('hedgehop mcp over stdio: large and malformed messages', { timeout: 180_000 }, () => {
  it('commits a 20 MB fullContext through the SDK client and restores it byte for byte', async () => {
    const path = tempFile();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--file', path],
      stderr: 'pipe',
    });
    const client = new Client({ name: 'limits-test', version: '1.0.0' });
    await client.connect(transport);
    const state = bigText(20_000_000);
    const committed = (await client.callTool({
      name: 'memory_commit',
      arguments: {
        lineId: 'ci',
        taskLabel: 'Big log',
        fullContext: state,
        conversationSummary: 'A big log.',
      },
    })) as CallToolResult;
    expect(committed.isError, textOf(committed)).toBeFalsy();
    const { nodeId } = (JSON.parse(textOf(committed)) as { committed: { nodeId: string } }).committed;
    // The server is still up after the large message.
    const lines = (await client.callTool({ name: 'memory_lines', arguments: {} })) as CallToolResult;
    expect(lines.isError).toBeFalsy();
    await client.close();
    // (Restored through the library: the SDK's own client caps what it reads at 10 MiB.)
    const db = await openMemory(path, { readOnly: true });
    expect((await db.primary().radial.loadFullState(nodeId)) === state).toBe(true);
    await db.close();
  });

  it('answers a message over --max-message-bytes with an error and keeps serving', async () => {
    const path = tempFile();
    const child = new RawMcpChild(['--file', path, '--max-message-bytes', String(1 << 20)]);
    await child.initialize();
    const setup = await child.callTool('memory_commit', {
      lineId: 'ci',
      taskLabel: 'First',
      fullContext: 'setup',
      conversationSummary: 'ok',
    });
    expect(setup.isError, setup.content[0]?.text).toBeFalsy();
    // The commit's recall-index rows are written just after it answers; a read writes any still
    // pending, so the digest below is of a settled file.
    expect((await child.callTool('memory_lines', {})).isError).toBeFalsy();
    const before = fileDigest(path);
    const oversized = await child.request('tools/call', {
      name: 'memory_commit',
      arguments: {
        lineId: 'ci',
        taskLabel: 'Too big',
        fullContext: bigText(3 << 20),
        conversationSummary: 'x',
      },
    });
    const error = oversized.error as { code: number; message: string };
    expect(error.code).toBe(-32600);
    expect(error.message).toMatch(/INVALID_INPUT: message of \d+ bytes is over the limit of 1048576 bytes/);
    expect(fileDigest(path)).toBe(before);
    // The server is still up and the next call works.
    const small = await child.callTool('memory_commit', {
      lineId: 'ci',
      taskLabel: 'Small',
      fullContext: 'fits',
      conversationSummary: 'ok',
    });
    expect(small.isError, small.content[0]?.text).toBeFalsy();
    expect(child.stderr).toContain('refused a message');
    child.process.stdin.end();
    expect((await child.exited).code).toBe(0);
  });

  it('refuses a message that is not UTF-8, naming the byte offset, and keeps serving', async () => {
    const path = tempFile();
    const child = new RawMcpChild(['--file', path]);
    await child.initialize();
    const setup = await child.callTool('memory_commit', {
      lineId: 'ci',
      taskLabel: 'First',
      fullContext: 'setup',
      conversationSummary: 'ok',
    });
    expect(setup.isError, setup.content[0]?.text).toBeFalsy();
    // The commit's recall-index rows are written just after it answers; a read writes any still
    // pending, so the digest below is of a settled file.
    expect((await child.callTool('memory_lines', {})).isError).toBeFalsy();
    const before = fileDigest(path);
    const head = Buffer.from(
      '{"jsonrpc":"2.0","id":900,"method":"tools/call","params":{"name":"memory_commit","arguments":{"lineId":"ci","taskLabel":"bad","conversationSummary":"x","fullContext":"bad ',
    );
    const answer = new Promise<Record<string, unknown>>((resolve) => {
      const timer = setInterval(() => {
        const line = child.stdoutLines.find((l) => l.includes('"id":900'));
        if (line) {
          clearInterval(timer);
          resolve(JSON.parse(line) as Record<string, unknown>);
        }
      }, 20);
    });
    child.process.stdin.write(Buffer.concat([head, Buffer.from([0xff, 0xfe]), Buffer.from('"}}}\n')]));
    const error = (await answer).error as { message: string };
    expect(error.message).toBe(
      `INVALID_INPUT: message is not valid UTF-8 (first bad byte at offset ${head.length}); nothing was written`,
    );
    expect(fileDigest(path)).toBe(before);
    const lone = await child.callTool('memory_commit', {
      lineId: 'ci',
      taskLabel: 'lone \ud800 surrogate',
      fullContext: 'x',
      conversationSummary: 'y',
    });
    expect(lone.isError).toBe(true);
    expect(lone.content[0]?.text).toMatch(/INVALID_INPUT: .*taskLabel: .*lone surrogate/);
    expect(fileDigest(path)).toBe(before);
    const next = await child.callTool('memory_lines', {});
    expect(next.isError).toBeFalsy();
    child.process.stdin.end();
    await child.exited;
  });
});
