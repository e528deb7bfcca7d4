import { z } from 'zod';
import { defineRoute, type Route } from '../route.js';

const fileStatsSchema = z
  .object({
    path: z.string(),
    fileBytes: z.number().int(),
    walBytes: z.number().int(),
    schemaVersion: z.number().int(),
    agents: z.number().int(),
    rows: z.record(z.string(), z.number().int()),
    pending: z.object({
      summaries: z.number().int(),
      keywords: z.number().int(),
      embeddings: z.number().int(),
    }),
  })
  .meta({ id: 'FileStats' });

const agentInfoSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    primary: z.boolean(),
    createdAt: z.number().describe('milliseconds since the epoch'),
  })
  .meta({ id: 'AgentInfo' });

const checkReportSchema = z.object({
  ok: z.literal(true),
  checked: z.array(z.string()).describe('the checks that ran and passed'),
  skipped: z
    .array(z.object({ check: z.string(), reason: z.string() }))
    .describe('the checks that could not run here (under --read-only: the recall index check)'),
});

const dataVersionSchema = z.object({
  dataVersion: z.number().int().describe('changes whenever another connection commits to the file'),
});

/** File-wide routes: statistics, agents, integrity check. */
export function fileRoutes(): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/stats',
      summary: 'File size, WAL size, live rows per layer and pending derived work',
      tag: 'file',
      write: false,
      response: fileStatsSchema,
      handler: ({ db }) => db.stats(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents',
      summary: 'Every agent of the file, primary first',
      tag: 'file',
      write: false,
      response: z.array(agentInfoSchema),
      handler: ({ db }) => db.agents(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/check',
      summary: 'Verify the whole file (500 CORRUPT with what was found otherwise)',
      tag: 'file',
      write: false,
      response: checkReportSchema,
      handler: ({ db }) => db.check(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/data-version',
      summary: 'A number that changes whenever another process commits to the file',
      tag: 'file',
      write: false,
      inline: true,
      response: dataVersionSchema,
      handler: async ({ db }) => ({ dataVersion: await db.dataVersion() }),
    }),
  ];
}
