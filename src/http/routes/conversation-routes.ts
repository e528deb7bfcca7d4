import { z } from 'zod';
import {
  archiveInputSchema,
  planStepSchema,
  searchQuerySchema,
  turnEndSchema,
} from '../../core/model/conversation.js';
import { defineRoute, type Route } from '../route.js';
import { agentNameSchema, agentParamsSchema, existingAgent, queryInt, queryTime } from './common.js';
import { UTTERANCE_ROLES } from '../../core/model/conversation.js';

const idParam = z.string().min(1, 'must not be empty').max(256, 'at most 256 characters');

const sceneParams = z.strictObject({ agent: agentNameSchema, sceneId: idParam.describe('scene id (scn_…)') });
const turnParams = z.strictObject({ agent: agentNameSchema, topicId: idParam.describe('turn (topic) id') });

const profileSchema = z
  .object({
    name: z.string(),
    role: z.string(),
    personality: z.string(),
    preferences: z.record(z.string(), z.string()),
    emotion: z.object({ valence: z.number(), arousal: z.number(), dominance: z.number() }),
    mbti: z.object({ i_e: z.number(), n_s: z.number(), t_f: z.number(), j_p: z.number(), type: z.string() }),
    agentType: z.enum(['primary', 'sub']),
    updatedAt: z.number(),
  })
  .meta({ id: 'Profile' });

const sceneSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    knowledgeId: z.string().optional(),
    turnSeq: z.number().int(),
    createdAt: z.number(),
    lastUsedAt: z.number(),
  })
  .meta({ id: 'Scene' });

const topicSchema = z
  .object({
    id: z.string(),
    sceneId: z.string(),
    kind: z.enum(['turn', 'fused']),
    status: z.enum(['open', 'closed']),
    turnSeq: z.number().int().optional(),
    parentId: z.string().optional(),
    depth: z.number().int(),
    name: z.string().optional(),
    keywords: z.array(z.string()),
    keywordsPending: z.boolean(),
    outcome: z.string().optional(),
    userTs: z.number().optional(),
    agentTs: z.number().optional(),
    openedAt: z.number(),
    closedAt: z.number().optional(),
  })
  .meta({ id: 'Topic' });

const messageSchema = z.object({
  seq: z.number().int(),
  role: z.enum(UTTERANCE_ROLES),
  speaker: z.string().optional(),
  contentType: z.string(),
  content: z.string(),
  createdAt: z.number(),
});

const sceneContextSchema = z
  .object({
    scene: sceneSchema.optional(),
    openTurnId: z.string().optional(),
    topics: z.array(topicSchema.extend({ messages: z.array(messageSchema), childCount: z.number().int() })),
  })
  .meta({ id: 'SceneContext' });

const archiveRecordSchema = z
  .object({
    id: z.string(),
    topicId: z.string(),
    sceneId: z.string(),
    seq: z.number().int(),
    kind: z.enum(['utterance', 'event']),
    role: z.enum(UTTERANCE_ROLES).optional(),
    speaker: z.string().optional(),
    contentType: z.string(),
    eventType: z.string().optional(),
    planStep: z.number().int().optional(),
    content: z.string(),
    createdAt: z.number(),
  })
  .meta({ id: 'ArchiveRecord' });

interface PlanNodeShape {
  seq: number;
  parentSeq: number;
  title: string;
  status: 'in_progress' | 'done' | 'failed';
  summary: string;
  summaryFolded: boolean;
  createdAt: number;
  finishedAt?: number | undefined;
  updatedAt: number;
  children: PlanNodeShape[];
}

const planNodeSchema: z.ZodType<PlanNodeShape> = z
  .object({
    seq: z.number().int(),
    parentSeq: z.number().int(),
    title: z.string(),
    status: z.enum(['in_progress', 'done', 'failed']),
    summary: z.string(),
    summaryFolded: z.boolean(),
    createdAt: z.number(),
    finishedAt: z.number().optional(),
    updatedAt: z.number(),
    get children() {
      return z.array(planNodeSchema);
    },
  })
  .meta({ id: 'PlanNode' });

const planStateSchema = z
  .object({
    turnId: z.string(),
    roots: z.array(planNodeSchema),
    doneCount: z.number().int(),
    totalCount: z.number().int(),
  })
  .meta({ id: 'PlanState' });

const searchResultSchema = z.object({
  turnId: z.string(),
  resumed: z.boolean(),
  scene: sceneSchema,
  sceneCreated: z.boolean(),
  profile: profileSchema,
  profileBrief: z.string(),
  topics: z.array(topicSchema),
});

const slotSchema = z.object({ id: z.string(), topicId: z.string(), seq: z.number().int() });

const turnResultSchema = z.object({
  topic: topicSchema,
  keywordsPending: z.boolean(),
  keywordsError: z.string().optional(),
});

