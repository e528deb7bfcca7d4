/**
 * The floor of an MCP tool call over stdio: a server built like the reference memory server
 * (the SDK's `McpServer` and `StdioServerTransport`, a zod input and output schema) whose one
 * tool, `noop`, answers at once with a fixed small result. bench/peers.ts calls it beside the
 * memory servers, so that the round trip every tool call pays (JSON-RPC framing, pipe writes
 * and reads in both processes, the SDK's schema checks) is measured in the same run.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'noop-floor', version: '1.0.0' });
server.registerTool(
  'noop',
  {
    title: 'No-op',
    description: 'Answers at once; the floor of a tool call.',
    inputSchema: { query: z.string().optional() },
    outputSchema: { entities: z.array(z.string()), relations: z.array(z.string()) },
  },
  () => {
    const result = { entities: [] as string[], relations: [] as string[] };
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }], structuredContent: result };
  },
);
await server.connect(new StdioServerTransport());
