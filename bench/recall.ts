/**
 * Recall benchmark (issue 7): one agent holding radial nodes and archive records (full size:
 * 100,000 nodes and 1,000,000 records; `quick`: 2,000 and 20,000). Measures, interleaved in one
 * run over the same queries:
 * - `agent.recall` (BM25 + priors + context assembly at 1,000 tokens) p50/p99,
 * - `searchIndex` (ranked hits only) p50/p99,
 * - the floor: a bare FTS5 `MATCH … ORDER BY rank LIMIT 10` with the same expression;
 * and the recall index's size as a share of the verbatim tables' size.
 */
import type { Agent } from '../src/api/agent.js';
import { openMemory, type MemoryDB } from '../src/api/memory-db.js';
import { matchExpression, queryTerms } from '../src/recall/query.js';
import { searchIndex } from '../src/recall/search.js';
import {
  median,
  percentile,
  seededRandom,
  tempDir,
  timeEach,
  type BenchModule,
  type BenchRow,
  ENGINEERING_WORDS,
} from './harness.js';
import { join } from 'node:path';

const WORDS = [
  ...ENGINEERING_WORDS,
  ...'kayak fjord garden recipe holiday concert painting pottery camping museum bakery library harbour'.split(
    ' ',
  ),
];

type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

/**
 * A vocabulary shaped like natural text: the named words plus 20,000 made-up ones, drawn with
 * Zipf's law (the word of rank r has weight 1/r), so a few words are everywhere and most are rare.
 */
const VOCABULARY = (() => {
  const rng = seededRandom(42);
  const syllables = [
    'ka',
    'lo',
    'mi',
    'ne',
    'ru',
    'sa',
    'ti',
    'vo',
    'ze',
    'pa',
    'do',
    'gu',
    'he',
    'ji',
    'bo',
  ];
  const made = Array.from({ length: 20_000 }, (_, i) => {
    let word = '';
    for (let n = 2 + (i % 3); n > 0; n--) word += pick(rng, syllables);
    return `${word}${i.toString(36)}`;
  });
  return [...WORDS, ...made];
})();
const CUMULATIVE = (() => {
  let total = 0;
  return VOCABULARY.map((_, rank) => (total += 1 / (rank + 1)));
})();

function zipfWord(rng: Rng): string {
  const target = rng() * (CUMULATIVE[CUMULATIVE.length - 1] as number);
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((CUMULATIVE[mid] as number) < target) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo] as string;
}

/** A sentence of `min`..`max` words drawn from {@link VOCABULARY} by Zipf's law. */
export function sentence(rng: Rng, min: number, max: number): string {
  const length = min + Math.floor(rng() * (max - min + 1));
  return Array.from({ length }, () => zipfWord(rng)).join(' ');
}

/** A question of three content words of middling frequency (ranks 50..5,000). */
export function question(rng: Rng): string {
  const word = (): string => VOCABULARY[50 + Math.floor(rng() * 4_950)] as string;
  return `what did we decide about the ${word()} ${word()} and the ${word()}?`;
}

const LINES = 20;
const RECORDS_PER_TURN = 5_000;

async function seed(
  db: MemoryDB,
  nodes: number,
  records: number,
  log: (line: string) => void,
): Promise<void> {
  const agent = db.primary();
  const rng = seededRandom(7);
  for (let l = 0; l < LINES; l++) await agent.radial.createLine(`line${l}`, `Line ${l}`, sentence(rng, 3, 6));
  const t0 = Date.UTC(2024, 0, 1);
  for (let i = 0; i < nodes; i++) {
    const summary = sentence(rng, 20, 40);
    await agent.radial.completeTask({
      lineId: `line${i % LINES}`,
      taskLabel: `${sentence(rng, 3, 5)} #${i}`,
      fullContext: sentence(rng, 150, 300),
      conversationSummary: summary,
      summaries: {
        origin: summary.slice(0, 80),
        brief: summary.slice(0, 200),
        summary: summary.slice(0, 600),
        detailed: summary,
      },
    });
    if ((i + 1) % 10_000 === 0) log(`recall: ${i + 1}/${nodes} nodes`);
  }
  await seedArchive(agent, rng, records, t0, (written) => {
    if (written % 100_000 === 0) log(`recall: ${written}/${records} archive records`);
  });
}

/**
 * Appends `records` archive utterances of the synthetic sentences, 5,000 a turn and a new scene
 * every 10 turns, a minute apart from `t0`; `onTurn` hears the running count after each turn.
 * (Also the PostgreSQL bench's seed, bench/postgres.ts.)
 */
