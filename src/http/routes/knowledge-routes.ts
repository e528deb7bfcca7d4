import { z } from 'zod';
import type { MemoryDB } from '../../api/memory-db.js';
import { echo } from '../../core/echo.js';
import { knowledgeItemsSchema, type KnowledgeItem } from '../../core/model/knowledge-items.js';
import { HedgehopError } from '../../core/errors.js';
import {
  batchSchema,
  KNOWLEDGE_EDGE_KINDS,
  KNOWLEDGE_LIMITS,
  type KnowledgeGraph,
} from '../../core/model/knowledge.js';
import { defineRoute, type Route } from '../route.js';
import { queryInt } from './common.js';

const graphIdSchema = z.string().min(1, 'must not be empty').max(64, 'is not a knowledge id');
const graphParams = z.strictObject({
  graph: z
    .string()
    .min(1, 'must not be empty')
    .max(KNOWLEDGE_LIMITS.labelChars, `at most ${KNOWLEDGE_LIMITS.labelChars} characters`)
    .describe('knowledge graph id or label (as `hedgehop kg get` takes)'),
});

/** The graph with this id, else the one with this label (the CLI's rule), else `NOT_FOUND`. */
async function graphByIdOrLabel(db: MemoryDB, idOrLabel: string): Promise<KnowledgeGraph> {
  const graphs = await db.knowledge.list();
  const info = graphs.find((g) => g.id === idOrLabel) ?? graphs.find((g) => g.label === idOrLabel);
  if (info === undefined)
    throw new HedgehopError('NOT_FOUND', `graph: no knowledge graph with id or label '${echo(idOrLabel)}'`, {
      remedy: 'list-graphs',
    });
  return db.knowledge.getOrThrow(info.id);
}

const graphInfoSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    nodeCount: z.number().int(),
    edgeCount: z.number().int(),
  })
  .meta({ id: 'KnowledgeGraphInfo' });

const nodeSchema = z
  .object({
    id: z.string(),
    graphId: z.string(),
    title: z.string(),
    type: z.string(),
    content: z.string(),
    keywords: z.array(z.string()),
    observations: z.array(z.string()),
    sourceRef: z
      .object({
        source: z.string(),
        start: z.number().optional(),
        end: z.number().optional(),
        unit: z.enum(['line', 'char', 'byte', 'page']).optional(),
      })
      .optional(),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .meta({ id: 'KnowledgeNode' });

const edgeSchema = z
  .object({
    id: z.string(),
    graphId: z.string(),
    kind: z.enum(KNOWLEDGE_EDGE_KINDS),
    label: z.string(),
    directed: z.boolean(),
    members: z.array(z.string()),
    createdAt: z.number(),
  })
  .meta({ id: 'KnowledgeEdge' });

const graphSchema = z
  .object({ graph: graphInfoSchema, nodes: z.array(nodeSchema), edges: z.array(edgeSchema) })
  .meta({ id: 'KnowledgeGraph' });

const importReportSchema = z.object({
  graphId: z.string(),
  graphCreated: z.boolean(),
  created: z.array(z.string()),
  updated: z.array(z.string()),
  skipped: z.number().int(),
  edgesCreated: z.number().int(),
  edgesExisting: z.number().int(),
  errors: z.array(z.string()),
});

const itemsReportSchema = importReportSchema
  .omit({ graphId: true, graphCreated: true })
  .extend({ graphIds: z.array(z.string()), graphs: z.array(importReportSchema) });

/** Knowledge graphs (file-wide): list, whole graphs, node search, import. */
export function knowledgeRoutes(): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/knowledge',
      summary: 'Every knowledge graph of the file, with node and edge counts',
      tag: 'knowledge',
      write: false,
      response: z.array(graphInfoSchema),
      handler: ({ db }) => db.knowledge.list(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/knowledge/search',
      summary: 'Knowledge nodes ranked for a free-text query (title and content matches, then words)',
      tag: 'knowledge',
      write: false,
      query: z.strictObject({
        q: z.string().max(2048).describe('the query (empty lists nodes in order)'),
        graphId: graphIdSchema.optional(),
        limit: queryInt(1, 10_000).optional(),
      }),
      response: z.array(z.object({ node: nodeSchema, score: z.number() })),
      handler: ({ db, query }) =>
        db.knowledge.search(query.q, {
          ...(query.graphId === undefined ? {} : { graphId: query.graphId }),
          ...(query.limit === undefined ? {} : { limit: query.limit }),
        }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/knowledge/{graph}',
      summary: 'A whole graph: its info, and every node and edge',
      tag: 'knowledge',
      write: false,
      params: graphParams,
      response: graphSchema,
      handler: ({ db, params }) => graphByIdOrLabel(db, params.graph),
    }),
    defineRoute({
      method: 'post',
      path: '/api/knowledge/import',
      summary: 'Import nodes and edges into the graph named by its label (merge mode; created when absent)',
      tag: 'knowledge',
      write: true,
      body: batchSchema,
      response: importReportSchema,
      handler: ({ db, body }) => db.knowledge.import(body),
    }),
    defineRoute({
      method: 'post',
      path: '/api/knowledge/import-items',
      summary:
        'Import MemHop ImportL3 items ({ title, domain, related: [...] }): one graph per domain, every item checked before anything is written',
      tag: 'knowledge',
      write: true,
      body: knowledgeItemsSchema,
      response: itemsReportSchema,
      // The body was checked against the items schema; import checks it again, item by item.
      handler: ({ db, body }) => db.knowledge.import(body as readonly KnowledgeItem[]),
    }),
  ];
}
