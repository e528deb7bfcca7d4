/**
 * Scaling: how one memory file's costs grow from 1,000 to 1,000,000 records (quick: 1,000 and
 * 10,000), each figure beside the floor (raw better-sqlite3 + FTS5 holding the same texts):
 *
 * - write cost: one `appendArchive` commit at `durability: 'full'` and `'normal'`, interleaved
 *   with a floor commit of the same text at the same durability (target: flat with size);
 * - recall p50/p99 (`agent.recall`, 10 hits, a 1,000-token context) against a BM25 top-10 FTS5
 *   query of the same words;
 * - cold open: a fresh child process times `openMemory` of the file (target: under 50 ms at
 *   1M records), beside a bare better-sqlite3 open of the floor file in another child;
 * - peak RSS of a child process that opens the file and recalls over it (target: under 200 MB
 *   at 1M records), beside a child doing the same FTS5 queries on the floor file (the process's
 *   own high-water mark, `VmHWM`: a child's `getrusage` maximum starts at its parent's size).
 *
 * How the big file is built: through the public API only, `durability: 'normal'`, one turn per
 * 10,000 records (`agent.search({ newScene: true })`, `agent.appendArchiveMany` of 10,000
 * 240-character records, one utterance in ten and the rest tool-result events, `agent.update` closing the turn), which is the fastest batched
 * write the API offers; the floor file receives the same texts in transactions of 10,000.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
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

const PROBE = fileURLToPath(new URL('./children/open-probe.js', import.meta.url));

interface ProbeResult {
  readonly openMs: number;
  readonly recallMs: readonly number[];
  readonly rssBeforeBytes: number;
  /** The process's own peak resident memory (Linux: `VmHWM`; see bench/children/open-probe.ts). */
  readonly peakRssBytes: number;
  /** Resident memory after the recalls, before the close: anonymous and file-backed (the program, mapped files). */
  readonly beforeClose: { readonly anonBytes?: number; readonly fileBytes?: number };
}

/** "; after the recalls A MB anonymous + F MB file-backed" when the probe could tell them apart. */
function residentSplit(probe: ProbeResult): string {
  const { anonBytes, fileBytes } = probe.beforeClose;
  if (anonBytes === undefined || fileBytes === undefined) return '';
  return `; after the recalls ${(anonBytes / MB).toFixed(0)} MB anonymous + ${(fileBytes / MB).toFixed(0)} MB file-backed (the program, the memory-mapped file)`;
}

/** Runs the open probe in a fresh process; rejects after `timeoutMs`. */
export function runProbe(
  mode: 'hedgehop' | 'raw',
  path: string,
  queries: readonly string[],
  timeoutMs = 600_000,
): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PROBE, mode, path, JSON.stringify(queries)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(JSON.parse(out.trim()) as ProbeResult);
      else reject(new Error(`open probe (${mode}) exited with ${code}: ${err.trim()}`));
    });
  });
}

const MB = 1024 * 1024;

interface Series {
  readonly name: string;
  readonly unit: string;
  readonly points: [number, number][];
}

function series(name: string, unit: string): Series {
  return { name, unit, points: [] };
}

/** Cold opens: the median of `runs` fresh processes for each side. */
async function coldOpen(
  path: string,
  floorPath: string,
  runs: number,
): Promise<{ ours: number[]; raw: number[] }> {
  const ours: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push((await runProbe('hedgehop', path, [])).openMs);
    raw.push((await runProbe('raw', floorPath, [])).openMs);
  }
  return { ours, raw };
}

