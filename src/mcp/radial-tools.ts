import { z } from 'zod';
import type { NavigationCandidate, NavigationSession } from '../api/navigation-session.js';
import type { DetailLevelInput } from '../api/radial-memory.js';
import { HedgehopError } from '../core/errors.js';
import type { RadialNode } from '../core/model/radial.js';
import type { ToolContext } from './tool-context.js';
import { jsonResult, textResult } from './tool-result.js';
import { DETAIL_LEVEL_NAMES, type DetailLevelName } from '../core/model/levels.js';
import { echo } from '../core/echo.js';

const levelSchema = z
  .union([z.number().int().min(0).max(4), z.enum(DETAIL_LEVEL_NAMES)])
  .describe(
    'Detail level: 0 origin (≤80 chars), 1 brief (≤200), 2 summary (≤600), 3 detailed (≤1800), 4 full (verbatim). A number or its name.',
  );

const nodeRefShape = {
  nodeId: z
    .string()
    .optional()
    .describe('The node id (as returned by memory_navigate, memory_load or memory_commit).'),
  lineId: z.string().optional().describe('The line id; with `position`, an alternative to nodeId.'),
  position: z.number().int().min(1).optional().describe('Position on the line: 1 is the newest task.'),
};

const toNumber = (level: DetailLevelInput): number =>
  typeof level === 'number' ? level : DETAIL_LEVEL_NAMES.indexOf(level as DetailLevelName);

function nodeView(node: RadialNode) {
  return {
    nodeId: node.id,
    lineId: node.lineId,
    position: node.position,
    taskLabel: node.taskLabel,
    createdAt: new Date(node.createdAt).toISOString(),
  };
}

function candidateView(candidate: NavigationCandidate) {
  return { ...nodeView(candidate.node), confidence: Math.round(candidate.confidence * 1000) / 1000 };
}

const describeNode = (node: RadialNode): string =>
  `${node.lineId} #${node.position} "${node.taskLabel}" (node ${node.id})`;

/** A session as the model reads it: where it is, how sure, how to go deeper, then the context. */
function sessionResult(ctx: ToolContext, session: NavigationSession) {
  ctx.lastLoaded = { nodeId: session.node.id, level: session.level };
  const others = session.candidates
    .filter((c) => c.node.id !== session.node.id)
    .slice(0, 4)
    .map((c) => `${c.node.lineId} #${c.node.position} "${c.node.taskLabel}" ${c.confidence.toFixed(2)}`);
  const next = !session.canDrillDeeper
    ? 'This is the verbatim full state.'
    : ctx.stateless
      ? `Call memory_drill with nodeId "${session.node.id}" and level ${session.level} for the next level, or memory_restore with that nodeId for the verbatim state.`
      : 'Call memory_drill for the next level, or memory_restore for the verbatim state.';
  const head = [
    `${describeNode(session.node)} — confidence ${session.confidence.toFixed(2)}, level ${session.level} (${session.levelName}). ${next}`,
    ...(others.length > 0 ? [`Other candidates: ${others.join('; ')}`] : []),
  ].join('\n');
  return {
    content: [{ type: 'text' as const, text: `${head}\n\n${session.context}` }],
    structuredContent: {
      node: nodeView(session.node),
      confidence: session.confidence,
      level: session.level,
      levelName: session.levelName,
      canDrillDeeper: session.canDrillDeeper,
      candidates: session.candidates.map(candidateView),
      context: session.context,
    },
  };
}

async function nodeOf(
  ctx: ToolContext,
  ref: { nodeId?: string | undefined; lineId?: string | undefined; position?: number | undefined },
) {
  const radial = (await ctx.agent()).radial;
  const last = ctx.stateless ? undefined : ctx.lastLoaded;
  const nodeId = ref.nodeId ?? (ref.lineId === undefined ? last?.nodeId : undefined);
  if (nodeId !== undefined) {
    const node = await radial.getNodeById(nodeId);
    if (!node) throw new HedgehopError('NOT_FOUND', `no node with id ${nodeId}`);
    return node;
  }
  if (ref.lineId === undefined) {
    throw new HedgehopError(
      'INVALID_INPUT',
      ctx.stateless
        ? 'nodeId: give the nodeId that memory_navigate or memory_load returned (or lineId and position); this server keeps nothing between calls'
        : 'nodeId: give nodeId, or lineId (and position); nothing was loaded yet',
      { field: 'nodeId' },
    );
  }
  return radial.getNodeOrThrow(ref.lineId, ref.position ?? 1);
}

