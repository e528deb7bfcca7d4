import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Agent } from '../../api/agent.js';
import { openMemory, type MemoryDB } from '../../api/memory-db.js';
import type { NavigationSession } from '../../api/navigation-session.js';
import { HedgehopError } from '../../core/errors.js';
import type { DreamReport } from '../../core/model/dream.js';
import { VIEW_SECTIONS, viewHeading } from '../../core/model/levels.js';
import type { RecallResult } from '../../core/model/recall.js';
import { clip, type RunCommand } from '../arguments.js';
import { cliName } from '../cli-name.js';
import { CommandContext, type GlobalOptions } from '../command-context.js';
import type { CliIO } from '../output.js';
import { describeDream } from './dream.js';
import {
  STORY_GRAPH,
  STORY_LINES,
  STORY_PROFILE,
  STORY_PROJECT,
  STORY_QUESTION,
  STORY_RECALL,
  STORY_TURNS,
  type StoryTurn,
} from '../demo-story.js';

/** What the demo built. */
interface Built {
  readonly lines: number;
  readonly tasks: number;
  readonly turns: number;
  readonly events: number;
  readonly planSteps: number;
  readonly knowledgeNodes: number;
  readonly knowledgeEdges: number;
  readonly ms: number;
}

async function commitStory(agent: Agent): Promise<number> {
  let tasks = 0;
  await agent.radial.setProjectName(STORY_PROJECT);
  for (const line of STORY_LINES) {
    await agent.radial.createLine(line.id, line.name, line.description);
    for (const task of line.tasks) {
      await agent.context.commit({
        lineId: line.id,
        taskLabel: task.label,
        fullContext: task.fullContext,
        conversationSummary: task.summary,
        fileChanges: [...task.files],
        todos: [...task.todos],
      });
      tasks++;
    }
  }
  return tasks;
}

/** One turn through the loop: search, then plan steps with their tool events, then update. */
async function recordTurn(agent: Agent, turn: StoryTurn): Promise<{ events: number; steps: number }> {
  await agent.search(turn.newScene === undefined ? {} : { newScene: true, sceneName: turn.newScene });
  let events = 0;
  for (const step of turn.steps) {
    const { seq } = await agent.planNodeAdd(0, step.title);
    for (const event of step.events) {
      await agent.appendArchive({
        kind: 'event',
        eventType: event.eventType,
        content: event.content,
        planStep: seq,
        createdAt: Date.now(),
      });
      events++;
    }
    await agent.planNodeUpdate({ seq, status: 'done', summary: step.summary });
  }
  await agent.update({
    input: turn.input,
    output: turn.output,
    outcome: turn.outcome,
    createdAt: Date.now(),
  });
  return { events, steps: turn.steps.length };
}

async function buildStory(db: MemoryDB): Promise<Built> {
  const started = performance.now();
  const agent = db.primary();
  const tasks = await commitStory(agent);
  let events = 0;
  let planSteps = 0;
  for (const turn of STORY_TURNS) {
    const recorded = await recordTurn(agent, turn);
    events += recorded.events;
    planSteps += recorded.steps;
  }
  const graph = await db.knowledge.import(STORY_GRAPH);
  return {
    lines: STORY_LINES.length,
    tasks,
    turns: STORY_TURNS.length,
    events,
    planSteps,
    knowledgeNodes: graph.created.length,
    knowledgeEdges: graph.edgesCreated,
    ms: Math.round(performance.now() - started),
  };
}

/** What one Dream pass over the story gave: its report and the engram it built. */
interface Dreamt {
  readonly report: DreamReport;
  readonly engram: {
    readonly scenes: readonly {
      readonly sceneId: string;
      readonly name: string;
      readonly keywords: number;
    }[];
    readonly links: readonly { readonly a: string; readonly b: string; readonly weight: number }[];
  };
}

/**
 * One Dream pass, as an agent's idle time would run it: it distils the profile estimate and
 * builds the engram of the story's scenes (what the web UI's Engram and Dream views show).
 */
