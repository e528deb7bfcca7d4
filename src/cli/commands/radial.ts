import type { Command } from 'commander';
import type { LoadResult } from '../../api/context-window-manager.js';
import type { NavigationCandidate, NavigationSession } from '../../api/navigation-session.js';
import { DEFAULT_CONFIDENCE_THRESHOLD, type RadialMemory } from '../../api/radial-memory.js';
import { HedgehopError } from '../../core/errors.js';
import type { RadialNode } from '../../core/model/radial.js';
import { clip, collect, defined, detailLevel, fraction, wholeNumber, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import { terminalText, type CliIO } from '../output.js';
import { echo } from '../../core/echo.js';
import { withoutLeadingLabel } from '../../core/text.js';

/** A candidate as the CLI shows it. */
function candidateView(candidate: NavigationCandidate) {
  const { node } = candidate;
  return {
    nodeId: node.id,
    lineId: node.lineId,
    position: node.position,
    taskLabel: node.taskLabel,
    confidence: Math.round(candidate.confidence * 1000) / 1000,
  };
}

/** A navigation session or load result as one JSON document. */
function sessionView(session: NavigationSession | LoadResult, query?: string) {
  return {
    query,
    confidence: session.confidence,
    level: session.level,
    levelName: session.levelName,
    canDrillDeeper: session.canDrillDeeper,
    node: session.node,
    candidates: session.candidates.map(candidateView),
    context: session.context,
  };
}

const where = (node: RadialNode | undefined): string =>
  node ? `${node.lineId} #${node.position} "${node.taskLabel}"` : '(none)';

type CandidateView = ReturnType<typeof candidateView>;

function candidateLines(candidates: readonly CandidateView[]): string[] {
  return candidates
    .slice(0, 5)
    .map((c) => `  ${c.confidence.toFixed(2)}  ${c.lineId} #${c.position}  ${clip(c.taskLabel, 60)}`);
}

function registerOrigin(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('origin')
    .description('print the origin: the always-in-context summary of every line, within its token budget')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const origin = await ctx.withMemory(async (db) => (await ctx.agent(db)).radial.getOriginContext());
        ctx.output({ origin }, () => origin);
      }),
    );
}

function registerLines(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('lines')
    .description('list the task lines, with their node count and newest task')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const lines = await ctx.withMemory(async (db) => (await ctx.agent(db)).radial.listLines());
        ctx.output(lines, () => {
          if (lines.length === 0) return '(no lines yet: commit a task with `hedgehop commit`)';
          return lines
            .map(
              (l) =>
                `${ctx.paint('bold', l.id.padEnd(12))} ${String(l.nodeCount).padStart(4)} tasks  ${clip(l.latest?.taskLabel ?? '', 60)}`,
            )
            .join('\n');
        });
      }),
    );
}

function registerHistory(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('history')
    .description('the tasks of a line, newest first, each at the detail its distance earns')
    .argument('<lineId>', 'the line')
    .action((lineId: string, _options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const history = await ctx.withMemory(async (db) => {
          const radial = (await ctx.agent(db)).radial;
          await radial.getLineOrThrow(lineId);
          return radial.getLineHistory(lineId);
        });
        ctx.output(history, () =>
          history
            .map((e) => {
              // The label heads the entry: the level follows without its own copy of it.
              const text = withoutLeadingLabel(e.text, e.taskLabel);
              const head = `${ctx.paint('bold', `#${e.position}`)} [${e.levelName}] ${e.taskLabel}`;
              return text.length > 0 ? `${head}\n${indent(text)}` : head;
            })
            .join('\n'),
        );
      }),
    );
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');

interface CommitOptions {
  readonly line: string;
  readonly label?: string;
  readonly context?: string;
  readonly summary?: string;
  readonly changed?: string[];
  readonly todo?: string[];
  readonly extend?: boolean;
  readonly lineName?: string;
  readonly lineDescription?: string;
}

/** `--changed path[:type[:summary]]` → a file change. */
function fileChange(spec: string): { path: string; changeType: string; diffSummary: string } {
  const [path = '', changeType = 'modified', ...rest] = spec.split(':');
  return { path, changeType, diffSummary: rest.join(':') };
}