function registerReading(ctx: ToolContext): void {
  const { server } = ctx;
  server.registerTool(
    'memory_origin',
    {
      title: 'Origin',
      description:
        'Returns the origin: who you are and one line per task domain ("line") of this memory, kept within a small token budget. Read it at the start of a session to know what the memory holds, then use memory_navigate or memory_recall to fetch details.',
      annotations: { readOnlyHint: true },
    },
    () => ctx.run(async () => textResult(await (await ctx.agent()).radial.getOriginContext())),
  );
  server.registerTool(
    'memory_lines',
    {
      title: 'List lines',
      description:
        'Lists the task lines (long-lived domains such as auth or infra) with their number of tasks and newest task.',
      annotations: { readOnlyHint: true },
    },
    () =>
      ctx.run(async () => {
        const lines = await (await ctx.agent()).radial.listLines();
        return jsonResult(lines, { lines });
      }),
  );
  server.registerTool(
    'memory_history',
    {
      title: 'Line history',
      description:
        'The tasks of one line, newest first; recent tasks in more detail, older ones briefer. Use it to see how a domain evolved.',
      inputSchema: { lineId: z.string().describe('The line id, e.g. "auth".') },
      annotations: { readOnlyHint: true },
    },
    ({ lineId }) =>
      ctx.run(async () => {
        const radial = (await ctx.agent()).radial;
        await radial.getLineOrThrow(lineId);
        const history = await radial.getLineHistory(lineId);
        return jsonResult(history, { history });
      }),
  );
}