/** The scaling benchmark module. */
export const runScaling: BenchModule = async (options) => {
  const sizes = options.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000];
  const writes = options.quick ? 30 : 80;
  const recalls = options.quick ? 30 : 60;
  const { dir, cleanup } = tempDir('hedgehop-bench-scaling-');
  const path = join(dir, 'memory.db');
  const floorPath = join(dir, 'floor.db');
  const corpus = new SyntheticCorpus(5);
  const rows: BenchRow[] = [];
  const charts = {
    write: series('write: hedgehop appendArchive, full (median)', 'ms'),
    writeFloor: series('write: floor insert + FTS5, full (median)', 'ms'),
    writeNormal: series('write: hedgehop appendArchive, normal (median)', 'ms'),
    writeFloorNormal: series('write: floor insert + FTS5, normal (median)', 'ms'),
    recall50: series('recall: hedgehop p50', 'ms'),
    recall99: series('recall: hedgehop p99', 'ms'),
    floor50: series('recall: floor FTS5 p50', 'ms'),
    open: series('cold open: hedgehop openMemory', 'ms'),
    openRaw: series('cold open: better-sqlite3 open', 'ms'),
    rss: series('peak RSS: hedgehop recalling', 'MB'),
    rssRaw: series('peak RSS: floor FTS5 querying', 'MB'),
  };
  let stored = 0;
  const writeRatios: Record<'full' | 'normal', [number, number][]> = { full: [], normal: [] };
  try {
    for (const size of sizes) {
      options.log(`scaling: building ${size.toLocaleString('en')} records`);
      const built = await build(path, floorPath, corpus, stored, size);
      stored = size;
      rows.push(built.row);

      for (const durability of ['full', 'normal'] as const) {
        const write = await measureWrites(path, floorPath, corpus, writes, durability);
        stored += writes + 5;
        rows.push(
          ...ratioRows(
            'scaling',
            `appendArchive commit @${size} records, ${durability}`,
            write,
            'floor: the same text + FTS5, one commit, same durability',
          ),
        );
        const line = durability === 'full' ? charts.write : charts.writeNormal;
        line.points.push([size, median(write.subject)]);
        (durability === 'full' ? charts.writeFloor : charts.writeFloorNormal).points.push([
          size,
          median(write.baseline),
        ]);
        writeRatios[durability].push([size, median(write.subject) / median(write.baseline)]);
      }
      options.log(`scaling: recall and cold open @${size.toLocaleString('en')}`);
      const queries = Array.from({ length: recalls }, () => corpus.query());
      const recall = await measureRecall(path, floorPath, queries);
      rows.push(
        ...ratioRows('scaling', `recall @${size} records`, recall, 'floor: BM25 top 10 over the same texts'),
      );
      charts.recall50.points.push([size, median(recall.subject)]);
      charts.recall99.points.push([size, percentile(recall.subject, 99)]);
      charts.floor50.points.push([size, median(recall.baseline)]);

      const opens = await coldOpen(path, floorPath, options.quick ? 3 : 5);
      rows.push({
        bench: 'scaling',
        case: `cold open @${size} records`,
        metric: 'median',
        value: median(opens.ours),
        unit: 'ms',
        baseline: median(opens.raw),
        ratio: median(opens.ours) / median(opens.raw),
        note: `fresh process, OS page cache warm; baseline: better-sqlite3 open of the floor file${size === 1_000_000 ? '; target < 50 ms' : ''}`,
      });
      charts.open.points.push([size, median(opens.ours)]);
      charts.openRaw.points.push([size, median(opens.raw)]);

      const probeQueries = queries.slice(0, options.quick ? 10 : 20);
      const ours = await runProbe('hedgehop', path, probeQueries);
      const raw = await runProbe('raw', floorPath, probeQueries);
      rows.push({
        bench: 'scaling',
        case: `peak RSS recalling @${size} records`,
        metric: 'max RSS',
        value: ours.peakRssBytes / MB,
        unit: 'MB',
        baseline: raw.peakRssBytes / MB,
        ratio: ours.peakRssBytes / raw.peakRssBytes,
        note: `child process: open + ${probeQueries.length} recalls; node alone ≈ ${(ours.rssBeforeBytes / MB).toFixed(0)} MB${residentSplit(ours)}${size === 1_000_000 ? '; target < 200 MB' : ''}`,
      });
      charts.rss.points.push([size, ours.peakRssBytes / MB]);
      charts.rssRaw.points.push([size, raw.peakRssBytes / MB]);
      rows.push({
        bench: 'scaling',
        case: `file size @${size} records`,
        metric: 'bytes/record',
        value: built.fileBytes / size,
        unit: 'B',
        baseline: built.floorBytes / size,
        ratio: built.fileBytes / built.floorBytes,
        note: 'after checkpoint; floor: the same texts + FTS5',
      });
    }
    const span = `${sizes[0]} → ${sizes[sizes.length - 1]} records`;
    const growth = (points: readonly [number, number][]): number =>
      (points[points.length - 1]?.[1] ?? Number.NaN) / (points[0]?.[1] ?? Number.NaN);
    rows.push(
      {
        bench: 'scaling',
        case: `write cost flatness ${span}, normal`,
        metric: 'median ratio',
        value: growth(charts.writeNormal.points),
        unit: '×',
        note: 'appendArchive median at the largest size ÷ at the smallest, durability normal (no fsync noise); target ≈ 1',
      },
      {
        bench: 'scaling',
        case: `write cost flatness ${span}, relative to the floor`,
        metric: 'ratio of ratios',
        value: growth(writeRatios.full),
        unit: '×',
        note: 'ratio to the floor at the largest size ÷ at the smallest, durability full; target ≈ 1',
      },
    );
  } finally {
    cleanup();
  }
  return {
    name: 'scaling',
    rows,
    notes: [
      'Built through the public API only: durability normal, one turn per 10,000 records (search({ newScene: true }), appendArchiveMany of 10,000 240-character records, one utterance in ten and the rest tool-result events, update), the floor file receiving the same texts in transactions of 10,000.',
      'Write cost and recall are measured in this process, interleaved with the floor; cold open and peak RSS in fresh child processes (the OS page cache is warm: caches are not dropped on a shared machine).',
    ],
    series: Object.values(charts),
  };
};

