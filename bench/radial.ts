/**
 * Radial memory benchmark (issue 3):
 * - `completeTask` cost at a small and a large store (target: large within 1.5× of small) and
 *   against a raw better-sqlite3 insert of the same bytes at the same durability (target: 3×),
 *   all measured interleaved in one run, with the offline summariser;
 * - the origin's token count at 3 and 300 lines (and what HedgehogMemory's origin would take);
 * - `navigate` latency p50/p99 on the large store, against the recall index's own search and a
 *   bare FTS5 MATCH over the same rows.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemory, type MemoryDB } from '../src/index.js';
import type { CompleteTaskInput } from '../src/api/radial-memory.js';
import { countTokens } from '../src/core/tokens.js';
import { truncateText } from '../src/core/text.js';
import { searchIndex } from '../src/recall/search.js';
import { matchExpression, queryTerms } from '../src/recall/query.js';
import { OfflineSummarizer } from '../src/llm/offline-summarizer.js';
import {
  compareInterleaved,
  median,
  pairedRatio,
  percentile,
  seededRandom,
  tempDir,
  timeEach,
  type BenchModule,
  type BenchRow,
  ENGINEERING_WORDS,
} from './harness.js';

const WORDS = ENGINEERING_WORDS;
const VERBS = [
  'Implement',
  'Refactor',
  'Fix',
  'Add',
  'Remove',
  'Optimise',
  'Document',
  'Test',
  'Migrate',
  'Harden',
];
const SYLLABLES =
  'ka lo mi ter ran sel vo dun pri ex ost ul bra fen gor hil jas kem nup qua rix sto tav wen yol zer'.split(
    ' ',
  );

/**
 * The vocabulary: the engineering words above, then 6,000 made-up project words (identifiers,
 * names). Words are drawn with a Zipf-like skew, so, as in real notes, a few words are
 * everywhere and most are rare.
 */
const VOCABULARY: readonly string[] = (() => {
  const rng = seededRandom(42);
  const made = new Set<string>();
  while (made.size < 6_000) {
    const parts = 2 + Math.floor(rng() * 2);
    made.add(Array.from({ length: parts }, () => SYLLABLES[Math.floor(rng() * SYLLABLES.length)]).join(''));
  }
  return [...WORDS, ...made];
})();

type Rng = () => number;
export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const word = (rng: Rng): string => VOCABULARY[Math.floor(Math.pow(rng(), 2.2) * VOCABULARY.length)] as string;

