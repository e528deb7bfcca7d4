/**
 * Serve: does one long request keep `hedgehop serve` from answering the others? (issue 14)
 *
 * A memory of 1,000,000 records (quick: 20,000), built like the scaling module's (one turn per
 * 10,000 records of 240 characters, `durability: 'normal'`), with a floor file holding the same
 * texts. Then:
 *
 * - recall @N records (10 hits, a 1,000-token context) against the floor's BM25 top-10 of the
 *   same words, interleaved in this process (the ratio issue 14 asks for at 1,000,000);
 * - `hedgehop serve` in a child process (the real CLI, dist/), once with `--read-workers 0`
 *   (every request on the event loop, as before) and once with the default read pool: two
 *   clients post recalls back to back while a third sends a cheap `GET /api/server` every
 *   10 ms. Reported: the cheap request's p50 / p99 / max latency (a request that waits behind a
 *   synchronous stretch shows it whole), beside its latency on an idle server, and the recalls'
 *   p50.
 *
 * Building 1,000,000 records takes minutes: set `HEDGEHOP_BENCH_SERVE_DIR` to a folder to keep
 * the built files there between runs (they are reused when they hold the size asked for).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMemory } from '../src/index.js';
import { SyntheticCorpus } from './corpus.js';
import { appendTurn, ratioRows } from './floor.js';
import { RawFloor } from './raw-floor.js';
import {
  compareInterleaved,
  median,
  percentile,
  tempDir,
  type BenchModule,
  type BenchRow,
} from './harness.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));

interface Built {
  readonly path: string;
  readonly floorPath: string;
}

/** Builds (or reuses) a memory and a floor of `size` records in `dir`. */
async function build(dir: string, size: number, log: (line: string) => void): Promise<Built> {
  const path = join(dir, `serve-${size}.db`);
  const floorPath = join(dir, `serve-${size}-floor.db`);
  const marker = join(dir, `serve-${size}.done`);
  if (existsSync(marker) && existsSync(path) && existsSync(floorPath)) {
    log(`serve: reusing the ${size.toLocaleString('en')}-record files in ${dir}`);
    return { path, floorPath };
  }
  const corpus = new SyntheticCorpus(5);
  const db = await openMemory(path, { durability: 'normal' });
  const floor = RawFloor.open(floorPath, 'normal');
  try {
    for (let done = 0; done < size; ) {
      const chunk = Math.min(10_000, size - done);
      const texts = Array.from({ length: chunk }, () => corpus.text(240));
      await appendTurn(db.primary(), texts, 1_800_000_000_000 + done);
      floor.insertMany(texts);
      done += chunk;
      if (done % 100_000 === 0) log(`serve: built ${done.toLocaleString('en')} records`);
    }
    await db.checkpoint();
  } finally {
    await db.close();
    floor.close();
  }
  writeFileSync(marker, `${size}\n`);
  return { path, floorPath };
}

interface Served {
  readonly url: string;
  readonly child: ChildProcess;
}

/** Starts `hedgehop serve` on `path` and resolves with its URL. */
function serve(path: string, workers: number): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CLI, 'serve', '--file', path, '--port', '0', '--no-mcp', '--json', '--read-workers', String(workers)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      try {
        resolve({ url: (JSON.parse(out) as { url: string }).url, child });
      } catch {
        // wait for the whole document
      }
    });
    child.on('exit', (code) => reject(new Error(`hedgehop serve exited with ${code}: ${err.trim()}`)));
  });
}

