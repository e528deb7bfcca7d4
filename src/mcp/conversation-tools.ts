import { z } from 'zod';
import type { ToolContext } from './tool-context.js';
import { jsonResult } from './tool-result.js';

const LAYERS = ['radial', 'topic', 'archive', 'knowledge', 'profile'] as const;

/** A time input: ms since the epoch or an ISO 8601 string (checked by the API). */
const TIME = z.union([z.number().int(), z.string()]).optional();

function registerRecall(ctx: ToolContext): void {
  ctx.server.registerTool(
    'memory_recall',
    {
      title: 'Recall',
      description:
        "Searches everything this memory holds (tasks, past conversations, tool events, knowledge graphs, profile) for a query and returns a context that fits a token budget: the best items verbatim, the rest briefer, each labelled with where it came from. Use it for questions about the past that are not about one task. Hits come best first (rank 1); each hit's wordsFound is the share of the query's words (weighted by rarity) that it holds, 0..1, which the rank also weighs with recency, neighbouring turns and meaning.",
      inputSchema: {
        query: z.string().describe('What to recall, in any language.'),
        budgetTokens: z
          .number()
          .int()
          .min(0)
          .max(100_000)
          .optional()
          .describe('Token budget of the returned context (default 1000).'),
        limit: z
          .number()
          .int()
          .min(1)
          .max(100)
          .optional()
          .describe('At most this many ranked hits (default 10).'),
        layers: z.array(z.enum(LAYERS)).optional().describe('Only these layers.'),
        lineId: z.string().optional().describe('Only this radial line.'),
        sceneId: z.string().optional().describe('Only this conversation scene.'),
        from: TIME.describe('Only records from this time on: ms since the epoch or ISO 8601.'),
        to: TIME.describe('Only records before this time: ms since the epoch or ISO 8601.'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      ctx.run(async () => {
        const { query, ...options } = args;
        const result = await (
          await ctx.agent()
        ).recall(query, Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)));
        const hits = result.hits.map((hit, index) => ({
          rank: index + 1,
          layer: hit.layer,
          wordsFound: Math.round(hit.confidence * 1000) / 1000,
          preview: hit.preview,
          provenance: hit.provenance,
          inContext: hit.inContext,
        }));
        const head = `${result.hits.length} hits; context uses ${result.usedTokens} of ${result.budgetTokens} tokens.`;
        return {
          content: [
            {
              type: 'text' as const,
              text: result.context.length > 0 ? `${head}\n\n${result.context}` : head,
            },
          ],
          structuredContent: {
            hits,
            context: result.context,
            usedTokens: result.usedTokens,
            budgetTokens: result.budgetTokens,
          },
        };
      }),
  );
}

function registerTurn(ctx: ToolContext): void {
  const { server } = ctx;
  server.registerTool(
    'memory_turn_begin',
    {
      title: 'Begin a turn',
      description:
        'Opens a conversation turn at the start of handling a user message: returns the profile and what the current scene (conversation) has covered so far. If a turn is already open (e.g. after a crash) the same turn is returned. Record tool calls with memory_turn_append and plan steps with memory_plan_add/memory_plan_update, then close with memory_turn_end.',
      inputSchema: {
        sceneId: z.string().optional().describe('Continue this scene (default: the current one).'),
        newScene: z.boolean().optional().describe('Start a new scene (a new conversation).'),
        sceneName: z.string().optional().describe('Name of the new scene.'),
        knowledgeId: z.string().optional().describe('Anchor the new scene to this knowledge graph id.'),
      },
    },
    (args) =>
      ctx.run(async () => {
        const query = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
        const result = await (await ctx.agent()).search(query);
        const view = {
          turnId: result.turnId,
          resumed: result.resumed,
          scene: result.scene,
          sceneCreated: result.sceneCreated,
          profile: result.profileBrief,
          earlierTopics: result.topics.map((t) => ({
            id: t.id,
            name: t.name,
            keywords: t.keywords,
            outcome: t.outcome,
          })),
        };
        return jsonResult(view, view);
      }),
  );
  server.registerTool(
    'memory_turn_append',
    {
      title: 'Append to the turn',
      description:
        'Records one thing that happened in the open turn, verbatim: an event (a tool call, its result, an observation; up to 4 KiB) or an utterance (up to 64 KiB).',
      inputSchema: {
        kind: z
          .enum(['event', 'utterance'])
          .describe('event (tool calls, results, notes) or utterance (something said).'),
        content: z.string().describe('The verbatim text.'),
        eventType: z
          .string()
          .optional()
          .describe('Events: what happened, e.g. tool_call, tool_result, observation.'),
        role: z.enum(['user', 'agent', 'system']).optional().describe('Utterances: who spoke.'),
        speaker: z.string().optional().describe("Utterances: the speaker's name."),
        planStep: z.number().int().min(1).optional().describe('Events: the plan step (seq) this belongs to.'),
        contentType: z.enum(['text', 'image', 'video', 'document', 'audio', 'code', 'other']).optional(),
        createdAt: TIME.describe('When it happened: ms since the epoch or ISO 8601 (default now).'),
      },
    },
    (args) =>
      ctx.run(async () => {
        const record = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
        const slot = await (
          await ctx.agent()
        ).appendArchive({ createdAt: Date.now(), ...record } as Parameters<
          Awaited<ReturnType<ToolContext['agent']>>['appendArchive']
        >[0]);
        return jsonResult(slot, { ...slot });
      }),
  );
  server.registerTool(
    'memory_plan_add',
    {
      title: 'Add a plan step',
      description:
        "Adds a step to the open turn's plan (it starts in progress). Returns the step with its seq number.",
      inputSchema: {
        title: z.string().describe('What the step is.'),
        parentSeq: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('The step it belongs under (default 0: a top-level step).'),
      },
    },
    ({ title, parentSeq }) =>
      ctx.run(async () => {
        const agent = await ctx.agent();
        const step = await agent.planNodeAdd(parentSeq ?? 0, title);
        return jsonResult({ step, plan: await agent.planState() }, { step: { ...step } });
      }),
  );
  server.registerTool(
    'memory_plan_update',
    {
      title: 'Update a plan step',
      description:
        "Sets a plan step's status (done, failed or in_progress) and optionally its summary or title. Finished branches fold their summaries upward.",
      inputSchema: {
        seq: z.number().int().min(1).describe('The step number.'),
        status: z.enum(['in_progress', 'done', 'failed']),
        summary: z.string().optional().describe('What the step found or did.'),
        title: z.string().optional(),
      },
    },
    (args) =>
      ctx.run(async () => {
        const agent = await ctx.agent();
        const step = await agent.planNodeUpdate(
          Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) as Parameters<
            typeof agent.planNodeUpdate
          >[0],
        );
        return jsonResult({ step, plan: await agent.planState() }, { step: { ...step } });
      }),
  );
  server.registerTool(
    'memory_turn_end',
    {
      title: 'End the turn',
      description:
        "Closes the open turn with the user's message, your answer and its outcome; keywords for later recall are distilled from them. Call it once you have answered.",
      inputSchema: {
        input: z.string().optional().describe("The user's message."),
        output: z.string().optional().describe('Your answer.'),
        outcome: z
          .string()
          .optional()
          .describe('How the turn ended, e.g. "resolved" or "blocked: waiting for credentials".'),
        createdAt: TIME.describe('When the turn ended: ms since the epoch or ISO 8601 (default now).'),
      },
    },
    (args) =>
      ctx.run(async () => {
        const end = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
        const result = await (await ctx.agent()).update({ createdAt: Date.now(), ...end });
        return jsonResult(result, { topic: { ...result.topic }, keywordsPending: result.keywordsPending });
      }),
  );
}