function sentence(rng: Rng): string {
  const length = 8 + Math.floor(rng() * 11);
  const text = Array.from({ length }, () => word(rng)).join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function prose(rng: Rng, minChars: number, maxChars: number): string {
  const target = minChars + Math.floor(rng() * (maxChars - minChars));
  let out = '';
  while (out.length < target) out += (out.length > 0 ? (rng() < 0.2 ? '\n' : ' ') : '') + sentence(rng);
  return out;
}

/** A deterministic synthetic task like the spec's workload (1–2 KB context, ~450-char summary). */
export function syntheticTask(seed: number, lineId: string): CompleteTaskInput {
  const rng = seededRandom(seed);
  const files = Array.from({ length: 1 + Math.floor(rng() * 4) }, () => ({
    path: `src/${word(rng)}/${word(rng)}.ts`,
    changeType: pick(rng, ['modified', 'created', 'deleted']),
    diffSummary: `${word(rng)} ${word(rng)}`,
  }));
  return {
    lineId,
    taskLabel: `${pick(rng, VERBS)} ${word(rng)} ${word(rng)} (#${seed})`,
    fullContext: prose(rng, 1000, 2000),
    conversationSummary: prose(rng, 400, 500),
    fileChanges: files,
    todos: Array.from({ length: Math.floor(rng() * 4) }, () => sentence(rng)),
    envSnapshot: { node: '20.20', region: pick(rng, ['eu-west-1', 'us-east-1']) },
  };
}

/** Summaries of the right sizes without running a summariser (used only to seed large stores fast). */
export function cheapSummaries(task: CompleteTaskInput): NonNullable<CompleteTaskInput['summaries']> {
  const text = `${task.taskLabel}. ${task.conversationSummary} ${task.fullContext}`;
  return {
    origin: truncateText(task.taskLabel, 80),
    brief: truncateText(text.replace(/\s+/gu, ' '), 200),
    summary: truncateText(text, 600),
    detailed: truncateText(text, 1800),
  };
}

export const LINES = 10;

export async function seed(db: MemoryDB, nodes: number, log: (line: string) => void): Promise<void> {
  const radial = db.primary().radial;
  for (let l = 0; l < LINES; l++) await radial.createLine(`line${l}`, `Line ${l}`, `Task domain ${l}`);
  const started = Date.now();
  for (let i = 0; i < nodes; i++) {
    const task = syntheticTask(i, `line${i % LINES}`);
    await radial.completeTask({ ...task, summaries: cheapSummaries(task) });
    if (i > 0 && i % 10_000 === 0)
      log(`  seeded ${i}/${nodes} nodes (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}

/**
 * Stores seeded with at most this many nodes are measured on a fresh copy of their seed in every
 * run, so that "@100" means 100 nodes however often a kept folder is reused (each run commits
 * some 630 nodes); a larger seed is measured in place, where that growth is a small fraction.
 */
const FRESH_COPY_UP_TO_NODES = 10_000;

async function seededStore(
  dir: string,
  name: string,
  nodes: number,
  log: (line: string) => void,
): Promise<string> {
  const path = join(dir, `${name}.db`);
  if (existsSync(path)) {
    log(`  reusing ${path} (seeded by an earlier run)`);
  } else {
    const db = await openMemory(path, { durability: 'normal' });
    await seed(db, nodes, log);
    await db.close();
  }
  if (nodes > FRESH_COPY_UP_TO_NODES) return path;
  const copy = join(dir, `${name}-run.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  const seeded = new Database(path, { readonly: true });
  try {
    await seeded.backup(copy);
  } finally {
    seeded.close();
  }
  return copy;
}

/** The raw floor: one INSERT of the same bytes per transaction, WAL, synchronous=FULL. */
function rawStore(path: string): (task: CompleteTaskInput, id: string, summaries: readonly string[]) => void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS raw (id TEXT PRIMARY KEY, line TEXT, label TEXT, created INTEGER, summary TEXT,
    files TEXT, todos TEXT, env TEXT, s0 TEXT, s1 TEXT, s2 TEXT, s3 TEXT, full TEXT) STRICT`);
  const insert = db.prepare('INSERT INTO raw VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  return (task, id, summaries) => {
    insert.run(
      id,
      task.lineId,
      task.taskLabel,
      Date.now(),
      task.conversationSummary,
      JSON.stringify(task.fileChanges ?? []),
      JSON.stringify(task.todos ?? []),
      JSON.stringify(task.envSnapshot ?? {}),
      ...summaries,
      task.fullContext,
    );
  };
}

/** HedgehogMemory's origin text for the same lines (spec §10), to show how it grows. */
function hedgehogOrigin(
  project: string,
  lines: { id: string; name: string; l0: string; count: number }[],
): string {
  const entries = lines.map((l) => `  ${l.id}: [${l.name}] ${l.l0}  (共${l.count}个节点, 最新:2026-11-30)`);
  return [`【原点】项目: ${project}`, `任务线总览 (${lines.length} 条):`, ...entries].join('\n');
}

/** HedgehogMemory's L0: first and last 37 characters of summary + files + todos. */
function hedgehogL0(task: CompleteTaskInput): string {
  const raw = [task.conversationSummary, ...(task.todos ?? [])].join('\n\n');
  return raw.length <= 80 ? raw : `${raw.slice(0, 37)} … ${raw.slice(-37)}`;
}

async function originFigures(dir: string): Promise<BenchRow[]> {
  const db = await openMemory(join(dir, 'origin.db'), { durability: 'normal' });
  const radial = db.primary().radial;
  const rows: BenchRow[] = [];
  const hedgehogLines: { id: string; name: string; l0: string; count: number }[] = [];
  for (let l = 0; l < 300; l++) {
    const id = `domain-${l}`;
    await radial.createLine(id, `Task domain number ${l}`, 'A long-lived area of work');
    const task = syntheticTask(1_000_000 + l, id);
    await radial.completeTask(task);
    hedgehogLines.push({ id, name: `Task domain number ${l}`, l0: hedgehogL0(task), count: 1 });
    if (l + 1 === 3 || l + 1 === 10 || l + 1 === 300) {
      const ours = countTokens(await radial.getOriginContext());
      const theirs = countTokens(hedgehogOrigin('Project', hedgehogLines));
      rows.push({
        bench: 'radial',
        case: `origin, ${l + 1} lines`,
        metric: 'tokens (o200k)',
        value: ours,
        unit: 'tokens',
        baseline: theirs,
        ratio: ours / theirs,
        note: 'baseline: HedgehogMemory’s origin text for the same lines; budget 200',
      });
    }
  }
  await db.close();
  return rows;
}

function describe(row: BenchRow): string {
  const ratio =
    row.ratio === undefined ? '' : ` (${row.ratio.toFixed(2)}× ${row.baseline?.toFixed(2)} ${row.unit})`;
  return `${row.case} ${row.metric}: ${row.value.toFixed(2)} ${row.unit}${ratio}`;
}

function stats(samples: readonly number[]): { p50: number; p99: number } {
  return { p50: median(samples), p99: percentile(samples, 99) };
}

/**
 * Summariser calls made before measuring. V8 compiles the summariser's hot functions only after
 * some 30–120 calls and its time per call settles after ~150 (docs/benchmarks.md, session 11):
 * a long-running agent sees the settled figure, so that is the one measured.
 */
const WARM_UP_SUMMARIES = 250;
/** Commits per store before measuring (statement caches, page cache). */
const WARM_UP_COMMITS = 30;

/**
 * A warning when the raw insert's time was mostly waiting for its fsync behind other processes'
 * writes (its median several times its fastest calls): then every commit, whatever its own work,
 * waits about as long, and the ratios to the raw insert shrink toward 1 and say little.
 */
function fsyncBoundNote(raw: readonly number[]): string | undefined {
  const typical = median(raw);
  const fastest = percentile(raw, 5);
  if (typical <= 3 * fastest) return undefined;
  return (
    `the raw insert's median (${typical.toFixed(2)} ms) is ${(typical / fastest).toFixed(1)}× its fastest 5 % ` +
    `(${fastest.toFixed(2)} ms): fsync waited on other writers, so the ratios to it understate completeTask's own cost`
  );
}

/**
 * Runs {@link WARM_UP_SUMMARIES} commits through `summarizer` on a scratch store (durability
 * normal, removed afterwards), so that the measured commits meet the summariser's optimised code.
 */
async function warmUp(
  summarizer: OfflineSummarizer,
  taskAt: (i: number) => CompleteTaskInput,
): Promise<void> {
  const { dir, cleanup } = tempDir('hedgehop-bench-radial-warm-');
  try {
    const db = await openMemory(join(dir, 'warm.db'), { durability: 'normal', summarizer });
    const radial = db.primary().radial;
    for (let l = 0; l < LINES; l++) await radial.createLine(`line${l}`, `Line ${l}`, `Task domain ${l}`);
    for (let i = 0; i < WARM_UP_SUMMARIES; i++) await radial.completeTask(taskAt(-1_000 - i));
    await db.close();
  } finally {
    cleanup();
  }
}

/**
 * Where the stores live: a fresh temporary folder, or `HEDGEHOP_BENCH_RADIAL_DIR`, kept
 * afterwards so that a later run reuses its seeded stores (seeding 100,000 nodes takes minutes).
 */
function benchDir(): { dir: string; cleanup: () => void } {
  const chosen = process.env.HEDGEHOP_BENCH_RADIAL_DIR;
  if (chosen === undefined || chosen === '') return tempDir('hedgehop-bench-radial-');
  mkdirSync(chosen, { recursive: true });
  return { dir: chosen, cleanup: () => undefined };
}

/** Rounds of the first-read figures (a commit, then navigations). */
const DEFERRED_ROUNDS = 60;

/** One turn of the event loop: the index catch-up a commit scheduled runs in it. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The first read right after a commit, before the event loop turned (the committing handle's
 * read writes the commit's index rows first, as its scheduled catch-up has not run yet), against
 * the same navigation again with nothing pending: in rounds on the small store, a commit (not
 * timed), the two navigations asking for words of the task just committed.
 */
async function firstReadFigures(
  db: MemoryDB,
  smallNodes: number,
  taskAt: (i: number) => CompleteTaskInput,
  log: (line: string) => void,
): Promise<BenchRow[]> {
  const radial = db.primary().radial;
  const first: number[] = [];
  const settled: number[] = [];
  for (let i = 0; i < DEFERRED_ROUNDS; i++) {
    const task = taskAt(20_000 + i);
    await radial.completeTask(task);
    const rng = seededRandom(30_000 + i);
    const words = task.fullContext.toLowerCase().match(/[a-z]{4,}/gu) ?? ['cache'];
    const question = `how did we handle the ${pick(rng, words)} ${pick(rng, words)}?`;
    const [a] = await timeEach(1, () => radial.navigate(question));
    const [b] = await timeEach(1, () => radial.navigate(question));
    first.push(a ?? 0);
    settled.push(b ?? 0);
    await nextTurn();
  }
  const out: BenchRow[] = [
    {
      bench: 'radial',
      case: `navigate @${smallNodes}, right after a commit`,
      metric: 'median',
      value: median(first),
      unit: 'ms',
      baseline: median(settled),
      ratio: pairedRatio(first, settled),
      note: "before the event loop turned, so this read writes the commit's index rows first; baseline: the same navigation again, nothing pending",
    },
  ];
  for (const entry of out) log(`  ${describe(entry)}`);
  return out;
}

export const runRadial: BenchModule = async (options) => {
  const { log } = options;
  const largeNodes = options.quick ? 2_000 : 100_000;
  const smallNodes = 100;
  const iterations = 300;
  // `HEDGEHOP_BENCH_RADIAL=commit` measures completeTask only (no navigation, no origin).
  const commitOnly = process.env.HEDGEHOP_BENCH_RADIAL === 'commit';
  const run = Date.now().toString(36);
  const { dir, cleanup } = benchDir();
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  try {
    log(`radial: seeding ${smallNodes} and ${largeNodes} nodes (durability normal, precomputed summaries)`);
    const smallPath = await seededStore(dir, `small-${smallNodes}`, smallNodes, log);
    const largePath = await seededStore(dir, `large-${largeNodes}`, largeNodes, log);
    const summarizer = new OfflineSummarizer();
    const small = await openMemory(smallPath, { durability: 'full', summarizer });
    const large = await openMemory(largePath, { durability: 'full', summarizer });
    const raw = rawStore(join(dir, 'raw.db'));
    const taskAt = (i: number): CompleteTaskInput =>
      syntheticTask(5_000_000 + i, `line${((i % LINES) + LINES) % LINES}`);

    await warmUp(summarizer, taskAt);
    for (let i = 0; i < WARM_UP_COMMITS; i++) {
      await small.primary().radial.completeTask(taskAt(-1 - i));
      await large.primary().radial.completeTask(taskAt(-10 - i));
    }
    // Index rows still pending (the warm-up's, or those of an earlier run in a kept folder by a
    // build that did not move the mark) are written now, untimed.
    await small.store.catchUpIndex();
    await large.store.catchUpIndex();
    await nextTurn();

    // Each commit is paired with a raw insert of the same bytes right after it (the large
    // store's commit with its own), and the ratio is the median of the per-pair ratios.
    log(`radial: completeTask, ${iterations} interleaved rounds`);
    const smallSamples: number[] = [];
    const largeSamples: number[] = [];
    const rawSmall: number[] = [];
    const rawLarge: number[] = [];
    const storageSmall: number[] = [];
    const storageLarge: number[] = [];
    // The index catch-up each commit scheduled, timed apart right after it (the store writes
    // the node's recall-index rows once the event loop turns; here it is called, then the loop
    // turns untimed, so the raw insert timed next never absorbs it).
    const catchUpSmall: number[] = [];
    const catchUpLarge: number[] = [];
    const catchUpStorage: number[] = [];
    const catchUpOf = async (db: MemoryDB, into: number[]): Promise<void> => {
      const [c] = await timeEach(1, () => db.store.catchUpIndex());
      into.push(c ?? 0);
      await nextTurn();
    };
    for (let i = 0; i < iterations; i++) {
      const task = taskAt(i);
      let texts: string[] = [];
      const [a] = await timeEach(1, async () => {
        const node = await small.primary().radial.completeTask(task);
        texts = [
          node.summaries.origin,
          node.summaries.brief,
          node.summaries.summary,
          node.summaries.detailed,
        ];
      });
      await catchUpOf(small, catchUpSmall);
      const [ra] = await timeEach(1, () => raw(task, `raw-${run}-${i}-a`, texts));
      const [b] = await timeEach(1, () => large.primary().radial.completeTask({ ...task }));
      await catchUpOf(large, catchUpLarge);
      const [rb] = await timeEach(1, () => raw(task, `raw-${run}-${i}-b`, texts));
      const given = { ...task, summaries: cheapSummaries(task) };
      const [d] = await timeEach(1, () => small.primary().radial.completeTask(given));
      await catchUpOf(small, catchUpStorage);
      const [e] = await timeEach(1, () => large.primary().radial.completeTask(given));
      await catchUpOf(large, []);
      smallSamples.push(a ?? 0);
      rawSmall.push(ra ?? 0);
      largeSamples.push(b ?? 0);
      rawLarge.push(rb ?? 0);
      storageSmall.push(d ?? 0);
      storageLarge.push(e ?? 0);
    }
    const plus = (calls: readonly number[], catchUps: readonly number[]): number[] =>
      calls.map((value, i) => value + (catchUps[i] ?? 0));
    const s = stats(smallSamples);
    const l = stats(largeSamples);
    const r = stats([...rawSmall, ...rawLarge]);
    const ss = stats(storageSmall);
    const sl = stats(storageLarge);
    const row = (kase: string, value: number, baseline: number, ratio: number, note: string): BenchRow => ({
      bench: 'radial',
      case: kase,
      metric: 'median',
      value,
      unit: 'ms',
      baseline,
      ratio,
      note,
    });
    const commitRows: BenchRow[] = [
      row(
        `completeTask @${largeNodes} vs @${smallNodes} nodes`,
        l.p50,
        s.p50,
        pairedRatio(largeSamples, smallSamples),
        'target ≤ 1.5×; offline summariser',
      ),
      row(
        `completeTask @${smallNodes} vs raw insert`,
        s.p50,
        median(rawSmall),
        pairedRatio(smallSamples, rawSmall),
        'target ≤ 3×; same bytes, WAL + synchronous=FULL; median of per-pair ratios',
      ),
      row(
        `completeTask @${largeNodes} vs raw insert`,
        l.p50,
        median(rawLarge),
        pairedRatio(largeSamples, rawLarge),
        'target ≤ 3×; median of per-pair ratios',
      ),
      row(
        `completeTask + its index catch-up @${smallNodes} vs raw insert`,
        median(plus(smallSamples, catchUpSmall)),
        median(rawSmall),
        pairedRatio(plus(smallSamples, catchUpSmall), rawSmall),
        "the call, plus the catch-up that writes its recall-index rows once the caller's event loop turns (timed apart, off the call's path)",
      ),
      row(
        `completeTask + its index catch-up @${largeNodes} vs raw insert`,
        median(plus(largeSamples, catchUpLarge)),
        median(rawLarge),
        pairedRatio(plus(largeSamples, catchUpLarge), rawLarge),
        'the call plus its catch-up',
      ),
      {
        bench: 'radial',
        case: `index catch-up of one commit @${smallNodes}`,
        metric: 'median',
        value: median(catchUpSmall),
        unit: 'ms',
        note: 'one node per catch-up (commits back to back share one); synchronous=NORMAL, no fsync',
      },
      {
        bench: 'radial',
        case: `index catch-up of one commit @${largeNodes}`,
        metric: 'median',
        value: median(catchUpLarge),
        unit: 'ms',
      },
      row(
        `storage only @${largeNodes} vs @${smallNodes}`,
        sl.p50,
        ss.p50,
        pairedRatio(storageLarge, storageSmall),
        "summaries supplied: transaction + fsync (the index rows are written once the caller's event loop turns)",
      ),
      row(
        `storage only @${smallNodes} vs raw insert`,
        ss.p50,
        median(rawLarge),
        pairedRatio(storageSmall, rawLarge),
        'summaries supplied',
      ),
      row(
        `storage only + its index catch-up @${smallNodes} vs raw insert`,
        median(plus(storageSmall, catchUpStorage)),
        median(rawLarge),
        pairedRatio(plus(storageSmall, catchUpStorage), rawLarge),
        'summaries supplied; the call plus its catch-up',
      ),
      { bench: 'radial', case: `completeTask @${smallNodes}`, metric: 'p99', value: s.p99, unit: 'ms' },
      { bench: 'radial', case: `completeTask @${largeNodes}`, metric: 'p99', value: l.p99, unit: 'ms' },
      { bench: 'radial', case: 'raw insert', metric: 'p99', value: r.p99, unit: 'ms' },
    ];
    for (const entry of commitRows) log(`  ${describe(entry)}`);
    rows.push(...commitRows);
    const fsyncBound = fsyncBoundNote([...rawSmall, ...rawLarge]);
    if (fsyncBound !== undefined) {
      log(`  note: ${fsyncBound}`);
      notes.push(fsyncBound);
    }
    const firstReadRows = await firstReadFigures(small, smallNodes, taskAt, log);
    rows.push(...firstReadRows);
    notes.push(
      `completeTask leaves its recall-index rows out of its transaction (SQLite): the store writes them once the caller's event loop turns (or before the committing handle's next read, if that comes first). "completeTask … vs raw insert" times the call; "completeTask + its index catch-up" adds that catch-up, timed apart right after the call; the raw insert is timed after it, never with it.`,
    );
    notes.push(
      `completeTask measured after ${WARM_UP_SUMMARIES} unmeasured commits to a scratch store (the summariser's compiled code settled) and ${WARM_UP_COMMITS} per store (caches warm); each ratio to the raw insert is the median of per-pair ratios, every commit timed beside a raw insert of its bytes.`,
    );
    if (commitOnly) {
      await small.close();
      await large.close();
      return { name: 'radial', rows, notes };
    }

    // Nothing is pending here (every commit above was caught up); kept so that the navigation
    // figures below time navigation only, whatever changes above.
    await large.store.catchUpIndex();

    log('radial: navigate latency on the large store');
    // Questions about a random stored task, phrased with three of its words.
    const queries = Array.from({ length: options.quick ? 40 : 100 }, (_, i) => {
      const rng = seededRandom(9_000 + i);
      const target = syntheticTask(Math.floor(rng() * largeNodes), 'line0');
      const words = target.fullContext.toLowerCase().match(/[a-z]+/gu) ?? ['cache'];
      return `how did we handle the ${pick(rng, words)} ${pick(rng, words)} for the ${pick(rng, words)}?`;
    });
    const agent = large.primary();
    const store = large.store;
    const navigate = await compareInterleaved(
      queries.length,
      (i) => agent.radial.navigate(queries[i] as string),
      (i) =>
        searchIndex(store, {
          agentId: agent.info().id,
          query: queries[i] as string,
          layers: ['radial'],
          limit: 40,
        }),
    );
    const bare = await timeEach(queries.length, (i) => {
      const match = matchExpression(queryTerms(queries[i] as string).map((t) => t.word));
      return match ? store.direct.recall.matchBare(match, 40) : [];
    });
    const n = stats(navigate.subject);
    const navigateRows: BenchRow[] = [
      {
        ...row(
          `navigate @${largeNodes}`,
          n.p50,
          median(navigate.baseline),
          n.p50 / median(navigate.baseline),
          'baseline: searchIndex over the same rows',
        ),
        metric: 'p50',
      },
      {
        bench: 'radial',
        case: `navigate @${largeNodes}`,
        metric: 'p99',
        value: n.p99,
        unit: 'ms',
        baseline: percentile(navigate.baseline, 99),
        ratio: n.p99 / percentile(navigate.baseline, 99),
      },
      {
        bench: 'radial',
        case: `bare FTS5 MATCH @${largeNodes}`,
        metric: 'p50',
        value: median(bare),
        unit: 'ms',
      },
    ];
    for (const entry of navigateRows) log(`  ${describe(entry)}`);
    rows.push(...navigateRows);
    await small.close();
    await large.close();

    log('radial: origin size at 3, 10 and 300 lines');
    rows.push(...(await originFigures(dir)));
    notes.push(
      `Large store seeded through completeTask with durability 'normal' and precomputed summaries; measured commits use durability 'full' and the offline summariser.`,
      `${LINES} lines, commits round-robin; tasks: 1–2 KB full context, 400–500-char summary, 1–4 files, 0–3 todos.`,
    );
    return { name: 'radial', rows, notes };
  } finally {
    cleanup();
  }
};