function registerNavigation(ctx: ToolContext): void {
  const { server } = ctx;
  server.registerTool(
    'memory_navigate',
    {
      title: 'Navigate to a task',
      description: `Finds the completed task that best answers a question (any language) and returns it at a brief level, with its confidence (0..1) and the other ranked candidates. Returns an error result when nothing matches well enough. Follow up with memory_drill (more detail) or memory_restore (the verbatim saved state)${ctx.stateless ? ', passing the nodeId this tool returns (this server keeps nothing between calls)' : ''}.`,
      inputSchema: {
        query: z.string().describe('A question or keywords, e.g. "how do refresh tokens work?"'),
        lineId: z.string().optional().describe('Search only this line.'),
        level: levelSchema.optional().describe('Level to open the best match at (default 1, brief).'),
        confidenceThreshold: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe('Lowest confidence that counts as found (default 0.25).'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ query, lineId, level, confidenceThreshold }) =>
      ctx.run(async () => {
        const session = await (
          await ctx.agent()
        ).radial.navigate(query, {
          ...(lineId === undefined ? {} : { lineId }),
          ...(level === undefined ? {} : { initialLevel: level }),
          ...(confidenceThreshold === undefined ? {} : { confidenceThreshold }),
        });
        if (!session)
          throw new HedgehopError(
            'NOT_FOUND',
            `no task matches "${echo(query)}" well enough; try memory_recall, or other words`,
          );
        return sessionResult(ctx, session);
      }),
  );
  server.registerTool(
    'memory_load',
    {
      title: 'Load a task',
      description: 'Loads one task by line and position (1 = newest) at a detail level (default 2, summary).',
      inputSchema: {
        lineId: z.string().describe('The line id.'),
        position: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe('Position on the line, 1 = newest (default 1).'),
        level: levelSchema.optional().describe('Detail level (default 2, summary).'),
      },
      annotations: { readOnlyHint: true },
    },
    ({ lineId, position, level }) =>
      ctx.run(async () =>
        sessionResult(ctx, await (await ctx.agent()).radial.openNode(lineId, position ?? 1, level ?? 2)),
      ),
  );
  server.registerTool(
    'memory_drill',
    {
      title: 'Drill deeper',
      description: ctx.stateless
        ? 'Shows a task one detail level deeper (brief → summary → detailed → full). Give the nodeId that memory_navigate or memory_load returned (or lineId and position) and the level you have; this server keeps nothing between calls.'
        : 'Shows a task one detail level deeper than before (brief → summary → detailed → full). Without arguments it continues from the task loaded last by memory_navigate, memory_load or memory_drill.',
      inputSchema: {
        ...nodeRefShape,
        level: levelSchema
          .optional()
          .describe('The level you have now (default: the level loaded last); the result is one deeper.'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      ctx.run(async () => {
        const node = await nodeOf(ctx, args);
        const from =
          args.level === undefined
            ? ctx.lastLoaded?.nodeId === node.id
              ? ctx.lastLoaded.level
              : 1
            : toNumber(args.level);
        const session = await (
          await ctx.agent()
        ).radial.openNode(node.lineId, node.position, Math.min(4, from + 1));
        return sessionResult(ctx, session);
      }),
  );
  server.registerTool(
    'memory_restore',
    {
      title: 'Restore full state',
      description: `Returns the verbatim full context saved when a task was committed, byte for byte and nothing else. ${ctx.stateless ? 'Give the nodeId a previous call returned (or lineId and position).' : 'Without arguments: the task loaded last.'}`,
      inputSchema: nodeRefShape,
      annotations: { readOnlyHint: true },
    },
    (args) =>
      ctx.run(async () => {
        const node = await nodeOf(ctx, args);
        ctx.lastLoaded = { nodeId: node.id, level: 4 };
        return textResult(await (await ctx.agent()).radial.loadFullState(node.id));
      }),
  );
}

function registerCommit(ctx: ToolContext): void {
  ctx.server.registerTool(
    'memory_commit',
    {
      title: 'Commit a task',
      description:
        'Saves a completed task to its line (created if new) as position 1: the full verbatim context to restore later, a short summary, the files changed and what is left to do. Summaries at every level are made automatically. Commit when a task is done, before moving on.',
      inputSchema: {
        lineId: z.string().describe('The line (task domain), e.g. "auth". Created when new.'),
        taskLabel: z.string().describe('What the task was, e.g. "Implement JWT login endpoint".'),
        fullContext: z
          .string()
          .describe(
            'Everything needed to resume this task later, verbatim (decisions, code, commands, findings).',
          ),
        conversationSummary: z.string().describe('Two or three sentences on what was decided and why.'),
        fileChanges: z
          .array(
            z.object({
              path: z.string(),
              changeType: z.string().optional(),
              diffSummary: z.string().optional(),
            }),
          )
          .optional()
          .describe('Files the task changed.'),
        todos: z.array(z.string()).optional().describe('What is left to do.'),
        extend: z.boolean().optional().describe("True to record a continuation of the line's newest task."),
        lineName: z.string().optional().describe('Display name of a new line.'),
        lineDescription: z.string().optional().describe('One-line description of a new line.'),
      },
    },
    (args) =>
      ctx.run(async () => {
        const agent = await ctx.agent();
        const task = {
          lineId: args.lineId,
          taskLabel: args.taskLabel,
          fullContext: args.fullContext,
          conversationSummary: args.conversationSummary,
          fileChanges: (args.fileChanges ?? []).map((f) => ({
            path: f.path,
            changeType: f.changeType ?? 'modified',
            diffSummary: f.diffSummary ?? '',
          })),
          todos: args.todos ?? [],
        };
        // Refuse bad input before the line is created, so a refused commit writes nothing.
        await agent.radial.checkTask(task, { extend: args.extend === true });
        if (args.extend) await agent.radial.getLineOrThrow(args.lineId);
        else await agent.radial.getOrCreateLine(args.lineId, args.lineName, args.lineDescription);
        const node = args.extend
          ? await agent.radial.extendTask(task)
          : await agent.radial.completeTask(task);
        ctx.lastLoaded = { nodeId: node.id, level: 4 };
        return jsonResult(
          { committed: nodeView(node), summariesState: node.summariesState },
          { node: nodeView(node) },
        );
      }),
  );
}

/** The radial tools: origin, lines, history, navigate, load, drill, restore, commit. */
export function registerRadialTools(ctx: ToolContext): void {
  registerReading(ctx);
  registerNavigation(ctx);
  if (ctx.writable) registerCommit(ctx);
}
