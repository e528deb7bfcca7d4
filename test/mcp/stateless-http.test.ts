/**
 * MCP over streamable HTTP keeps nothing between calls (each request reaches a fresh server):
 * the tools must say so and work from the nodeId a previous call returned (issue 17, item 21).
 */
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { createMcpHttpHandler } from '../../src/mcp/index.js';
import { tempFile } from '../helpers/temp.js';

let id = 0;

/** One JSON-RPC request through the handler, as a client over HTTP sends it. */
async function rpc(handler: (request: Request) => Promise<Response>, method: string, params: unknown) {
  const response = await handler(
    new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    }),
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: Record<string, unknown> }).result;
}

async function setup() {
  const db = await openMemory(tempFile());
  await db.primary().radial.getOrCreateLine('auth', 'Authentication', 'Login and tokens');
  await db.primary().radial.completeTask({
    lineId: 'auth',
    taskLabel: 'Rotate refresh tokens',
    fullContext: 'Refresh tokens rotate on every use; a reused token revokes its whole family.',
    conversationSummary: 'Rotation on use; reuse revokes the family.',
  });
  const handler = createMcpHttpHandler(db);
  await rpc(handler, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '1' },
  });
  return { db, handler };
}

type ToolResult = {
  content: { text: string }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
};

describe('MCP over streamable HTTP (stateless)', () => {
  it('tells the model to pass the nodeId along, and drill works with it across requests', async () => {
    const { db, handler } = await setup();
    const { tools } = (await rpc(handler, 'tools/list', {})) as {
      tools: { name: string; description: string }[];
    };
    const describe = (name: string) => tools.find((t) => t.name === name)?.description ?? '';
    expect(describe('memory_navigate')).toContain('passing the nodeId');
    expect(describe('memory_drill')).toContain('keeps nothing between calls');
    expect(describe('memory_drill')).not.toContain('Without arguments');

    const found = (await rpc(handler, 'tools/call', {
      name: 'memory_navigate',
      arguments: { query: 'what happens when a refresh token is reused?' },
    })) as ToolResult;
    expect(found.isError).toBeFalsy();
    const node = (found.structuredContent as { node: { nodeId: string } }).node;
    expect(found.content[0]?.text).toContain(`memory_drill with nodeId "${node.nodeId}"`);

    const bare = (await rpc(handler, 'tools/call', { name: 'memory_drill', arguments: {} })) as ToolResult;
    expect(bare.isError).toBe(true);
    expect(bare.content[0]?.text).toContain('nodeId: give the nodeId that memory_navigate');

    const deeper = (await rpc(handler, 'tools/call', {
      name: 'memory_drill',
      arguments: { nodeId: node.nodeId, level: 1 },
    })) as ToolResult;
    expect(deeper.isError).toBeFalsy();
    expect(deeper.structuredContent).toMatchObject({ level: 2 });
    await db.close();
  });
});
