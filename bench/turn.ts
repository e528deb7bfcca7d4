/**
 * The turn-loop benchmark: one full turn (search, three appends, two plan writes, update with
 * the offline keyword distiller) at `durability: 'full'`, against the same number of commits (7)
 * as raw better-sqlite3 inserts at the same durability, interleaved in one process. Measured at
 * 100, 1,000, 10,000 and 100,000 stored turns (quick: 100 and 2,000) to show the cost stays flat.
 *
 * Stored turns are spread over scenes of 20 turns: a scene's surface is what `search` returns,
 * and Dream keeps it bounded (24 topics by default), so a single ever-growing scene is not a
 * realistic memory.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openMemory } from '../src/api/memory-db.js';
import type { Durability } from '../src/store/engine.js';
import type { Agent } from '../src/api/agent.js';
import { OfflineSummarizer } from '../src/llm/offline-summarizer.js';
import {
  compareInterleaved,
  median,
  percentile,
  seededRandom,
  tempDir,
  type BenchModule,
  type BenchRow,
} from './harness.js';

const TURNS_PER_SCENE = 20;
/** Commits one full turn makes: search, 3 appends, 2 plan writes, update. */
const COMMITS_PER_TURN = 7;

const WORDS = (
  'deploy billing service cache invalidation token refresh vault secret rotate schema migration ' +
  'postgres replica lag alert pager on-call incident review rollback canary metrics latency ' +
  'budget quarterly report invoice customer ticket refund shipping warehouse inventory forecast'
).split(' ');

function sentence(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)] as string).join(' ');
}

/** One full turn through the public API. */
export async function fullTurn(
  agent: Agent,
  random: () => number,
  index: number,
  time: number,
): Promise<void> {
  await agent.search(index % TURNS_PER_SCENE === 0 ? { newScene: true } : {});
  const step = await agent.planNodeAdd(0, `step ${index}`);
  await agent.appendArchive({
    kind: 'event',
    eventType: 'tool_call',
    planStep: step.seq,
    content: sentence(random, 12),
    createdAt: time,
  });
  await agent.appendArchive({
    kind: 'event',
    eventType: 'tool_result',
    planStep: step.seq,
    content: sentence(random, 30),
    createdAt: time,
  });
  await agent.appendArchive({
    kind: 'utterance',
    role: 'system',
    content: sentence(random, 20),
    createdAt: time,
  });
  await agent.planNodeUpdate({ seq: step.seq, status: 'done', summary: sentence(random, 6) });
  await agent.update({
    input: sentence(random, 18),
    output: sentence(random, 40),
    outcome: 'resolved',
    createdAt: time,
  });
}

/** The baseline: 7 single-row autocommit inserts (one per commit a turn makes), same durability. */
function rawInserter(
  path: string,
  durability: Durability,
): { insert: (random: () => number, time: number) => void; close: () => void } {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
  db.exec(
    'CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, topic TEXT NOT NULL, seq INTEGER NOT NULL, content TEXT NOT NULL, created_at INTEGER NOT NULL)',
  );
  const statement = db.prepare('INSERT INTO rows (topic, seq, content, created_at) VALUES (?, ?, ?, ?)');
  let n = 0;
  return {
    insert(random, time) {
      n++;
      for (let i = 0; i < COMMITS_PER_TURN; i++) statement.run(`t${n}`, i + 1, sentence(random, 20), time);
    },
    close: () => db.close(),
  };
}

