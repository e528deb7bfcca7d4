import type { Command } from 'commander';
import type { Agent } from '../../api/agent.js';
import { HedgehopError } from '../../core/errors.js';
import { shownSceneName, type PlanNode, type PlanState, type Scene } from '../../core/model/conversation.js';
import { clip, defined, timestamp, wholeNumber, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';

/*
 * The turn loop from the shell. The open turn is a row of the file, so `turn begin`, any number
 * of `turn append` / `turn plan …` and `turn end` may each be a separate invocation (or process).
 */

/**
 * Runs `fn` on the agent. Only `turn begin` (`create`) may create the file and a named agent:
 * every other step needs an open turn, so a missing agent is NOT_FOUND and the file is untouched.
 */
async function withAgent<T>(
  ctx: CommandContext,
  fn: (agent: Agent) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const create = options.create === true;
  return ctx.withMemory(async (db) => fn(await ctx.agent(db, { create })), { create });
}

/** The open turn's plan, or undefined when no turn is open. */
async function openPlan(agent: Agent): Promise<PlanState | undefined> {
  try {
    return await agent.planState();
  } catch (error) {
    if (HedgehopError.isInstance(error) && error.code === 'INVALID_INPUT' && error.field === 'turn')
      return undefined;
    throw error;
  }
}

function planLines(nodes: readonly PlanNode[], depth = 0): string[] {
  const mark = { in_progress: '[ ]', done: '[x]', failed: '[!]' } as const;
  return nodes.flatMap((node) => [
    `${'  '.repeat(depth + 1)}${mark[node.status]} ${node.seq}. ${node.title}${node.summary ? ` — ${clip(node.summary, 60)}` : ''}`,
    ...planLines(node.children, depth + 1),
  ]);
}

interface BeginOptions {
  readonly scene?: string;
  readonly newScene?: boolean;
  readonly name?: string;
  readonly knowledge?: string;
}

function registerBegin(turn: Command, io: CliIO, run: RunCommand): void {
  turn
    .command('begin')
    .description('open a turn (or return the one still open): the profile and the scene so far')
    .option('--scene <id>', 'continue this scene')
    .option('--new-scene', 'start a new scene')
    .option('--name <name>', 'name of the new scene')
    .option('--knowledge <graphId>', 'anchor the new scene to a knowledge graph')
    .action((options: BeginOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const result = await withAgent(
          ctx,
          (agent) =>
            agent.search(
              defined({
                sceneId: options.scene,
                newScene: options.newScene,
                sceneName: options.name,
                knowledgeId: options.knowledge,
              }),
            ),
          { create: true },
        );
        ctx.output(result, () =>
          [
            `${result.resumed ? 'resumed' : 'opened'} turn ${result.turnId} in ${sceneLabel(result.scene)}`,
            ...(result.profileBrief ? [`profile: ${result.profileBrief}`] : []),
            ...result.topics
              .map((t) => [t.name, t.keywords.join(', '), t.outcome].filter(Boolean).join(' — '))
              // A turn whose keywords are all filler ("Thanks!") has nothing to show.
              .filter((said) => said.length > 0)
              .slice(-5)
              .map((said) => `  earlier: ${clip(said, 90)}`),
          ].join('\n'),
        );
      }),
    );
}

interface AppendOptions {
  readonly kind: string;
  readonly role?: string;
  readonly speaker?: string;
  readonly eventType?: string;
  readonly planStep?: string;
  readonly contentType?: string;
  readonly at?: string;
}

function registerAppend(turn: Command, io: CliIO, run: RunCommand): void {
  turn
    .command('append')
    .description('write an utterance or an event (tool call, observation) into the open turn')
    .argument('<content>', 'the text, or - to read it from stdin')
    .option('--kind <kind>', 'utterance or event', 'event')
    .option('--role <role>', 'utterances: user, agent or system')
    .option('--speaker <name>', 'utterances: who spoke')
    .option('--event-type <type>', 'events: what happened, e.g. tool_call')
    .option('--plan-step <seq>', 'events: the plan step they belong to')
    .option('--content-type <type>', 'text, code, document, image, …')
    .option('--at <time>', 'when (ms or ISO date; default now)')
    .action((content: string, options: AppendOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const text = content === '-' ? await ctx.readStdin('content') : content;
        const record = defined({
          kind: options.kind,
          role: options.role,
          speaker: options.speaker,
          eventType: options.eventType ?? (options.kind === 'event' ? 'note' : undefined),
          planStep: wholeNumber('plan-step', options.planStep, 1),
          contentType: options.contentType,
          content: text,
          createdAt: timestamp('at', options.at) ?? Date.now(),
        });
        const slot = await withAgent(ctx, (agent) =>
          agent.appendArchive(record as Parameters<Agent['appendArchive']>[0]),
        );
        ctx.output(slot, () => `appended record ${slot.id} as slot ${slot.seq} of turn ${slot.topicId}`);
      }),
    );
}