async function dreamStory(db: MemoryDB): Promise<Dreamt> {
  const agent = db.primary();
  const report = await agent.dream();
  const engram = await agent.listEngram();
  const names = new Map((await agent.listScenes()).map((scene) => [scene.id, scene.name]));
  const name = (sceneId: string): string => names.get(sceneId) ?? sceneId;
  return {
    report,
    engram: {
      scenes: engram.nodes.map((n) => ({
        sceneId: n.sceneId,
        name: name(n.sceneId),
        keywords: n.keywords.length,
      })),
      links: engram.edges.map((e) => ({ a: name(e.a), b: name(e.b), weight: e.weight })),
    },
  };
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every level of the navigated node, from where navigation opened it down to the verbatim state. */
async function drillDown(
  session: NavigationSession,
): Promise<{ level: number; levelName: string; context: string }[]> {
  const levels = [];
  let current = session;
  for (;;) {
    levels.push({ level: current.level, levelName: current.levelName, context: current.context });
    if (!current.canDrillDeeper) return levels;
    current = await current.drillDeeper();
  }
}

async function restore(session: NavigationSession) {
  const restored = await session.loadFullState();
  const committed =
    STORY_LINES.flatMap((l) => l.tasks).find((t) => t.label === session.node.taskLabel)?.fullContext ?? '';
  return {
    nodeId: session.node.id,
    bytes: Buffer.byteLength(restored, 'utf8'),
    sha256: sha256(restored),
    committedBytes: Buffer.byteLength(committed, 'utf8'),
    committedSha256: sha256(committed),
    identical: restored === committed,
  };
}

const shellQuote = (path: string): string =>
  /^[\w./-]+$/u.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;

function nextSteps(path: string): string[] {
  const file = shellQuote(path);
  // The form that runs where the user is (`npx hedgehop` after the README's `npm install`).
  const hop = cliName();
  return [
    `${hop} serve --file ${file}`,
    `${hop} navigate "how are invoices numbered?" --file ${file}`,
    `${hop} recall "why did the staging deploy fail?" --budget 500 --file ${file}`,
    `${hop} history auth --file ${file}`,
    `${hop} dream history --file ${file}`,
    `${hop} mcp --file ${file}`,
  ];
}

async function showStory(db: MemoryDB) {
  const agent = db.primary();
  const origin = await agent.radial.getOriginContext();
  const session = await agent.radial.navigate(STORY_QUESTION);
  if (!session)
    throw new HedgehopError('NOT_FOUND', `demo: navigation found nothing for "${STORY_QUESTION}"`);
  const navigate = {
    query: STORY_QUESTION,
    found: {
      nodeId: session.node.id,
      lineId: session.node.lineId,
      position: session.node.position,
      taskLabel: session.node.taskLabel,
    },
    confidence: session.confidence,
    candidates: session.candidates.slice(0, 5).map((c) => ({
      lineId: c.node.lineId,
      position: c.node.position,
      taskLabel: c.node.taskLabel,
      confidence: c.confidence,
    })),
  };
  const drill = await drillDown(session);
  const restored = await restore(session);
  const recall: RecallResult = await agent.recall(STORY_RECALL.query, {
    budgetTokens: STORY_RECALL.budgetTokens,
  });
  return { origin, navigate, drill, restore: restored, recall };
}

// ---- human output ------------------------------------------------------------------------------

type Shown = Awaited<ReturnType<typeof showStory>>;

function block(text: string, maxLines: number): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, maxLines).map((line) => `    ${line}`);
  if (lines.length > maxLines) shown.push(`    … (${lines.length - maxLines} more lines)`);
  return shown;
}

/** The part of a session's context that belongs to its level (without the shared header). */
function levelBody(context: string, levelName: string): string {
  const lines = context.split('\n');
  const start = lines.indexOf(viewHeading(levelName));
  if (start < 0) return context;
  const rest = lines.slice(start + 1);
  // The full level is several sections (files, todos, the verbatim context): all of them, up to
  // the neighbours the view lists after the node.
  const endsLevel =
    levelName === 'full'
      ? (line: string): boolean => line === viewHeading(VIEW_SECTIONS.earlier) || line.startsWith('=== ')
      : (line: string): boolean => line.startsWith('--- ') || line.startsWith('=== ');
  const end = rest.findIndex(endsLevel);
  return (end < 0 ? rest : rest.slice(0, end)).join('\n').trimEnd();
}