async function commitContext(ctx: CommandContext, options: CommitOptions): Promise<string> {
  if (options.context !== undefined) return ctx.readText(options.context, '--context');
  if (ctx.stdinPiped) return ctx.readStdin('context');
  throw new HedgehopError(
    'INVALID_INPUT',
    'context: give --context <path> (or -), or pipe the full context on stdin',
    {
      field: 'context',
    },
  );
}

function registerCommit(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('commit')
    .description('record a completed task as position 1 of its line (the line is created if new)')
    .requiredOption('--line <id>', 'the task line, e.g. auth')
    .option('--label <text>', 'what the task was, e.g. "Implement JWT login" (required unless --extend)')
    .option('--context <path>', 'file holding the full verbatim context (- for stdin; default: piped stdin)')
    .option('--summary <text>', 'a short summary of the conversation', '')
    .option('--changed <path[:type[:summary]]>', 'a file the task changed (repeatable)', collect)
    .option('--todo <text>', 'something left to do (repeatable)', collect)
    .option('--extend', "continue the line's newest task instead of starting a new one")
    .option('--line-name <name>', 'display name of a new line')
    .option('--line-description <text>', 'description of a new line')
    .action((options: CommitOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        if (!options.extend && options.label === undefined) {
          throw new HedgehopError('INVALID_INPUT', '--label: required (what the task was)', {
            field: 'label',
          });
        }
        const fullContext = await commitContext(ctx, options);
        const node = await ctx.withMemory(
          async (db) => {
            const task = {
              lineId: options.line,
              ...(options.label === undefined ? {} : { taskLabel: options.label }),
              fullContext,
              conversationSummary: options.summary ?? '',
              fileChanges: (options.changed ?? []).map(fileChange),
              todos: options.todo ?? [],
            };
            // Bad input is refused before the agent or the line is created: nothing is written.
            await db.primary().radial.checkTask(task as Parameters<RadialMemory['checkTask']>[0], {
              extend: options.extend === true,
            });
            const agent = await ctx.agent(db, { create: true });
            if (options.extend === true) await agent.radial.getLineOrThrow(options.line);
            else await agent.radial.getOrCreateLine(options.line, options.lineName, options.lineDescription);
            return agent.context.commit(task as Parameters<typeof agent.context.commit>[0], {
              extension: options.extend === true,
            });
          },
          { create: true },
        );
        ctx.output(
          node,
          () => `committed ${where(node)} (node ${node.id}, ${node.state.fullContextBytes} bytes)`,
        );
      }),
    );
}

interface NavigateCliOptions {
  readonly line?: string;
  readonly level?: string;
  readonly threshold?: string;
  readonly limit?: string;
}

function registerNavigate(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('navigate')
    .description('find the task that best answers a question; shows its confidence and the other candidates')
    .argument('<query>', 'a question or keywords, in any language')
    .option('--line <id>', 'only this line')
    .option('--level <level>', 'detail level to open the best match at (0..4 or a name)', 'brief')
    .option(
      '--threshold <0..1>',
      'lowest confidence that counts as found',
      String(DEFAULT_CONFIDENCE_THRESHOLD),
    )
    .option('--limit <n>', 'how many candidates to rank', '10')
    .action((query: string, options: NavigateCliOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const navigateOptions = defined({
          lineId: options.line,
          initialLevel: detailLevel('level', options.level),
          confidenceThreshold: fraction('threshold', options.threshold),
          limit: wholeNumber('limit', options.limit, 1),
        });
        const view = await ctx.withMemory(async (db) => {
          const session = await (await ctx.agent(db)).radial.navigate(query, navigateOptions);
          if (!session)
            throw new HedgehopError('NOT_FOUND', `navigate: no task matches "${echo(query)}" well enough`);
          return sessionView(session, query);
        });
        ctx.output(view, () =>
          [
            `${ctx.paint('bold', where(view.node))}  confidence ${view.confidence.toFixed(2)}  [${view.levelName}]`,
            '',
            view.context,
            '',
            'candidates:',
            ...candidateLines(view.candidates),
          ].join('\n'),
        );
      }),
    );
}

