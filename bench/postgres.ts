/**
 * The PostgreSQL engine beside bare SQL on the same server (issue 16), every pair interleaved
 * in one run (the machine is shared and noisy):
 * - writes: `appendArchive`, `completeTask` and one full turn (7 commits) against bare
 *   parameterised autocommit INSERTs of the same bytes plus their `tsvector` (one per commit);
 *   at durability `full` (a commit waits for the server's WAL flush) and `normal`
 *   (`synchronous_commit = off`, the baseline's session likewise);
 * - recall at 100,000 archive records (quick: 10,000) against the bare
 *   `body @@ tsquery ORDER BY ts_rank LIMIT 10` over the same index texts;
 * - commit throughput of 4 writer processes (and 2) against one, each an agent of its own
 *   committing radial tasks into one memory in shared mode, started together once warm.
 *
 * Needs a server: `HEDGEHOP_BENCH_PG_URL`, else a throwaway one (bench/postgres-server.ts);
 * without either the module reports nothing and says why. `HEDGEHOP_BENCH_PG_PARTS` picks
 * parts (`writes`, `recall`, `writers`; default all), `HEDGEHOP_BENCH_PG_RECALL_MEMORY` keeps
 * the recall memory between runs (see {@link measureRecall}).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openMemory, type MemoryDB } from '../src/api/memory-db.js';
import type { Agent } from '../src/api/agent.js';
import { OfflineSummarizer } from '../src/llm/offline-summarizer.js';
import { matchExpression, queryTerms } from '../src/recall/query.js';
import { parseMatch, phrasesQuery } from '../src/store/pg/fts.js';
import {
  compareInterleaved,
  median,
  percentile,
  seededRandom,
  type BenchModule,
  type BenchOptions,
  type BenchRow,
} from './harness.js';
import { scalingRows, writerRound, type RoundResult, type WriterPlan } from './multiprocess.js';
import { ratioRows } from './floor.js';
import { benchPgServer } from './postgres-server.js';
import { question, seedArchive, sentence } from './recall.js';
import { fullTurn } from './turn.js';

type Durability = 'full' | 'normal';

/** Commits one full turn makes (search, 3 appends, 2 plan writes, update): its baseline's INSERTs. */
const COMMITS_PER_TURN = 7;

/** `url` naming the memory `memory` (replacing any `memory` parameter). */
function memoryUrl(url: string, memory: string): string {
  const [base, query = ''] = url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.set('memory', memory);
  return `${base}?${params.toString()}`;
}

/** A connection outside hedgehop, for the baselines and for dropping the bench's schemas. */
async function bareClient(url: string, durability: Durability = 'full'): Promise<pg.Client> {
  const [base, query = ''] = url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.delete('memory');
  const client = new pg.Client({ connectionString: `${base}?${params.toString()}` });
  await client.connect();
  if (durability === 'normal') await client.query('SET synchronous_commit = off');
  return client;
}

/** The bare tables the write baselines insert into, in a schema of their own. */
async function baselineTables(client: pg.Client, schema: string): Promise<void> {
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`SET search_path TO ${schema}`);
  await client.query(
    'CREATE TABLE rows (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, content text NOT NULL, body tsvector NOT NULL)',
  );
  await client.query('CREATE INDEX rows_body ON rows USING gin (body)');
  await client.query(
    `CREATE TABLE nodes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text NOT NULL,
       summary text NOT NULL, context text NOT NULL, body tsvector NOT NULL)`,
  );
  await client.query('CREATE INDEX nodes_body ON nodes USING gin (body)');
}

const INSERT_ROW = "INSERT INTO rows (content, body) VALUES ($1, to_tsvector('simple', $1))";
const INSERT_NODE =
  "INSERT INTO nodes (label, summary, context, body) VALUES ($1, $2, $3, to_tsvector('simple', $1 || ' ' || $2 || ' ' || $3))";

/** A pair's timing as rows (p50 and p99 of each side, ratios): bench/floor.ts' rows, the median named p50. */
const pairRows = (
  bench: string,
  name: string,
  result: { subject: number[]; baseline: number[] },
  note: string,
): BenchRow[] => ratioRows(bench, name, result, note, 'p50');

