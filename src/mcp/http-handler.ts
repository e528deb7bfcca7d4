import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { MemoryDB } from '../api/memory-db.js';
import { createMcpServer, type McpServerOptions } from './create-mcp-server.js';

/** A fetch-style handler for MCP's streamable HTTP transport. */
export type McpFetchHandler = (request: Request) => Promise<Response>;

/**
 * MCP over streamable HTTP, stateless: each request gets its own server and transport, and
 * JSON responses. Nothing needs to live between requests because the memory, including an open
 * turn, lives in the file; the tools are told so (`stateless`), so `memory_drill` and
 * `memory_restore` take the `nodeId` a previous call returned instead of "the task loaded last".
 * Mount it at `/mcp` (the `serve` command does, through the HTTP app's
 * `mcp` hook).
 *
 * @example
 * ```ts
 * const handler = createMcpHttpHandler(db);
 * app.all('/mcp', (c) => handler(c.req.raw));
 * ```
 */
export function createMcpHttpHandler(db: MemoryDB, options: McpServerOptions = {}): McpFetchHandler {
  return async (request) => {
    const server = createMcpServer(db, { ...options, stateless: true });
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}
