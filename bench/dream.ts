/**
 * The Dream benchmark.
 *
 * 1. Turn latency with and without a concurrent Dream, in one process (where a background pass
 *    runs): blocks of full turns (search, one append, update) alone, then the same number while
 *    Dream passes run back to back over a memory of crowded scenes (each pass is undone right
 *    after, so every pass does the full work again: fusing every crowded scene, the engram, the
 *    profile). Blocks alternate so that machine noise hits both alike. Reported: p50 and p99 of
 *    both and their ratios, plus how long each pass held the write lock (its one apply
 *    transaction). A second variant uses a summariser whose grouping and profile calls take
 *    50 ms, as a remote model would: turns must not wait for those calls.
 * 2. One Dream pass over one scene of 25 … 200 topics (offline summariser): pass time, apply
 *    time and summariser calls, against one full turn in the same file (ratio).
 */
import { join } from 'node:path';
import { openMemory } from '../src/api/memory-db.js';
import type { Agent } from '../src/api/agent.js';
import type { DreamReport } from '../src/core/model/dream.js';
import { OfflineSummarizer } from '../src/llm/offline-summarizer.js';
import type { Summarizer } from '../src/llm/types.js';
import {
  median,
  percentile,
  seededRandom,
  tempDir,
  timeEach,
  type BenchModule,
  type BenchRow,
} from './harness.js';

const SUBJECTS = [
  'billing service deploy canary rollback',
  'vault secret rotation jwt signing key',
  'postgres replica lag failover',
  'quarterly budget report finance totals',
  'warehouse inventory forecast shipping',
  'pager alert noise on-call rotation',
  'customer refund ticket invoice correction',
  'schema migration orders table index',
  'frontend bundle size lazy routes',
  'kubernetes node pool autoscaler limits',
];
const FILLER = 'checked looked fixed noted asked answered reviewed tested'.split(' ');

let clock = 1_700_000_000_000;
const tick = (): number => (clock += 60_000);

function utterance(random: () => number, subject: string, i: number): { input: string; output: string } {
  const word = (): string => FILLER[Math.floor(random() * FILLER.length)] as string;
  return {
    input: `Question ${i} on the ${subject}: what was ${word()} last time?`,
    output: `We ${word()} the ${subject}; it was ${word()} and ${word()} again.`,
  };
}

/** One full turn in `sceneId` (or a new scene). */
async function turn(
  agent: Agent,
  random: () => number,
  sceneId: string | undefined,
  i: number,
): Promise<string> {
  const opened = await agent.search(sceneId === undefined ? { newScene: true } : { sceneId });
  const subject = SUBJECTS[Math.floor(i / 3) % SUBJECTS.length] as string;
  await agent.appendArchive({
    kind: 'event',
    eventType: 'tool_call',
    content: `{"tool":"grep","q":"${subject}"}`,
    createdAt: tick(),
  });
  await agent.update({ ...utterance(random, subject, i), createdAt: tick() });
  return opened.scene.id;
}

/** A scene of `topics` turns, threads of three turns on one subject. */
async function crowdedScene(
  agent: Agent,
  random: () => number,
  topics: number,
  offset: number,
): Promise<string> {
  let sceneId: string | undefined;
  for (let i = 0; i < topics; i++) sceneId = await turn(agent, random, sceneId, i + offset * 3);
  return sceneId as string;
}

/** Runs Dream passes back to back (each undone after) until `stop()`; returns the reports. */
function dreamLoop(agent: Agent): { stop: () => Promise<DreamReport[]> } {
  const reports: DreamReport[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const report = await agent.dream();
      reports.push(report);
      if (report.stages.some((s) => Object.values(s.changed).some((n) => n > 0)))
        await agent.undoDream(report.id);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return reports;
    },
  };
}

/** A summariser whose Dream calls (grouping, profile) take `delayMs`, like a remote model. */
function slowDreamCalls(delayMs: number): Summarizer {
  const offline = new OfflineSummarizer();
  const later = <T>(value: Promise<T>): Promise<T> =>
    new Promise((resolve, reject) => setTimeout(() => value.then(resolve, reject), delayMs));
  return {
    specificationVersion: 'v1',
    id: 'offline',
    summarize: (text, max, context) => offline.summarize(text, max, context),
    verifyMatch: (query, summary) => offline.verifyMatch(query, summary),
    distillKeywords: (utterances) => offline.distillKeywords(utterances),
    groupTopics: (topics, options) => later(offline.groupTopics(topics, options)),
    distillProfile: (samples) => later(offline.distillProfile(samples)),
  };
}

interface LatencyResult {
  readonly alone: number[];
  readonly concurrent: number[];
  readonly passes: DreamReport[];
}

