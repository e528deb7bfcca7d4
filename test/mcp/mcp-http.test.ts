import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { createMcpHttpHandler } from '../../src/mcp/index.js';
import { tempFile } from '../helpers/temp.js';

describe('MCP over streamable HTTP (stateless handler)', () => {
  it('serves tools through a fetch handler, each request on its own server, state kept in the file', async () => {
    const db = await openMemory(tempFile());
    const handler = createMcpHttpHandler(db);
    const transport = new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
      fetch: (url, init) => handler(new Request(url, init)),
    });
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBe(30);
    const begun = (await client.callTool({
      name: 'memory_turn_begin',
      arguments: { newScene: true },
    })) as CallToolResult;
    const turnId = (begun.structuredContent as { turnId: string }).turnId;
    const again = (await client.callTool({ name: 'memory_turn_begin', arguments: {} })) as CallToolResult;
    expect(again.structuredContent).toMatchObject({ turnId, resumed: true });
    await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: [] }] },
    });
    expect((await db.knowledge.memoryServer().readGraph()).entities).toHaveLength(1);
    const bad = (await client.callTool({ name: 'memory_load', arguments: {} })) as CallToolResult;
    expect(bad.isError).toBe(true);
    const origin = await client.readResource({ uri: 'hedgehop://origin' });
    expect(origin.contents).toHaveLength(1);
    await client.close();
    await db.close();
  });

  it('offers only reading tools when read-only', async () => {
    const db = await openMemory(tempFile());
    const handler = createMcpHttpHandler(db, { readOnly: true });
    const client = new Client({ name: 'http-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
        fetch: (url, init) => handler(new Request(url, init)),
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('memory_commit');
    expect(names).toContain('memory_recall');
    await client.close();
    await db.close();
  });
});
