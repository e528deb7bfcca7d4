import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openMemory, type MemoryDB } from '../../src/index.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/index.js';
import { tempFile } from '../helpers/temp.js';

/** A client connected in memory to a server over a fresh file. */
export interface Connected {
  readonly db: MemoryDB;
  readonly client: Client;
  readonly path: string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connect(options: McpServerOptions = {}, path = tempFile()): Promise<Connected> {
  const db = await openMemory(path);
  const server = createMcpServer(db, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  // Listing the tools makes the client check every structured answer against the tool's
  // output schema (the server does not check its own answers).
  await client.listTools();
  return {
    db,
    client,
    path,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: async () => {
      await client.close();
      await server.close();
      if (!db.closed) await db.close();
    },
  };
}

/** The text of a result's first content item. */
export function text(result: CallToolResult): string {
  const first = result.content[0];
  if (!first || first.type !== 'text') throw new Error(`no text content: ${JSON.stringify(result)}`);
  return first.text;
}

/** The first content item parsed as JSON. */
export function json<T = unknown>(result: CallToolResult): T {
  return JSON.parse(text(result)) as T;
}