async function turnLatency(
  path: string,
  summarizer: Summarizer,
  options: { scenes: number; rounds: number; block: number; durability: 'full' | 'normal' },
  log: (line: string) => void,
): Promise<LatencyResult> {
  const db = await openMemory(path, { durability: options.durability, summarizer, dream: { auto: false } });
  const agent = db.primary();
  const random = seededRandom(7);
  try {
    for (let s = 0; s < options.scenes; s++) await crowdedScene(agent, random, 27, s);
    log(`dream: ${options.scenes} scenes of 27 topics written`);
    let sceneId: string | undefined;
    let n = 0;
    const measured = async (): Promise<number[]> =>
      timeEach(options.block, async () => {
        if (n % 12 === 0) sceneId = undefined; // fresh scenes: the turns' own scene never crowds
        sceneId = await turn(agent, random, sceneId, n++);
      });
    await measured(); // warm-up
    const alone: number[] = [];
    const concurrent: number[] = [];
    const passes: DreamReport[] = [];
    for (let round = 0; round < options.rounds; round++) {
      alone.push(...(await measured()));
      const loop = dreamLoop(agent);
      await new Promise((resolve) => setTimeout(resolve, 5));
      concurrent.push(...(await measured()));
      passes.push(...(await loop.stop()));
    }
    return { alone, concurrent, passes };
  } finally {
    await db.close();
  }
}

function latencyRows(name: string, result: LatencyResult): BenchRow[] {
  const { alone, concurrent, passes } = result;
  const applies = passes.map((p) => p.applyMs);
  const durations = passes.map((p) => p.durationMs);
  return [
    {
      bench: 'dream',
      case: `turn latency, ${name}`,
      metric: 'p50',
      value: median(concurrent),
      unit: 'ms',
      baseline: median(alone),
      ratio: median(concurrent) / median(alone),
      note: 'baseline: the same turns with no Dream running',
    },
    {
      bench: 'dream',
      case: `turn latency, ${name}`,
      metric: 'p99',
      value: percentile(concurrent, 99),
      unit: 'ms',
      baseline: percentile(alone, 99),
      ratio: percentile(concurrent, 99) / percentile(alone, 99),
    },
    {
      bench: 'dream',
      case: `concurrent passes, ${name}`,
      metric: 'pass p50',
      value: median(durations),
      unit: 'ms',
      note: `${passes.length} passes`,
    },
    {
      bench: 'dream',
      case: `concurrent passes, ${name}`,
      metric: 'apply transaction p50 / max',
      value: median(applies),
      unit: 'ms',
      note: `max ${Math.max(...applies).toFixed(2)} ms`,
    },
  ];
}

async function passCost(
  dir: string,
  sizes: readonly number[],
  repeats: number,
  log: (line: string) => void,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const size of sizes) {
    const db = await openMemory(join(dir, `scene-${size}.db`), {
      durability: 'full',
      summarizer: new OfflineSummarizer(),
      dream: { auto: false },
    });
    const agent = db.primary();
    const random = seededRandom(size);
    try {
      const sceneId = await crowdedScene(agent, random, size, 0);
      let turnScene: string | undefined;
      const turns = await timeEach(15, async (i) => {
        turnScene = await turn(agent, random, turnScene, size + i);
      });
      const reports: DreamReport[] = [];
      for (let r = 0; r < repeats; r++) {
        const report = await agent.dream(sceneId);
        reports.push(report);
        await agent.undoDream(report.id);
      }
      const pass = median(reports.map((p) => p.durationMs));
      const fused = reports[0]?.stages.find((s) => s.name === 'compress')?.changed.fusedTopics ?? 0;
      log(
        `dream: pass over ${size} topics ${pass.toFixed(1)} ms, ${fused} fused topics; turn ${median(turns).toFixed(2)} ms`,
      );
      rows.push(
        {
          bench: 'dream',
          case: `one pass, scene of ${size} topics (offline)`,
          metric: 'median',
          value: pass,
          unit: 'ms',
          baseline: median(turns),
          ratio: pass / median(turns),
          note: `baseline: one full turn; ${fused} fused topics, ${reports[0]?.modelCalls ?? 0} summariser calls`,
        },
        {
          bench: 'dream',
          case: `one pass, scene of ${size} topics (offline)`,
          metric: 'apply transaction',
          value: median(reports.map((p) => p.applyMs)),
          unit: 'ms',
        },
      );
    } finally {
      await db.close();
    }
  }
  return rows;
}

/** Turn latency with and without a concurrent Dream, and the cost of one pass by scene size. */
export const runDream: BenchModule = async (options) => {
  const { dir, cleanup } = tempDir('hedgehop-bench-dream-');
  const shape = options.quick ? { scenes: 4, rounds: 2, block: 20 } : { scenes: 12, rounds: 5, block: 40 };
  try {
    const full = { ...shape, durability: 'full' as const };
    const offline = await turnLatency(join(dir, 'offline.db'), new OfflineSummarizer(), full, options.log);
    const normal = { ...shape, durability: 'normal' as const };
    const offlineNormal = await turnLatency(
      join(dir, 'normal.db'),
      new OfflineSummarizer(),
      normal,
      options.log,
    );
    const slow = await turnLatency(join(dir, 'slow.db'), slowDreamCalls(50), full, options.log);
    const sizes = options.quick ? [25, 50] : [25, 50, 100, 200];
    const cost = await passCost(dir, sizes, options.quick ? 2 : 3, options.log);
    return {
      name: 'dream',
      rows: [
        ...latencyRows('Dream passes back to back (offline summariser)', offline),
        ...latencyRows('Dream passes back to back (offline summariser, durability normal)', offlineNormal),
        ...latencyRows('Dream passes back to back (50 ms model calls)', slow),
        ...cost,
      ],
      notes: [
        `${shape.scenes} crowded scenes of 27 topics; ${shape.rounds} rounds of ${shape.block} turns alone and ${shape.block} with Dream running; durability full unless noted.`,
      ],
    };
  } finally {
    cleanup();
  }
};