const archiveQuerySchema = z.strictObject({
  text: z.string().max(4096).optional(),
  contains: z.string().min(1).max(4096).optional(),
  ids: z
    .string()
    .transform((value) => value.split(',').map((id) => id.trim()))
    .optional(),
  sceneId: idParam.optional(),
  topicId: idParam.optional(),
  kind: z.enum(['utterance', 'event']).optional(),
  role: z.enum(UTTERANCE_ROLES).optional(),
  speaker: z.string().min(1).optional(),
  from: queryTime().optional(),
  to: queryTime().optional(),
  limit: queryInt(1, 1000).optional(),
});

/** Largest page of a turn's records the API returns at once. */
const TURN_RECORDS = 1000;

/** Conversation memory: profile, scenes, turns and their records, archive search, plan trees. */
export function conversationRoutes(): Route[] {
  return [...readRoutes(), ...writeRoutes()];
}

function readRoutes(): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/profile',
      summary: "The agent's profile",
      tag: 'conversation',
      write: false,
      params: agentParamsSchema,
      response: profileSchema,
      handler: async ({ db, params }) => (await existingAgent(db, params.agent)).getProfile(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/scenes',
      summary: "The agent's scenes, oldest first (current: the one search continues)",
      tag: 'conversation',
      write: false,
      params: agentParamsSchema,
      query: z.strictObject({ knowledgeId: idParam.optional() }),
      response: z.array(sceneSchema.extend({ current: z.boolean() })),
      handler: async ({ db, params, query }) =>
        (await existingAgent(db, params.agent)).listScenes(
          query.knowledgeId === undefined ? {} : { knowledgeId: query.knowledgeId },
        ),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/scene',
      summary: 'The current scene as a timeline of turns with their utterances',
      tag: 'conversation',
      write: false,
      params: agentParamsSchema,
      response: sceneContextSchema,
      handler: async ({ db, params }) => (await existingAgent(db, params.agent)).sceneContext(),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/scenes/{sceneId}',
      summary: 'A scene as a timeline of turns with their utterances',
      tag: 'conversation',
      write: false,
      params: sceneParams,
      response: sceneContextSchema,
      handler: async ({ db, params }) => (await existingAgent(db, params.agent)).sceneContext(params.sceneId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/turns/{topicId}',
      summary: 'Every record of one turn in slot order: utterances and events (with their plan step)',
      tag: 'conversation',
      write: false,
      params: turnParams,
      response: z.object({ topicId: z.string(), records: z.array(archiveRecordSchema) }),
      handler: async ({ db, params }) => ({
        topicId: params.topicId,
        records: await (
          await existingAgent(db, params.agent)
        ).searchArchive({ topicId: params.topicId, limit: TURN_RECORDS }),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/archive',
      summary: 'Archive records matching every given condition (text through the recall index)',
      tag: 'conversation',
      write: false,
      params: agentParamsSchema,
      query: archiveQuerySchema,
      response: z.array(archiveRecordSchema),
      handler: async ({ db, params, query }) => {
        const conditions = Object.fromEntries(
          Object.entries(query).filter(([, value]) => value !== undefined),
        );
        return (await existingAgent(db, params.agent)).searchArchive(conditions);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/plan',
      summary: "The open turn's plan tree (400 INVALID_INPUT when no turn is open)",
      tag: 'conversation',
      write: false,
      params: agentParamsSchema,
      response: planStateSchema,
      handler: async ({ db, params }) => (await existingAgent(db, params.agent)).planState(),
    }),
  ];
}

function writeRoutes(): Route[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/turn',
      summary: 'Open a turn (search): continues the current scene, a named one or a new one',
      tag: 'conversation',
      write: true,
      params: agentParamsSchema,
      body: searchQuerySchema,
      response: searchResultSchema,
      handler: async ({ db, params, body }) => (await existingAgent(db, params.agent)).search(body),
    }),
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/turn/archive',
      summary: 'Write one utterance or event into the open turn',
      tag: 'conversation',
      write: true,
      params: agentParamsSchema,
      body: archiveInputSchema,
      response: slotSchema,
      handler: async ({ db, params, body }) => (await existingAgent(db, params.agent)).appendArchive(body),
    }),
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/turn/plan',
      summary: 'Add a plan step to the open turn under parentSeq (0 = a root)',
      tag: 'conversation',
      write: true,
      params: agentParamsSchema,
      body: z.strictObject({ parentSeq: z.number().int().min(0), title: z.string().optional() }),
      response: planNodeSchema,
      handler: async ({ db, params, body }) =>
        (await existingAgent(db, params.agent)).planNodeAdd(body.parentSeq, body.title),
    }),
    defineRoute({
      method: 'patch',
      path: '/api/agents/{agent}/turn/plan',
      summary: "Set a plan step's status (and title or summary)",
      tag: 'conversation',
      write: true,
      params: agentParamsSchema,
      body: planStepSchema,
      response: planNodeSchema,
      handler: async ({ db, params, body }) => (await existingAgent(db, params.agent)).planNodeUpdate(body),
    }),
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/turn/end',
      summary: 'Close the open turn (update): input, output, outcome; distils its keywords',
      tag: 'conversation',
      write: true,
      params: agentParamsSchema,
      body: turnEndSchema,
      response: turnResultSchema,
      handler: async ({ db, params, body }) => (await existingAgent(db, params.agent)).update(body),
    }),
  ];
}
