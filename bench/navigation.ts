/**
 * Radial navigation at scale (issue 14): `navigate` at 100,000 nodes (2,000 with `--quick`)
 * against the bare FTS5 top-10 over the same node texts, measured interleaved in one process,
 * p50 and p99 each, in wall time and in CPU time (the shared machine's load moves wall time by
 * a factor of 2–3 between runs; CPU time of the calling thread is what the code costs).
 *
 * The store is seeded like the radial module's (synthetic engineering prose, 10 lines, summaries
 * supplied). `NAVIGATION_BENCH_DB=<path>` keeps the seeded file there and reuses it on the next
 * run (for profiling); without it a temporary file is seeded and removed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openMemory } from '../src/index.js';
import { matchExpression, queryTerms } from '../src/recall/query.js';
import { median, percentile, seededRandom, tempDir, type BenchModule, type BenchRow } from './harness.js';
import { pick, seed, syntheticTask } from './radial.js';

/** Wall and CPU milliseconds of one call. */
async function timed(fn: () => unknown): Promise<{ wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await fn();
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: (used.user + used.system) / 1000 };
}

/** Questions about a random stored task, phrased with three of its words (as the radial module asks). */
export function navigationQueries(count: number, nodes: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const rng = seededRandom(9_000 + i);
    const target = syntheticTask(Math.floor(rng() * nodes), 'line0');
    const words = target.fullContext.toLowerCase().match(/[a-z]+/gu) ?? ['cache'];
    return `how did we handle the ${pick(rng, words)} ${pick(rng, words)} for the ${pick(rng, words)}?`;
  });
}

export const runNavigation: BenchModule = async (options) => {
  const { log } = options;
  const nodes = options.quick ? 2_000 : 100_000;
  const rounds = options.quick ? 40 : 100;
  const kept = process.env.NAVIGATION_BENCH_DB;
  const temp = kept ? undefined : tempDir('hedgehop-bench-navigation-');
  const path = kept ?? join(temp?.dir ?? '.', 'navigation.db');
  try {
    if (!existsSync(path)) {
      log(`navigation: seeding ${nodes} nodes (durability normal, precomputed summaries)`);
      const db = await openMemory(path, { durability: 'normal' });
      await seed(db, nodes, log);
      await db.close();
    }
    const db = await openMemory(path);
    const agent = db.primary();
    const queries = navigationQueries(rounds, nodes);
    // The bare FTS5 top-10 in its faster form (`bm25()` ordered: SQLite's top-N sort; `ORDER BY
    // rank` makes FTS5 sort every match and costs about twice as much at this size), on its own
    // read-only connection to the same file, in this process.
    const raw = new Database(path, { readonly: true });
    const bare = raw.prepare(
      'SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY bm25(search_fts) LIMIT 10',
    );
    const byRank = raw.prepare(
      'SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rank LIMIT 10',
    );
    const matchOf = (query: string): string | undefined =>
      matchExpression(queryTerms(query).map((t) => t.word));
    const bareTop10 = (query: string): unknown[] => {
      const match = matchOf(query);
      return match ? bare.all(match) : [];
    };
    // Warm-up (statement caches, page cache), not measured.
    for (const query of queries.slice(0, 5)) {
      await agent.radial.navigate(query);
      bareTop10(query);
    }
    log(`navigation: ${rounds} questions, navigate and the bare FTS5 top-10 interleaved`);
    const subject: { wall: number; cpu: number }[] = [];
    const baseline: { wall: number; cpu: number }[] = [];
    const rankForm: { wall: number; cpu: number }[] = [];
    let found = 0;
    for (const query of queries) {
      subject.push(
        await timed(async () => {
          if (await agent.radial.navigate(query)) found++;
        }),
      );
      baseline.push(await timed(() => bareTop10(query)));
      rankForm.push(
        await timed(() => {
          const match = matchOf(query);
          return match ? byRank.all(match) : [];
        }),
      );
    }
    raw.close();
    await db.close();
    const rows: BenchRow[] = [];
    for (const clock of ['wall', 'cpu'] as const) {
      for (const p of [50, 99] as const) {
        const value = percentile(
          subject.map((s) => s[clock]),
          p,
        );
        const base = percentile(
          baseline.map((s) => s[clock]),
          p,
        );
        rows.push({
          bench: 'navigation',
          case: `navigate @${nodes} nodes (${clock})`,
          metric: `p${p}`,
          value,
          unit: 'ms',
          baseline: base,
          ratio: value / base,
          note: 'baseline: bare FTS5 MATCH top-10 (bm25() ordered) over the same node texts; target ≤ 3×',
        });
      }
    }
    for (const p of [50, 99] as const) {
      rows.push({
        bench: 'navigation',
        case: `bare FTS5 top-10 @${nodes} nodes, ORDER BY rank (cpu)`,
        metric: `p${p}`,
        value: percentile(
          rankForm.map((s) => s.cpu),
          p,
        ),
        unit: 'ms',
        note: 'the same top-10 sorted by FTS5 itself, for comparison',
      });
    }
    rows.push({
      bench: 'navigation',
      case: `navigate @${nodes} nodes`,
      metric: 'questions answered',
      value: found,
      unit: 'of',
      baseline: rounds,
    });
    for (const row of rows) {
      const ratio =
        row.ratio === undefined ? '' : ` vs ${row.baseline?.toFixed(2)} (${row.ratio.toFixed(2)}×)`;
      log(`  ${row.case} ${row.metric}: ${row.value.toFixed(2)} ${row.unit}${ratio}`);
    }
    return {
      name: 'navigation',
      rows,
      notes: [
        `${nodes} nodes on 10 lines, 4 index rows each; median wall ${median(subject.map((s) => s.wall)).toFixed(1)} ms.`,
      ],
    };
  } finally {
    temp?.cleanup();
  }
};