function logPair(
  options: BenchOptions,
  name: string,
  result: { subject: number[]; baseline: number[] },
): void {
  options.log(
    `postgres: ${name}: p50 ${median(result.subject).toFixed(3)} ms vs ${median(result.baseline).toFixed(3)} ms (×${(median(result.subject) / median(result.baseline)).toFixed(2)}), p99 ${percentile(result.subject, 99).toFixed(2)} vs ${percentile(result.baseline, 99).toFixed(2)} ms`,
  );
}

/** appendArchive, completeTask and a full turn against their bare INSERTs, at one durability. */
async function measureWrites(
  url: string,
  durability: Durability,
  iterations: number,
  options: BenchOptions,
): Promise<BenchRow[]> {
  const memory = `bench_w_${durability}_${randomBytes(3).toString('hex')}`;
  const schema = `bench_floor_${randomBytes(3).toString('hex')}`;
  const db = await openMemory(memoryUrl(url, memory), {
    durability,
    summarizer: new OfflineSummarizer(),
    dream: { auto: false },
  });
  const client = await bareClient(url, durability);
  const rows: BenchRow[] = [];
  try {
    await baselineTables(client, schema);
    const agent = db.primary();
    const random = seededRandom(11);
    await agent.radial.createLine('bench', 'Bench', 'write benchmark');
    // Warm both paths (prepared plans, caches) before timing.
    for (let i = 0; i < 5; i++) {
      await fullTurn(agent, random, i, 1_700_000_000_000 + i);
      await client.query(INSERT_ROW, [sentence(random, 20, 20)]);
    }
    await agent.search({ newScene: true });
    const texts = Array.from({ length: iterations }, () => sentence(random, 20, 40));
    const append = await compareInterleaved(
      iterations,
      (i) =>
        agent.appendArchive({
          kind: 'utterance',
          role: 'user',
          content: texts[i] as string,
          createdAt: 1_700_000_100_000 + i,
        }),
      (i) => client.query(INSERT_ROW, [texts[i]]),
    );
    await agent.update({ outcome: 'done', createdAt: 1_700_000_200_000 });
    logPair(options, `appendArchive (${durability})`, append);
    rows.push(
      ...pairRows(
        'postgres',
        `appendArchive, durability ${durability}`,
        append,
        'baseline: one autocommit INSERT of the same text + to_tsvector',
      ),
    );
    const tasks = Array.from({ length: iterations }, (_, i) => ({
      label: `${sentence(random, 3, 5)} #${i}`,
      summary: sentence(random, 20, 40),
      context: sentence(random, 150, 300),
    }));
    const complete = await compareInterleaved(
      iterations,
      (i) => {
        const task = tasks[i] as (typeof tasks)[number];
        return agent.radial.completeTask({
          lineId: 'bench',
          taskLabel: task.label,
          fullContext: task.context,
          conversationSummary: task.summary,
        });
      },
      (i) => {
        const task = tasks[i] as (typeof tasks)[number];
        return client.query(INSERT_NODE, [task.label, task.summary, task.context]);
      },
    );
    logPair(options, `completeTask (${durability})`, complete);
    rows.push(
      ...pairRows(
        'postgres',
        `completeTask, durability ${durability}`,
        complete,
        'baseline: one autocommit INSERT of label, summary and context + to_tsvector',
      ),
    );
    const turnRandom = seededRandom(12);
    const baseRandom = seededRandom(12);
    const turn = await compareInterleaved(
      iterations,
      (i) => fullTurn(agent as Agent, turnRandom, 100 + i, 1_700_001_000_000 + i * 1_000),
      async () => {
        for (let c = 0; c < COMMITS_PER_TURN; c++)
          await client.query(INSERT_ROW, [sentence(baseRandom, 20, 20)]);
      },
    );
    logPair(options, `full turn (${durability})`, turn);
    rows.push(
      ...pairRows(
        'postgres',
        `full turn (${COMMITS_PER_TURN} commits), durability ${durability}`,
        turn,
        `baseline: ${COMMITS_PER_TURN} autocommit INSERTs + to_tsvector`,
      ),
    );
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await client.query(`DROP SCHEMA IF EXISTS hedgehop_${memory} CASCADE`).catch(() => undefined);
    await client.end();
    await db.close();
  }
  return rows;
}