interface LoadCliOptions extends NavigateCliOptions {
  readonly position?: string;
  readonly fullState?: boolean;
}

async function loadResult(
  ctx: CommandContext,
  query: string | undefined,
  options: LoadCliOptions,
): Promise<LoadResult> {
  return ctx.withMemory(async (db) => {
    const agent = await ctx.agent(db);
    const context = agent.context;
    if (query === undefined) {
      if (options.line === undefined) {
        throw new HedgehopError('INVALID_INPUT', 'load: give a query, or --line (with --position)', {
          field: 'query',
        });
      }
      const position = wholeNumber('position', options.position ?? '1', 1) as number;
      const level = detailLevel('level', options.level ?? 'summary') as number;
      const result = await context.loadNode(options.line, position, level as 0 | 1 | 2 | 3 | 4);
      if (result.status === 'not_found') {
        if ((await agent.radial.getLine(options.line)) === undefined)
          throw new HedgehopError('NOT_FOUND', `--line: no line '${options.line}'`, {
            remedy: 'create-line',
          });
        throw new HedgehopError(
          'NOT_FOUND',
          `--position: no task at position ${position} of line '${options.line}'`,
          { remedy: 'list-nodes' },
        );
      }
      return withFullState(result, options);
    }
    const result = await context.load(
      query,
      defined({
        lineId: options.line,
        initialLevel: detailLevel('level', options.level),
        confidenceThreshold: fraction('threshold', options.threshold),
      }),
    );
    if (result.status === 'not_found')
      throw new HedgehopError('NOT_FOUND', `load: no task matches "${echo(query)}" well enough`);
    return withFullState(result, options);
  });
}

/** Reads the verbatim state while the file is still open (the result reads lazily). */
async function withFullState(result: LoadResult, options: LoadCliOptions): Promise<LoadResult> {
  if (options.fullState) fullStates.set(result, await result.loadFullState());
  return result;
}

const fullStates = new WeakMap<LoadResult, string>();

function registerLoad(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('load')
    .description('load a task into context: by query (navigates), or by --line and --position')
    .argument('[query]', 'a question or keywords; leave out to load by position')
    .option('--line <id>', 'the line (with --position), or the only line a query searches')
    .option('--position <n>', 'position on the line, 1 = newest (default 1)')
    .option('--level <level>', 'detail level 0..4 or origin, brief, summary, detailed, full')
    .option('--threshold <0..1>', 'lowest confidence that counts as found (query loads)')
    .option('--full-state', 'print the verbatim full context exactly as committed, and nothing else')
    .action((query: string | undefined, options: LoadCliOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const result = await loadResult(ctx, query, options);
        const fullState = fullStates.get(result);
        if (fullState !== undefined) {
          if (ctx.json) ctx.output({ node: result.node, fullState }, () => '');
          // Verbatim into a pipe or file; escaped on a terminal, which would act on its controls.
          else io.stdout.write(io.stdout.isTTY === true ? terminalText(fullState) : fullState);
          return;
        }
        ctx.output({ status: result.status, ...sessionView(result, query) }, () =>
          [
            `${ctx.paint('bold', where(result.node))}  confidence ${result.confidence.toFixed(2)}  [${result.levelName ?? ''}]`,
            '',
            result.context,
            ...(result.canDrillDeeper
              ? ['', ctx.paint('dim', `(deeper: --level ${(result.level ?? 0) + 1}; verbatim: --full-state)`)]
              : []),
          ].join('\n'),
        );
      }),
    );
}

/** `origin`, `lines`, `history`, `commit`, `navigate`, `load`. */
export function registerRadial(program: Command, io: CliIO, run: RunCommand): void {
  registerOrigin(program, io, run);
  registerLines(program, io, run);
  registerHistory(program, io, run);
  registerCommit(program, io, run);
  registerNavigate(program, io, run);
  registerLoad(program, io, run);
}