export async function seedArchive(
  agent: Agent,
  rng: Rng,
  records: number,
  t0: number,
  onTurn: (written: number) => void,
): Promise<void> {
  let written = 0;
  let scene = 0;
  while (written < records) {
    await agent.search(scene % 10 === 0 ? { newScene: true } : {});
    const count = Math.min(RECORDS_PER_TURN, records - written);
    const at = t0 + written * 60_000;
    await agent.appendArchiveMany(
      Array.from({ length: count }, (_, i) => ({
        kind: 'utterance' as const,
        role: i % 2 === 0 ? ('user' as const) : ('agent' as const),
        content: sentence(rng, 8, 30),
        createdAt: at + i,
      })),
    );
    await agent.update({ outcome: 'done', createdAt: at + count });
    written += count;
    scene++;
    onTurn(written);
  }
}

const stat = (samples: readonly number[]) => ({ p50: median(samples), p99: percentile(samples, 99) });

export const runRecall: BenchModule = async (options) => {
  const { log } = options;
  const nodes = options.quick ? 2_000 : 100_000;
  const records = options.quick ? 20_000 : 1_000_000;
  const iterations = options.quick ? 60 : 300;
  const { dir, cleanup } = tempDir('hedgehop-bench-recall-');
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  try {
    const path = join(dir, 'recall.db');
    log(`recall: seeding ${nodes} nodes and ${records} archive records (durability normal)`);
    const seedStart = Date.now();
    let db = await openMemory(path, { durability: 'normal', dream: { auto: false } });
    await seed(db, nodes, records, log);
    await db.close();
    notes.push(
      `seeded ${nodes} nodes + ${records} archive records in ${((Date.now() - seedStart) / 1000).toFixed(0)} s`,
    );
    db = await openMemory(path, { durability: 'normal', dream: { auto: false } });
    const agent = db.primary();
    const store = db.store;
    const agentId = agent.info().id;
    const queries = Array.from({ length: iterations }, (_, i) => question(seededRandom(1_000 + i)));
    const expressions = queries.map((q) => matchExpression(queryTerms(q).map((t) => t.word)) as string);
    for (let i = 0; i < 5; i++) {
      await agent.recall(queries[i] as string);
      store.engine.read('warm', () => store.direct.recall.matchBare(expressions[i] as string, 10));
    }
    const recallMs: number[] = [];
    const searchMs: number[] = [];
    const floorMs: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const query = queries[i] as string;
      recallMs.push(...(await timeEach(1, () => agent.recall(query, { budgetTokens: 1000 }))));
      searchMs.push(...(await timeEach(1, () => searchIndex(store, { agentId, query, limit: 10 }))));
      floorMs.push(
        ...(await timeEach(1, () =>
          store.engine.read('floor', () => store.direct.recall.matchBare(expressions[i] as string, 10)),
        )),
      );
    }
    const r = stat(recallMs);
    const s = stat(searchMs);
    const f = stat(floorMs);
    const size = `${nodes} nodes + ${records} records`;
    rows.push(
      {
        bench: 'recall',
        case: `recall (1000-token context) @${size}`,
        metric: 'p50',
        value: r.p50,
        unit: 'ms',
        baseline: f.p50,
        ratio: r.p50 / f.p50,
        note: 'baseline: bare FTS5 MATCH, same expression, LIMIT 10',
      },
      {
        bench: 'recall',
        case: `recall (1000-token context) @${size}`,
        metric: 'p99',
        value: r.p99,
        unit: 'ms',
        baseline: f.p99,
        ratio: r.p99 / f.p99,
      },
      {
        bench: 'recall',
        case: `searchIndex (hits only) @${size}`,
        metric: 'p50',
        value: s.p50,
        unit: 'ms',
        baseline: f.p50,
        ratio: s.p50 / f.p50,
      },
      {
        bench: 'recall',
        case: `searchIndex (hits only) @${size}`,
        metric: 'p99',
        value: s.p99,
        unit: 'ms',
        baseline: f.p99,
        ratio: s.p99 / f.p99,
      },
      { bench: 'recall', case: `bare FTS5 MATCH @${size}`, metric: 'p50', value: f.p50, unit: 'ms' },
      { bench: 'recall', case: `bare FTS5 MATCH @${size}`, metric: 'p99', value: f.p99, unit: 'ms' },
    );
    const footprint = store.engine.read('footprint', () => store.direct.recall.footprint());
    rows.push({
      bench: 'recall',
      case: `index size @${size}`,
      metric: 'share of verbatim bytes',
      value: footprint.indexBytes / footprint.verbatimBytes,
      unit: 'ratio',
      baseline: footprint.verbatimBytes,
      note: `index ${(footprint.indexBytes / 1e6).toFixed(1)} MB, verbatim tables ${(footprint.verbatimBytes / 1e6).toFixed(1)} MB`,
    });
    await db.close();
    return { name: 'recall', rows, notes };
  } finally {
    cleanup();
  }
};
