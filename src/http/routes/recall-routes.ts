import { z } from 'zod';
import { INDEX_LAYERS, recallOptionsSchema, recallQuerySchema } from '../../core/model/recall.js';
import { defineRoute, type Route } from '../route.js';
import { agentNameSchema, existingAgent } from './common.js';

const layerSchema = z.enum(INDEX_LAYERS);
const levelSchema = z.enum(['full', 'detailed', 'summary', 'brief', 'none']);

const provenanceSchema = z
  .object({
    layer: layerSchema,
    agent: z.string().nullable(),
    agentId: z.number().int().nullable(),
    table: z.enum(['archive', 'nodes', 'topics', 'kg_nodes', 'profiles']),
    sourceId: z.string(),
    part: z.string(),
    lineId: z.string().optional(),
    position: z.number().int().optional(),
    sceneId: z.string().optional(),
    topicId: z.string().optional(),
    speaker: z.string().optional(),
    createdAt: z.number(),
  })
  .meta({ id: 'Provenance' });

const recallResultSchema = z
  .object({
    query: z.string(),
    hits: z.array(
      z.object({
        layer: layerSchema,
        ref: z.string(),
        score: z.number(),
        confidence: z.number(),
        provenance: provenanceSchema,
        text: z.string(),
        preview: z.string(),
        inContext: levelSchema,
      }),
    ),
    context: z
      .string()
      .describe('the best items, each labelled with where it came from, within budgetTokens'),
    usedTokens: z.number().int(),
    budgetTokens: z.number().int(),
  })
  .meta({ id: 'RecallResult' });

/** The recall options plus the query, as one JSON body. */
const recallBodySchema = recallOptionsSchema.safeExtend({
  query: recallQuerySchema,
});

/** Recall: ranked hits across layers with provenance, and the context for a token budget. */
export function recallRoutes(): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/recall',
      summary: 'Ranked hits across every layer with provenance, and the context that fills budgetTokens',
      tag: 'recall',
      write: false,
      params: z.strictObject({ agent: agentNameSchema }),
      body: recallBodySchema,
      response: recallResultSchema,
      handler: async ({ db, params, body }) => {
        const { query, ...options } = body;
        return (await existingAgent(db, params.agent)).recall(query, options);
      },
    }),
  ];
}