async function fill(path: string, from: number, to: number, log: (line: string) => void): Promise<void> {
  // Filling uses 'normal' durability (no fsync per commit) to save time; measuring uses both.
  const db = await openMemory(path, { durability: 'normal', summarizer: new OfflineSummarizer() });
  const agent = db.primary();
  const random = seededRandom(from + 1);
  const started = Date.now();
  for (let i = from; i < to; i++) {
    await fullTurn(agent, random, i, 1_700_000_000_000 + i * 60_000);
    if ((i + 1) % 10_000 === 0)
      log(`  filled ${i + 1} turns (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  await db.close();
}

interface Measured {
  readonly subject: number[];
  readonly baseline: number[];
  readonly ratio: number;
  /** CPU milliseconds (user + system) of each measured turn. */
  readonly cpu: number[];
}

/** Opens the file at `durability` and times `iterations` full turns interleaved with the baseline. */
async function measure(
  path: string,
  baselinePath: string,
  durability: Durability,
  stored: number,
  iterations: number,
): Promise<Measured> {
  const db = await openMemory(path, { durability, summarizer: new OfflineSummarizer() });
  const agent = db.primary();
  const random = seededRandom(stored);
  const raw = rawInserter(baselinePath, durability);
  try {
    // Warm both paths (statement caches, page cache) before timing.
    for (let i = 0; i < 5; i++) {
      await fullTurn(agent, random, stored + i, 1_800_000_000_000 + i);
      raw.insert(random, i);
    }
    // CPU time of the subject alone: on a shared machine, wall time also holds the wait for a core.
    const cpu: number[] = [];
    const result = await compareInterleaved(
      iterations,
      async (i) => {
        const before = process.cpuUsage();
        await fullTurn(agent, random, stored + 5 + i, 1_800_000_000_000 + 5 + i);
        const used = process.cpuUsage(before);
        cpu.push((used.user + used.system) / 1000);
      },
      (i) => raw.insert(random, i),
    );
    return { ...result, cpu };
  } finally {
    raw.close();
    await db.close();
  }
}

function rowsOf(durability: Durability, size: number, result: Measured): BenchRow[] {
  const name = `full turn @ ${size} turns, durability ${durability}`;
  return [
    {
      bench: 'turn',
      case: name,
      metric: 'median',
      value: median(result.subject),
      unit: 'ms',
      baseline: median(result.baseline),
      ratio: result.ratio,
    },
    {
      bench: 'turn',
      case: name,
      metric: 'p99',
      value: percentile(result.subject, 99),
      unit: 'ms',
      baseline: percentile(result.baseline, 99),
      ratio: percentile(result.subject, 99) / percentile(result.baseline, 99),
    },
    { bench: 'turn', case: name, metric: 'cpu median', value: median(result.cpu), unit: 'ms' },
  ];
}

function flatness(durability: Durability, points: readonly [number, number][]): BenchRow {
  const first = points[0];
  const last = points[points.length - 1];
  return {
    bench: 'turn',
    case: `flatness ${first?.[0]} → ${last?.[0]} turns, durability ${durability}`,
    metric: 'median ratio',
    value: (last?.[1] ?? Number.NaN) / (first?.[1] ?? Number.NaN),
    unit: '×',
    note: 'target ≤ 1.5',
  };
}

/** Benchmark of one full turn, flat from 100 to 100,000 stored turns. */
export const runTurn: BenchModule = async (options) => {
  const sizes = options.quick ? [100, 2_000] : [100, 1_000, 10_000, 100_000];
  const iterations = options.quick ? 40 : 200;
  const { dir, cleanup } = tempDir('hedgehop-bench-turn-');
  const rows: BenchRow[] = [];
  const points: Record<Durability, [number, number][]> = { full: [], normal: [] };
  const ratios: Record<Durability, [number, number][]> = { full: [], normal: [] };
  const cpuPoints: [number, number][] = [];
  try {
    const path = join(dir, 'memory.db');
    let stored = 0;
    for (const size of sizes) {
      options.log(`turn: filling to ${size} stored turns`);
      await fill(path, stored, size, options.log);
      stored = size;
      for (const durability of ['full', 'normal'] as const) {
        const result = await measure(path, join(dir, `raw-${durability}.db`), durability, stored, iterations);
        stored += iterations + 5;
        const value = median(result.subject);
        options.log(
          `turn @ ${size} (${durability}): ${value.toFixed(3)} ms (cpu ${median(result.cpu).toFixed(3)} ms); raw ${COMMITS_PER_TURN} inserts ${median(result.baseline).toFixed(3)} ms; ×${result.ratio.toFixed(2)}`,
        );
        points[durability].push([size, value]);
        if (durability === 'normal') cpuPoints.push([size, median(result.cpu)]);
        ratios[durability].push([size, result.ratio]);
        rows.push(...rowsOf(durability, size, result));
      }
    }
    rows.push(flatness('full', points.full), flatness('normal', points.normal));
    rows.push({
      ...flatness('normal', cpuPoints),
      case: `cpu flatness ${sizes[0]} → ${sizes[sizes.length - 1]} turns`,
    });
    return {
      name: 'turn',
      rows,
      notes: [
        `one full turn = search + 3 appends + 2 plan writes + update (offline distiller) = ${COMMITS_PER_TURN} commits; baseline = ${COMMITS_PER_TURN} autocommit better-sqlite3 inserts into a plain table at the same synchronous level, interleaved`,
        `stored turns spread over scenes of ${TURNS_PER_SCENE} turns`,
      ],
      series: [
        { name: 'full turn median (full)', unit: 'ms', points: points.full },
        { name: 'full turn median (normal)', unit: 'ms', points: points.normal },
        { name: 'ratio to raw inserts (full)', unit: '×', points: ratios.full },
        { name: 'ratio to raw inserts (normal)', unit: '×', points: ratios.normal },
      ],
    };
  } finally {
    cleanup();
  }
};
