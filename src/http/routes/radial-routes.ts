import { z } from 'zod';
import type { Agent } from '../../api/agent.js';
import type { NavigationSession } from '../../api/navigation-session.js';
import { HedgehopError } from '../../core/errors.js';
import { defineRoute, type Route } from '../route.js';
import { agentNameSchema, agentParamsSchema, existingAgent, queryInt } from './common.js';
import { DETAIL_LEVEL_NAMES } from '../../core/model/levels.js';
import { MAX_QUERY_CHARS } from '../../core/model/recall.js';
import type { JsonValue } from '../../core/model/radial.js';

const levelSchema = z
  .union([z.enum(DETAIL_LEVEL_NAMES), z.coerce.number().int().min(0).max(4)])
  .describe('detail level: origin, brief, summary, detailed, full (or 0..4)');

const lineIdSchema = z.string().min(1, 'must not be empty').describe('line id');

const lineParams = z.strictObject({ agent: agentNameSchema, lineId: lineIdSchema });
const nodeParams = z.strictObject({
  agent: agentNameSchema,
  lineId: lineIdSchema,
  position: queryInt(1, Number.MAX_SAFE_INTEGER).describe('1 is the newest node of the line'),
});
const nodeIdParams = z.strictObject({ agent: agentNameSchema, nodeId: z.string().min(1) });

const lineSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    createdAt: z.number(),
    nodeCount: z.number().int(),
    latest: z.object({ nodeId: z.string(), taskLabel: z.string(), createdAt: z.number() }).optional(),
  })
  .meta({ id: 'RadialLine' });

const summariesSchema = z.object({
  origin: z.string(),
  brief: z.string(),
  summary: z.string(),
  detailed: z.string(),
});

const nodeSchema = z
  .object({
    id: z.string(),
    lineId: z.string(),
    position: z.number().int(),
    taskLabel: z.string(),
    createdAt: z.number(),
    summaries: summariesSchema,
    summariesState: z.enum(['ready', 'pending']),
    state: z.object({
      conversationSummary: z.string(),
      fileChanges: z.array(z.object({ path: z.string(), changeType: z.string(), diffSummary: z.string() })),
      todos: z.array(z.string()),
      envSnapshot: z.record(z.string(), z.unknown()),
      fullContextBytes: z.number().int(),
    }),
    extendsNodeId: z.string().optional(),
  })
  .meta({ id: 'RadialNode' });

const historyEntrySchema = z.object({
  nodeId: z.string(),
  position: z.number().int(),
  taskLabel: z.string(),
  createdAt: z.number(),
  level: z.number().int().optional(),
  levelName: z.enum([...DETAIL_LEVEL_NAMES, 'label']),
  text: z.string(),
  summariesState: z.enum(['ready', 'pending']),
});

const overviewNodeSchema = z.object({
  id: z.string(),
  position: z.number().int(),
  taskLabel: z.string(),
  createdAt: z.number(),
  summariesState: z.enum(['ready', 'pending']),
});

const overviewSchema = z
  .object({
    projectName: z.string(),
    origin: z.string(),
    lines: z.array(lineSchema.extend({ nodes: z.array(overviewNodeSchema) })),
  })
  .meta({ id: 'RadialOverview' });

const sessionSchema = z
  .object({
    node: nodeSchema,
    line: lineSchema,
    level: z.number().int(),
    levelName: z.enum(DETAIL_LEVEL_NAMES),
    confidence: z.number(),
    canDrillDeeper: z.boolean(),
    context: z.string().describe('the text to put in the model context at this level'),
    candidates: z.array(
      z.object({
        nodeId: z.string(),
        lineId: z.string(),
        position: z.number().int(),
        taskLabel: z.string(),
        confidence: z.number(),
      }),
    ),
  })
  .meta({ id: 'NavigationSession' });

const navigateBodySchema = z.strictObject({
  query: z.string().min(1, 'must not be empty').max(MAX_QUERY_CHARS, `at most ${MAX_QUERY_CHARS} characters`),
  lineId: z.string().min(1).optional(),
  initialLevel: z.union([z.enum(DETAIL_LEVEL_NAMES), z.number().int().min(0).max(4)]).optional(),
  confidenceThreshold: z.number().min(0).max(1).optional(),
  limit: z.number().int().min(1).max(200).optional(),
});

const navigateResultSchema = z.object({ found: z.boolean(), session: sessionSchema.optional() });

const createLineBodySchema = z.strictObject({
  id: lineIdSchema,
  name: z.string().optional(),
  description: z.string().optional(),
});

const taskBodySchema = z.strictObject({
  taskLabel: z.string().min(1),
  fullContext: z.string(),
  conversationSummary: z.string(),
  fileChanges: z
    .array(
      z.strictObject({
        path: z.string(),
        changeType: z.string().optional(),
        diffSummary: z.string().optional(),
      }),
    )
    .optional(),
  todos: z.array(z.string()).optional(),
  // Any JSON value: a parsed JSON body can hold nothing else, so the schema need not recurse
  // (zod's z.json() does, which gave the OpenAPI document an unnamed recursive component).
  envSnapshot: z
    .record(z.string(), z.custom<JsonValue>(() => true).meta({ description: 'any JSON value' }))
    .optional(),
});

function sessionView(session: NavigationSession): z.input<typeof sessionSchema> {
  return {
    node: session.node,
    line: session.line,
    level: session.level,
    levelName: session.levelName,
    confidence: session.confidence,
    canDrillDeeper: session.canDrillDeeper,
    context: session.context,
    candidates: session.candidates.map((candidate) => ({
      nodeId: candidate.node.id,
      lineId: candidate.node.lineId,
      position: candidate.node.position,
      taskLabel: candidate.node.taskLabel,
      confidence: candidate.confidence,
    })),
  } as z.input<typeof sessionSchema>;
}