async function seedRecords(agent: Agent, records: number, log: (line: string) => void): Promise<void> {
  await seedArchive(agent, seededRandom(7), records, Date.UTC(2024, 0, 1), (written) => {
    if (written % 20_000 === 0) log(`postgres: seeded ${written}/${records} archive records`);
  });
}

/** recall and searchIndex against the bare ts_rank top 10 over the same index texts. */
async function measureRecall(
  url: string,
  records: number,
  iterations: number,
  options: BenchOptions,
): Promise<BenchRow[]> {
  // HEDGEHOP_BENCH_PG_RECALL_MEMORY names a memory kept between runs (seeded by the first, as
  // this function seeds, then reused while it holds `records` archive records): seeding 100,000
  // records takes longer than measuring them.
  const kept = process.env.HEDGEHOP_BENCH_PG_RECALL_MEMORY;
  const memory = kept ?? `bench_r_${randomBytes(3).toString('hex')}`;
  const client = await bareClient(url);
  const seeded =
    kept !== undefined &&
    (await client
      .query<{ n: string }>(`SELECT count(*) AS n FROM hedgehop_${memory}.archive WHERE kind = 'utterance'`)
      .then((r) => Number(r.rows[0]?.n) === records)
      .catch(() => false));
  if (kept !== undefined && !seeded)
    await client.query(`DROP SCHEMA IF EXISTS hedgehop_${memory} CASCADE`).catch(() => undefined);
  let db: MemoryDB = await openMemory(memoryUrl(url, memory), {
    durability: 'normal',
    dream: { auto: false },
  });
  try {
    const started = Date.now();
    if (seeded) options.log(`postgres: reusing memory ${memory} (${records} records)`);
    else {
      await seedRecords(db.primary(), records, options.log);
      options.log(`postgres: seeded ${records} records in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    await db.close();
    db = await openMemory(memoryUrl(url, memory), { durability: 'normal', dream: { auto: false } });
    await client.query(`SET search_path TO hedgehop_${memory}`);
    await client.query('ANALYZE');
    const agent = db.primary();
    const queries = Array.from({ length: iterations + 5 }, (_, i) => question(seededRandom(1_000 + i)));
    const tsqueries = queries.map((q) =>
      phrasesQuery(parseMatch(matchExpression(queryTerms(q).map((t) => t.word)) ?? '""')),
    );
    const floor = (i: number): Promise<unknown> =>
      client.query(
        'SELECT rowid FROM search_docs WHERE body @@ $1::tsquery ORDER BY ts_rank(body, $1::tsquery) DESC LIMIT 10',
        [tsqueries[i]],
      );
    for (let i = 0; i < 5; i++) {
      await agent.recall(queries[i] as string);
      await floor(i);
    }
    const result = await compareInterleaved(
      iterations,
      (i) => agent.recall(queries[i + 5] as string, { budgetTokens: 1000 }),
      (i) => floor(i + 5),
    );
    logPair(options, `recall @ ${records} records`, result);
    return pairRows(
      'postgres',
      `recall (1000-token context) @ ${records} archive records`,
      result,
      'baseline: bare SELECT … WHERE body @@ tsquery ORDER BY ts_rank DESC LIMIT 10 on search_docs, same terms',
    );
  } finally {
    await db.close().catch(() => undefined);
    if (kept === undefined)
      await client.query(`DROP SCHEMA IF EXISTS hedgehop_${memory} CASCADE`).catch(() => undefined);
    await client.end();
  }
}

/** How the writer processes of the throughput rounds commit (see {@link measureWriters}). */
const WRITERS: WriterPlan = { warmup: 10, agent: 'own' };

/** Commits per second of `writers` processes writing one fresh memory at once, started together once warm. */
async function writersOnce(url: string, writers: number, durationMs: number): Promise<RoundResult> {
  const memory = `bench_m_${randomBytes(3).toString('hex')}`;
  const target = memoryUrl(url, memory);
  const db = await openMemory(target);
  await db.close();
  try {
    return await writerRound(target, writers, { ...WRITERS, durationMs });
  } finally {
    const client = await bareClient(url);
    await client.query(`DROP SCHEMA IF EXISTS hedgehop_${memory} CASCADE`).catch(() => undefined);
    await client.end();
  }
}

/**
 * Commit throughput of 1, 2 and 4 writer processes on one memory: a fleet of agents (one per
 * process, as one agent per app server), each committing radial tasks on its own line for
 * `durationMs`. Rounds rotate the order of 1, 2 and 4 so that the machine's other load hits each
 * alike; the figures are medians over the rounds, and the ratio is also given round by round.
 */
async function measureWriters(
  url: string,
  durationMs: number,
  rounds: number,
  options: BenchOptions,
): Promise<BenchRow[]> {
  const counts = [1, 2, 4];
  const samples = new Map<number, RoundResult[]>(counts.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    const order = [...counts.slice(r % counts.length), ...counts.slice(0, r % counts.length)];
    for (const writers of order) {
      const result = await writersOnce(url, writers, durationMs);
      options.log(
        `postgres: ${writers} writer(s), round ${r + 1}: ${result.throughput.toFixed(1)} commits/s, p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, writers' CPU ${result.cpuPerCommitMs.toFixed(2)} ms/commit`,
      );
      samples.get(writers)?.push(result);
    }
  }
  const of = (writers: number): RoundResult[] => samples.get(writers) ?? [];
  const summary = (writers: number): RoundResult => ({
    throughput: median(of(writers).map((s) => s.throughput)),
    p50: median(of(writers).map((s) => s.p50)),
    p99: median(of(writers).map((s) => s.p99)),
    cpuPerCommitMs: median(of(writers).map((s) => s.cpuPerCommitMs)),
  });
  const single = summary(1);
  return counts.flatMap((writers): BenchRow[] => {
    const result = summary(writers);
    const perRound = of(writers).map((s, r) => (s.throughput / (of(1)[r]?.throughput ?? NaN)).toFixed(2));
    const name = `${writers} writer process(es) (one agent each), ${durationMs / 1000} s of completeTask commits, durability full`;
    return scalingRows(
      'postgres',
      name,
      result,
      single,
      `median of ${rounds} rounds; ratio round by round ${perRound.join(', ')}; writers' CPU ${result.cpuPerCommitMs.toFixed(2)} ms a commit`,
    );
  });
}