function dreamLines(dreamt: Dreamt): string[] {
  const { scenes, links } = dreamt.engram;
  return [
    ...describeDream(dreamt.report)
      .split('\n')
      .map((line) => `  ${line}`),
    `  engram: ${scenes.length} scenes, ${links.length} links`,
    ...scenes.map((s) => `    scene "${s.name}" (${s.keywords} keywords)`),
    ...links.map((l) => `    "${l.a}" — "${l.b}" (similarity ${l.weight.toFixed(2)})`),
  ];
}

function render(ctx: CommandContext, path: string, built: Built, dreamt: Dreamt, shown: Shown): string {
  const h = (text: string): string => ctx.paint(['bold', 'cyan'], text);
  const ok = (text: string): string => ctx.paint('green', text);
  const { navigate, restore: r, recall } = shown;
  return [
    ctx.paint(
      'bold',
      `hedgehop demo — a memory built from a sample story (${STORY_PROJECT}, a team scheduling app)`,
    ),
    `  file: ${path}`,
    `  ${built.lines} lines, ${built.tasks} tasks; ${built.turns} conversation turns with ${built.events} tool events and ${built.planSteps} plan steps; a knowledge graph of ${built.knowledgeNodes} nodes and ${built.knowledgeEdges} edges (built in ${built.ms} ms)`,
    '',
    h('1. The origin — always in context, within its token budget'),
    ...block(shown.origin, 30),
    '',
    h(`2. Navigate: "${navigate.query}"`),
    `  found ${navigate.found.lineId} #${navigate.found.position} "${navigate.found.taskLabel}" — confidence ${navigate.confidence.toFixed(2)}`,
    '  candidates:',
    ...navigate.candidates.map(
      (c) => `    ${c.confidence.toFixed(2)}  ${c.lineId} #${c.position}  ${clip(c.taskLabel, 60)}`,
    ),
    '',
    h('3. Drill down, level by level'),
    ...shown.drill.flatMap((d) => {
      const body = levelBody(d.context, d.levelName);
      return [`  [${d.level} ${d.levelName}] ${body.length} characters`, ...block(body, 8)];
    }),
    '',
    h('4. Verbatim restore of the full state'),
    `  restored:  ${r.bytes} bytes, sha256 ${r.sha256.slice(0, 16)}…`,
    `  committed: ${r.committedBytes} bytes, sha256 ${r.committedSha256.slice(0, 16)}…`,
    `  ${r.identical ? ok('byte-identical ✓') : ctx.paint('red', 'DIFFERENT ✗')}`,
    '',
    h(`5. Recall within a token budget: "${STORY_RECALL.query}" (${STORY_RECALL.budgetTokens} tokens)`),
    ...recall.hits
      .slice(0, 6)
      .map(
        (hit) =>
          `    ${hit.score.toFixed(2)}  words ${hit.confidence.toFixed(2)}  ${hit.layer.padEnd(9)} ${clip(hit.preview, 72)}`,
      ),
    `  context: ${recall.usedTokens}/${recall.budgetTokens} tokens`,
    ...block(recall.context, 14),
    '',
    h('6. Dream — one pass after the story: profile estimate and engram, outside any turn'),
    ...dreamLines(dreamt),
    '',
    h('Explore this memory further'),
    ...nextSteps(path).map((line) => `  ${line}`),
  ].join('\n');
}

// ---- the command ---------------------------------------------------------------------------------

/** The file the demo writes: `--file` if given (it must not exist yet), else a new temporary one. */
function demoPath(command: Command): string {
  const given = command.optsWithGlobals<GlobalOptions>().file;
  if (given === undefined) return join(mkdtempSync(join(tmpdir(), 'hedgehop-demo-')), 'tern.db');
  const path = resolve(given);
  if (existsSync(path)) {
    throw new HedgehopError(
      'CONFLICT',
      `demo: ${path} exists; the demo writes a new memory (give a new --file, or none)`,
    );
  }
  return path;
}

/** `demo`. */
export function registerDemo(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('demo')
    .description(
      'build a memory from a built-in sample story and show what hedgehop does (no network, a few seconds)',
    )
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const path = demoPath(command);
        const db = await openMemory(path, { profile: STORY_PROFILE });
        try {
          const built = await buildStory(db);
          const dreamt = await dreamStory(db);
          const shown = await showStory(db);
          ctx.output({ file: path, built, dream: dreamt, ...shown, next: nextSteps(path) }, () =>
            render(ctx, path, built, dreamt, shown),
          );
        } finally {
          await db.close();
        }
      }),
    );
}