async function overview(agent: Agent): Promise<z.input<typeof overviewSchema>> {
  const radial = agent.radial;
  const lines = await radial.listLines();
  const withNodes = [];
  for (const line of lines) {
    const history = await radial.getLineHistory(line.id);
    withNodes.push({
      ...line,
      nodes: history.map((entry) => ({
        id: entry.nodeId,
        position: entry.position,
        taskLabel: entry.taskLabel,
        createdAt: entry.createdAt,
        summariesState: entry.summariesState,
      })),
    });
  }
  return {
    projectName: await radial.getProjectName(),
    origin: await radial.getOriginContext(),
    lines: withNodes as z.input<typeof overviewSchema>['lines'],
  };
}

/** Radial memory: origin, lines, nodes at every level, full state, navigation and commits. */
export function radialRoutes(): Route[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/radial',
      summary: 'Origin text and every line with its nodes (position, label): the hedgehog view in one call',
      tag: 'radial',
      write: false,
      params: agentParamsSchema,
      response: overviewSchema,
      handler: async ({ db, params }) => overview(await existingAgent(db, params.agent)),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/origin',
      summary: 'The origin: the always-in-context text',
      tag: 'radial',
      write: false,
      params: agentParamsSchema,
      response: z.object({ text: z.string() }),
      handler: async ({ db, params }) => ({
        text: await (await existingAgent(db, params.agent)).radial.getOriginContext(),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/lines',
      summary: 'Every line in creation order, with its node count and newest task',
      tag: 'radial',
      write: false,
      params: agentParamsSchema,
      response: z.array(lineSchema),
      handler: async ({ db, params }) => (await existingAgent(db, params.agent)).radial.listLines(),
    }),
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/lines',
      summary: 'Create a line (409 CONFLICT if the id is taken)',
      tag: 'radial',
      write: true,
      params: agentParamsSchema,
      body: createLineBodySchema,
      response: lineSchema,
      handler: async ({ db, params, body }) =>
        (await existingAgent(db, params.agent)).radial.createLine(body.id, body.name, body.description),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/lines/{lineId}',
      summary: 'One line',
      tag: 'radial',
      write: false,
      params: lineParams,
      response: lineSchema,
      handler: async ({ db, params }) =>
        (await existingAgent(db, params.agent)).radial.getLineOrThrow(params.lineId),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/lines/{lineId}/history',
      summary: 'The nodes of a line newest first, each at the level its distance earns',
      tag: 'radial',
      write: false,
      params: lineParams,
      response: z.array(historyEntrySchema),
      handler: async ({ db, params }) =>
        (await existingAgent(db, params.agent)).radial.getLineHistory(params.lineId),
    }),
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/lines/{lineId}/tasks',
      summary: 'Record a completed task as position 1 of the line',
      tag: 'radial',
      write: true,
      params: lineParams,
      body: taskBodySchema,
      response: nodeSchema,
      handler: async ({ db, params, body }) =>
        (await existingAgent(db, params.agent)).radial.completeTask({ ...body, lineId: params.lineId }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/lines/{lineId}/nodes/{position}',
      summary: 'The node at a position (1 = newest): its summaries at every level and its state',
      tag: 'radial',
      write: false,
      params: nodeParams,
      response: nodeSchema,
      handler: async ({ db, params }) =>
        (await existingAgent(db, params.agent)).radial.getNodeOrThrow(params.lineId, params.position),
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/lines/{lineId}/nodes/{position}/context',
      summary: 'The node opened at a detail level: the context text a model would get',
      tag: 'radial',
      write: false,
      params: nodeParams,
      query: z.strictObject({ level: levelSchema.optional() }),
      response: sessionSchema,
      handler: async ({ db, params, query }) => {
        const agent = await existingAgent(db, params.agent);
        return sessionView(await agent.radial.openNode(params.lineId, params.position, query.level ?? 2));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/nodes/{nodeId}',
      summary: 'A node by its id',
      tag: 'radial',
      write: false,
      params: nodeIdParams,
      response: nodeSchema,
      handler: async ({ db, params }) => {
        const node = await (await existingAgent(db, params.agent)).radial.getNodeById(params.nodeId);
        if (!node) throw notFoundNode(params.nodeId);
        return node;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/agents/{agent}/nodes/{nodeId}/full',
      summary: 'The verbatim full state of a node, byte for byte',
      tag: 'radial',
      write: false,
      params: nodeIdParams,
      response: z.object({ nodeId: z.string(), fullContext: z.string() }),
      handler: async ({ db, params }) => ({
        nodeId: params.nodeId,
        fullContext: await (await existingAgent(db, params.agent)).radial.loadFullState(params.nodeId),
      }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/agents/{agent}/navigate',
      summary: 'Find the node that best answers a query and open it at a level',
      tag: 'radial',
      write: false,
      params: agentParamsSchema,
      body: navigateBodySchema,
      response: navigateResultSchema,
      handler: async ({ db, params, body }) => {
        const { query, ...options } = body;
        const session = await (await existingAgent(db, params.agent)).radial.navigate(query, options);
        return session ? { found: true, session: sessionView(session) } : { found: false };
      },
    }),
  ];
}

function notFoundNode(nodeId: string): Error {
  return new HedgehopError('NOT_FOUND', `nodeId: no node '${nodeId}'`, { field: 'nodeId' });
}
