import { z } from 'zod';
import { defineRoute, type Route } from '../route.js';

/** What the server was started with, as far as a client needs to know. */
interface ServerInfo {
  readonly readOnly: boolean;
  readonly watch: boolean;
  readonly mcp: boolean;
}

const serverInfoSchema = z
  .object({
    readOnly: z.boolean().describe('every write is refused with 403 READ_ONLY'),
    watch: z.boolean().describe('GET /api/events streams change events'),
    mcp: z.boolean().describe('MCP streamable HTTP is mounted at /mcp'),
  })
  .meta({ id: 'ServerInfo' });

/** `GET /api/server`: the server's mode, so the UI can hide what it cannot do. */
export function serverRoutes(info: ServerInfo): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/server',
      summary: 'How this server runs: read-only, watching, MCP mounted',
      tag: 'file',
      write: false,
      inline: true,
      response: serverInfoSchema,
      handler: async () => info,
    }),
  ];
}