/** Grows the file and the floor to `size` records; reports the load rate against the floor's. */
async function build(
  path: string,
  floorPath: string,
  corpus: SyntheticCorpus,
  from: number,
  size: number,
): Promise<{ row: BenchRow; fileBytes: number; floorBytes: number }> {
  const db = await openMemory(path, { durability: 'normal' });
  const floor = RawFloor.open(floorPath, 'normal');
  let ours = 0;
  let theirs = 0;
  // Alternate chunks between the two, so that machine noise hits both alike.
  for (let done = from; done < size; ) {
    const chunk = Math.min(10_000, size - done);
    const texts = Array.from({ length: chunk }, () => corpus.text(240));
    const started = process.hrtime.bigint();
    await appendTurn(db.primary(), texts, 1_800_000_000_000 + done);
    ours += Number(process.hrtime.bigint() - started) / 1e6;
    const floorStarted = process.hrtime.bigint();
    floor.insertMany(texts);
    theirs += Number(process.hrtime.bigint() - floorStarted) / 1e6;
    done += chunk;
  }
  await db.checkpoint();
  await db.close();
  floor.close();
  const count = size - from;
  const rate = count / (ours / 1000);
  const floorRate = count / (theirs / 1000);
  return {
    row: {
      bench: 'scaling',
      case: `bulk load ${from} → ${size} records`,
      metric: 'rate',
      value: rate,
      unit: 'records/s',
      baseline: floorRate,
      ratio: rate / floorRate,
      note: 'appendArchiveMany of 10,000 per turn, durability normal; floor: insertMany of 10,000',
    },
    fileBytes: statSync(path).size,
    floorBytes: statSync(floorPath).size + walSize(floorPath),
  };
}

function walSize(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

async function measureWrites(
  path: string,
  floorPath: string,
  corpus: SyntheticCorpus,
  iterations: number,
  durability: 'full' | 'normal',
): Promise<{ subject: number[]; baseline: number[] }> {
  const db = await openMemory(path, { durability });
  const floor = RawFloor.open(floorPath, durability);
  const agent = db.primary();
  try {
    await agent.search({ newScene: true });
    const texts = Array.from({ length: iterations + 5 }, () => corpus.text(240));
    const record = (i: number) => ({
      kind: 'utterance' as const,
      role: 'user' as const,
      content: texts[i] as string,
      createdAt: 1_900_000_000_000 + i,
    });
    for (let i = 0; i < 5; i++) {
      await agent.appendArchive(record(iterations + i));
      floor.insert(texts[iterations + i] as string);
    }
    const result = await compareInterleaved(
      iterations,
      (i) => agent.appendArchive(record(i)),
      (i) => floor.insert(texts[i] as string),
    );
    await agent.update({ createdAt: 1_900_000_000_000, outcome: 'measured' });
    return result;
  } finally {
    floor.close();
    await db.close();
  }
}

async function measureRecall(
  path: string,
  floorPath: string,
  queries: readonly string[],
): Promise<{ subject: number[]; baseline: number[] }> {
  const db = await openMemory(path);
  const floor = RawFloor.open(floorPath, 'full');
  const agent = db.primary();
  try {
    for (const query of queries.slice(0, 3)) {
      await agent.recall(query, { budgetTokens: 1000 });
      floor.query(query);
    }
    return await compareInterleaved(
      queries.length,
      (i) => agent.recall(queries[i] as string, { budgetTokens: 1000 }),
      (i) => floor.query(queries[i] as string, 10),
    );
  } finally {
    floor.close();
    await db.close();
  }
}