function stop(served: Served): Promise<void> {
  return new Promise((resolve) => {
    served.child.once('exit', () => resolve());
    served.child.kill('SIGTERM');
  });
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function cheap(url: string): Promise<void> {
  const response = await fetch(`${url}/api/server`);
  if (!response.ok) throw new Error(`GET /api/server: ${response.status}`);
  await response.arrayBuffer();
}

async function recall(url: string, query: string): Promise<void> {
  const response = await fetch(`${url}/api/agents/primary/recall`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, budgetTokens: 1000 }),
  });
  if (!response.ok) throw new Error(`POST recall: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

interface StallFigures {
  readonly idle: number[];
  readonly probe: number[];
  readonly recalls: number[];
}

/** Idle probes, then probes every 10 ms while two clients recall back to back. */
async function measureStall(url: string, queries: readonly string[], seconds: number): Promise<StallFigures> {
  const idle: number[] = [];
  for (let i = 0; i < 50; i++) idle.push(await timed(() => cheap(url)));
  for (const query of queries.slice(0, 2)) await recall(url, query);
  const deadline = Date.now() + seconds * 1000;
  const recalls: number[] = [];
  let next = 0;
  const client = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const query = queries[next++ % queries.length] as string;
      recalls.push(await timed(() => recall(url, query)));
    }
  };
  const probe: number[] = [];
  const prober = async (): Promise<void> => {
    while (Date.now() < deadline) {
      probe.push(await timed(() => cheap(url)));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await Promise.all([client(), client(), prober()]);
  return { idle, probe, recalls };
}

function stallRows(size: number, workers: number, figures: StallFigures): BenchRow[] {
  const label = workers === 0 ? 'no read workers (all on the event loop)' : `${workers} read workers`;
  const idle = median(figures.idle);
  const rows: BenchRow[] = [];
  for (const [metric, value] of [
    ['p50', median(figures.probe)],
    ['p99', percentile(figures.probe, 99)],
    ['max', Math.max(...figures.probe)],
  ] as const) {
    rows.push({
      bench: 'serve',
      case: `GET /api/server during recalls @${size} records, ${label}`,
      metric,
      value,
      unit: 'ms',
      baseline: idle,
      ratio: value / idle,
      note: `baseline: the same request on the idle server (p50); ${figures.probe.length} probes`,
    });
  }
  rows.push({
    bench: 'serve',
    case: `POST recall (2 clients) @${size} records, ${label}`,
    metric: 'p50',
    value: median(figures.recalls),
    unit: 'ms',
    note: `${figures.recalls.length} recalls; p99 ${percentile(figures.recalls, 99).toFixed(1)} ms`,
  });
  return rows;
}

/** The serve benchmark module. */
export const runServe: BenchModule = async (options) => {
  const size = options.quick ? 20_000 : 1_000_000;
  const kept = process.env.HEDGEHOP_BENCH_SERVE_DIR;
  const temporary = kept ? undefined : tempDir('hedgehop-bench-serve-');
  const dir = kept ?? (temporary as { dir: string }).dir;
  mkdirSync(dir, { recursive: true });
  const rows: BenchRow[] = [];
  try {
    options.log(`serve: building ${size.toLocaleString('en')} records`);
    const built = await build(dir, size, options.log);
    const corpus = new SyntheticCorpus(11);
    const queries = Array.from({ length: options.quick ? 30 : 60 }, () => corpus.query());

    options.log('serve: recall against the floor');
    const db = await openMemory(built.path);
    const floor = RawFloor.open(built.floorPath, 'full');
    try {
      const agent = db.primary();
      for (const query of queries.slice(0, 3)) {
        await agent.recall(query, { budgetTokens: 1000 });
        floor.query(query);
      }
      const compared = await compareInterleaved(
        queries.length,
        (i) => agent.recall(queries[i] as string, { budgetTokens: 1000 }),
        (i) => floor.query(queries[i] as string, 10),
      );
      const recallRows = ratioRows(
        'serve',
        `recall @${size} records`,
        compared,
        'floor: BM25 top 10 over the same texts',
      );
      for (const row of recallRows)
        options.log(
          `serve: ${row.case} ${row.metric} ${row.value.toFixed(1)} ms, floor ${row.baseline?.toFixed(2)} ms, ${row.ratio?.toFixed(1)}×`,
        );
      rows.push(...recallRows);
    } finally {
      floor.close();
      await db.close();
    }

    for (const workers of [0, 2]) {
      options.log(`serve: stall with ${workers} read workers`);
      const served = await serve(built.path, workers);
      try {
        rows.push(
          ...stallRows(size, workers, await measureStall(served.url, queries, options.quick ? 6 : 20)),
        );
      } finally {
        await stop(served);
      }
    }
  } finally {
    temporary?.cleanup();
  }
  return {
    name: 'serve',
    rows,
    notes: [
      `recall: 10 hits, a 1,000-token context; the serve cases run the CLI's \`hedgehop serve\` in a child process (${availableParallelism()} cores here)`,
    ],
  };
};