function registerPlan(turn: Command, io: CliIO, run: RunCommand): void {
  const plan = turn.command('plan').description("the open turn's plan: show it, add steps, mark them done");
  plan
    .command('show', { isDefault: true })
    .description("print the open turn's plan")
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const state = await withAgent(ctx, (agent) => agent.planState());
        ctx.output(state, () =>
          [
            `plan of turn ${state.turnId}: ${state.doneCount}/${state.totalCount} done`,
            ...planLines(state.roots),
          ].join('\n'),
        );
      }),
    );
  plan
    .command('add')
    .description('add a step (it starts in progress)')
    .argument('<title>', 'what the step is')
    .option('--parent <seq>', 'the step it belongs under (default: a new root step)', '0')
    .action((title: string, options: { parent: string }, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const node = await withAgent(ctx, (agent) =>
          agent.planNodeAdd(wholeNumber('parent', options.parent) as number, title),
        );
        ctx.output(node, () => `added step ${node.seq}: ${node.title}`);
      }),
    );
  plan
    .command('set')
    .description("set a step's status (done, failed, in_progress), and optionally its summary or title")
    .argument('<seq>', 'the step number')
    .argument('<status>', 'done, failed or in_progress')
    .option('--summary <text>', 'what the step found or did')
    .option('--title <text>', 'a new title')
    .action((seq: string, status: string, options: { summary?: string; title?: string }, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const step = defined({
          seq: wholeNumber('seq', seq, 1),
          status,
          summary: options.summary,
          title: options.title,
        });
        const node = await withAgent(ctx, (agent) =>
          agent.planNodeUpdate(step as Parameters<Agent['planNodeUpdate']>[0]),
        );
        ctx.output(node, () => `step ${node.seq} is ${node.status}: ${node.title}`);
      }),
    );
}

interface EndOptions {
  readonly input?: string;
  readonly output?: string;
  readonly outcome?: string;
  readonly at?: string;
}

function registerEnd(turn: Command, io: CliIO, run: RunCommand): void {
  turn
    .command('end')
    .description("close the open turn with its input, output and outcome; returns the turn's topic")
    .option('--input <text>', "the user's message")
    .option('--output <text>', "the agent's answer")
    .option('--outcome <text>', 'how the turn ended (e.g. resolved, blocked: …)')
    .option('--at <time>', 'when (ms or ISO date; default now)')
    .action((options: EndOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const end = defined({
          input: options.input,
          output: options.output,
          outcome: options.outcome,
          createdAt: timestamp('at', options.at) ?? Date.now(),
        });
        const result = await withAgent(ctx, (agent) => agent.update(end));
        ctx.output(result, () => {
          const keywords = result.keywordsPending
            ? 'keywords pending'
            : result.topic.keywords.join(', ') || 'no keywords';
          return `closed turn ${result.topic.id} (${keywords})`;
        });
      }),
    );
}

function registerStatus(turn: Command, io: CliIO, run: RunCommand): void {
  turn
    .command('status')
    .description('is a turn open, and how far is its plan')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const state = await ctx.withMemory(async (db) => openPlan(await ctx.agent(db)));
        ctx.output({ open: state !== undefined, plan: state ?? null }, () =>
          state
            ? [
                `turn ${state.turnId} is open; plan ${state.doneCount}/${state.totalCount} done`,
                ...planLines(state.roots),
              ].join('\n')
            : 'no turn is open (hedgehop turn begin)',
        );
      }),
    );
}

/** `turn begin|append|plan|end|status`. */
export function registerTurn(program: Command, io: CliIO, run: RunCommand): void {
  const turn = program
    .command('turn')
    .description('the conversation turn loop: begin, append records and plan steps, end');
  registerBegin(turn, io, run);
  registerAppend(turn, io, run);
  registerPlan(turn, io, run);
  registerEnd(turn, io, run);
  registerStatus(turn, io, run);
}

/** `scene "<name>" (<id>)`, or `scene <id>` when its host named none. */
function sceneLabel(scene: Scene): string {
  const name = shownSceneName(scene);
  return name.length > 0 ? `scene "${name}" (${scene.id})` : `scene ${scene.id}`;
}
