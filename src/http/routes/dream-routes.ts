import { z } from 'zod';
import { defineRoute, type Route } from '../route.js';
import { agentParamsSchema, existingAgent, queryInt } from './common.js';

const engramSchema = z
  .object({
    nodes: z.array(
      z.object({
        sceneId: z.string(),
        topicIds: z.array(z.string()),
        keywords: z.array(z.string()),
        importance: z.number(),
        valence: z.number(),
        arousal: z.number(),
        emotionSet: z.boolean(),
        createdAt: z.number(),
        updatedAt: z.number(),
      }),
    ),
    edges: z.array(
      z.object({
        a: z.string(),
        b: z.string(),
        weight: z.number(),
        createdAt: z.number(),
        lastDecayAt: z.number(),
      }),
    ),
    fadedScenes: z.number().int(),
  })
  .meta({ id: 'EngramGraph' });

const counts = z.record(z.string(), z.number());
const mbtiSchema = z.object({
  i_e: z.number(),
  n_s: z.number(),
  t_f: z.number(),
  j_p: z.number(),
  type: z.string(),
});

const dreamReportSchema = z
  .object({
    id: z.string(),
    sceneId: z.string().optional(),
    startedBy: z.enum(['explicit', 'background']),
    status: z.enum(['running', 'ok', 'partial', 'cancelled', 'interrupted']),
    startedAt: z.number(),
    finishedAt: z.number().optional(),
    durationMs: z.number(),
    applyMs: z.number(),
    modelCalls: z.number().int(),
    stages: z.array(
      z.object({
        name: z.enum(['radial', 'compress', 'profile', 'engram', 'retention']),
        status: z.enum(['ok', 'skipped', 'error', 'cancelled']),
        reason: z.string().optional(),
        read: counts,
        changed: counts,
        durationMs: z.number(),
        modelCalls: z.number().int(),
        errors: z.array(z.string()),
        conflicts: z.array(z.string()),
      }),
    ),
    profile: z
      .object({
        personality: z.string(),
        emotion: z.object({ valence: z.number(), arousal: z.number(), dominance: z.number() }),
        mbti: mbtiSchema,
        distilledAt: z.number(),
        dreamId: z.string(),
      })
      .optional(),
    errors: z.array(z.string()),
    undoneAt: z.number().optional(),
  })
  .meta({ id: 'DreamReport' });

/** Engram and Dream: the scene graph Dream builds, its passes' reports, and running a pass. */
export function dreamRoutes(): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/engram',
      summary: 'The engram: one node per scene (importance, emotion) and edges between related scenes',
      tag: 'dream',
      write: false,
      params: agentParamsSchema,
      response: engramSchema,
      handler: async ({ db, params }) => (await existingAgent(db, params.agent)).listEngram(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/dreams',
      summary: "The agent's Dream passes, newest first, each with its report",
      tag: 'dream',
      write: false,
      params: agentParamsSchema,
      query: z.strictObject({ limit: queryInt(1, 10_000).optional() }),
      response: z.array(dreamReportSchema),
      handler: async ({ db, params, query }) =>
        (await existingAgent(db, params.agent)).dreamHistory(
          query.limit === undefined ? {} : { limit: query.limit },
        ),
    }),
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/dream',
      summary: 'Run a Dream pass now (every scene, or sceneId only) and return its report',
      tag: 'dream',
      write: true,
      params: agentParamsSchema,
      body: z.strictObject({ sceneId: z.string().min(1).max(256).optional() }),
      response: dreamReportSchema,
      handler: async ({ db, params, body }) => (await existingAgent(db, params.agent)).dream(body.sceneId),
    }),
  ];
}