const PARTS = ['writes', 'recall', 'writers'] as const;
type Part = (typeof PARTS)[number];

/**
 * The parts to run: `HEDGEHOP_BENCH_PG_PARTS` (a comma-separated subset of writes, recall and
 * writers), else all. A name not among them is an error, so a typo never measures nothing.
 */
function chosenParts(value: string | undefined): ReadonlySet<Part> {
  if (value === undefined || value.trim() === '') return new Set(PARTS);
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !(PARTS as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `HEDGEHOP_BENCH_PG_PARTS: unknown part ${unknown.join(', ')} (known: ${PARTS.join(', ')})`,
    );
  return new Set(names as Part[]);
}

/** The PostgreSQL engine against bare SQL on the same server. */
export const runPostgres: BenchModule = async (options) => {
  const parts = chosenParts(process.env.HEDGEHOP_BENCH_PG_PARTS);
  const server = await benchPgServer();
  if (typeof server === 'string') {
    options.log(`postgres: skipped (${server})`);
    return { name: 'postgres', rows: [], notes: [`skipped: ${server}`] };
  }
  const iterations = options.quick ? 40 : 200;
  const records = options.quick ? 10_000 : 100_000;
  try {
    const rows: BenchRow[] = [];
    if (parts.has('writes'))
      for (const durability of ['full', 'normal'] as const)
        rows.push(...(await measureWrites(server.url, durability, iterations, options)));
    if (parts.has('recall')) rows.push(...(await measureRecall(server.url, records, iterations, options)));
    if (parts.has('writers'))
      rows.push(
        ...(await measureWriters(server.url, options.quick ? 2_000 : 5_000, options.quick ? 3 : 5, options)),
      );
    return {
      name: 'postgres',
      rows,
      notes: [
        `measured on ${server.description}`,
        ...(parts.size < PARTS.length
          ? [`parts run: ${[...parts].join(', ')} (HEDGEHOP_BENCH_PG_PARTS)`]
          : []),
        'each pair interleaved call by call in one process; writes and recall on one pool connection at a time',
        'writer processes: bench/children/timed-writer.ts (driver in bench/multiprocess.ts), each an agent of its own on its own line of one memory (shared mode), started together after 10 warm-up commits',
      ],
    };
  } finally {
    server.stop();
  }
};