function registerProfile(ctx: ToolContext): void {
  ctx.server.registerTool(
    'memory_profile_get',
    {
      title: 'Read the profile',
      description:
        'Returns the profile of the agent this memory belongs to: name, role, personality and preferences.',
      annotations: { readOnlyHint: true },
    },
    () =>
      ctx.run(async () => {
        const profile = await (await ctx.agent()).getProfile();
        return jsonResult(profile, { ...profile });
      }),
  );
  if (!ctx.writable) return;
  ctx.server.registerTool(
    'memory_profile_update',
    {
      title: 'Update the profile',
      description:
        'Changes the profile: only the fields given change. A preference set to null is removed; other preferences are kept.',
      inputSchema: {
        name: z.string().optional(),
        role: z.string().optional(),
        personality: z.string().optional(),
        preferences: z
          .record(z.string(), z.string().nullable())
          .optional()
          .describe('e.g. {"editor": "vim", "tabs": null}'),
      },
    },
    (args) =>
      ctx.run(async () => {
        const patch = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
        const profile = await (await ctx.agent()).updateProfile(patch);
        return jsonResult(profile, { ...profile });
      }),
  );
}

function registerDream(ctx: ToolContext): void {
  ctx.server.registerTool(
    'memory_dream',
    {
      title: 'Consolidate memory (Dream)',
      description:
        'Runs a consolidation pass now: fills summaries and keywords left pending, fuses related turns of crowded conversations, refreshes the estimate of the profile and the graph of related scenes. Nothing verbatim is lost. It also runs by itself in the background; call it after a long session.',
      inputSchema: { sceneId: z.string().optional().describe('Compress only this scene (default: all).') },
    },
    ({ sceneId }) =>
      ctx.run(async () => {
        const report = await (await ctx.agent()).dream(sceneId);
        const stages = report.stages.map((s) => ({
          name: s.name,
          status: s.status,
          changed: s.changed,
          reason: s.reason,
        }));
        const view = {
          id: report.id,
          status: report.status,
          durationMs: report.durationMs,
          stages,
          errors: report.errors,
        };
        return jsonResult(view, view);
      }),
  );
}

/** Recall, the turn loop (begin, append, plan steps, end), the profile and Dream. */
export function registerConversationTools(ctx: ToolContext): void {
  registerRecall(ctx);
  if (ctx.writable) registerTurn(ctx);
  registerProfile(ctx);
  if (ctx.writable) registerDream(ctx);
}
