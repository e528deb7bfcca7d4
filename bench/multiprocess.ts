/**
 * Several processes writing one file in shared mode: commit throughput and p99 latency with 1, 2
 * and 4 writer processes, as ratios to the single-process figure of the same run. The writer
 * driver ({@link writerRound}) is shared with the PostgreSQL engine's bench (bench/postgres.ts).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMemory } from '../src/index.js';
import { percentile, tempDir, type BenchModule, type BenchRow } from './harness.js';

const child = join(dirname(fileURLToPath(import.meta.url)), 'children', 'timed-writer.js');

/** What one writer process (bench/children/timed-writer.ts) reports. */
export interface WriterResult {
  readonly elapsedMs: number;
  readonly commits: number;
  readonly latencies: number[];
  /** The writer's CPU time (user + system) over its timed commits. */
  readonly cpuMs: number;
}

/** How each writer of a round commits. */
export interface WriterPlan {
  /** Commits each writer makes (ignored when `durationMs` is given). */
  readonly commits?: number;
  /** Each writer commits for this long instead of a fixed number of times. */
  readonly durationMs?: number;
  /** Untimed commits each writer makes before the round starts. */
  readonly warmup?: number;
  /** `own`: each writer is an agent of its own; `primary` (default): all write as the primary agent. */
  readonly agent?: 'own' | 'primary';
}

/** Commits per second of a round, and the latency of its commits. */
export interface RoundResult {
  readonly throughput: number;
  readonly p50: number;
  readonly p99: number;
  /** The writer processes' CPU time per commit (user + system, ms), start-up and warm-up left out. */
  readonly cpuPerCommitMs: number;
}

interface Writer {
  readonly ready: Promise<void>;
  readonly done: Promise<WriterResult>;
  go(): void;
}

function startWriter(path: string, prefix: string, plan: WriterPlan): Writer {
  const proc = spawn(
    process.execPath,
    [
      child,
      path,
      prefix,
      String(plan.commits ?? 100),
      String(plan.durationMs ?? 0),
      String(plan.warmup ?? 0),
      plan.agent ?? 'primary',
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  // A writer that died before the start signal would make the signal an EPIPE; its exit code says why.
  proc.stdin.on('error', () => undefined);
  const lines: string[] = [];
  let signalReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (signalReady = resolve));
  createInterface({ input: proc.stdout }).on('line', (line) => {
    if (line === 'ready') signalReady();
    else lines.push(line);
  });
  const done = new Promise<WriterResult>((resolve, reject) => {
    proc.on('exit', (code) => {
      if (code !== 0) reject(new Error(`writer ${prefix} exited with ${code}`));
      else resolve(JSON.parse(lines.join('').trim()) as WriterResult);
    });
  });
  return { ready: Promise.race([ready, done.then(() => undefined)]), done, go: () => proc.stdin.end('go\n') };
}

/**
 * Runs `writers` writer processes on the memory at `path` at once: each opens it, makes its
 * warm-up commits and reports ready; once all are, they are started together, so process start-up
 * and warm-up are outside the timing and the writers overlap for the whole round. The throughput
 * is all commits over the longest writer's own span (from the start signal to its last commit).
 */
export async function writerRound(path: string, writers: number, plan: WriterPlan): Promise<RoundResult> {
  const started = Array.from({ length: writers }, (_, i) => startWriter(path, `w${i}`, plan));
  try {
    await Promise.all(started.map((w) => w.ready));
  } finally {
    for (const writer of started) writer.go();
  }
  const results = await Promise.all(started.map((w) => w.done));
  const latencies = results.flatMap((r) => r.latencies);
  const span = Math.max(...results.map((r) => r.elapsedMs));
  const commits = results.reduce((sum, r) => sum + r.commits, 0);
  return {
    throughput: commits / (span / 1000),
    cpuPerCommitMs: results.reduce((sum, r) => sum + r.cpuMs, 0) / commits,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

async function round(writers: number, perWriter: number): Promise<RoundResult> {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'shared.db');
    const db = await openMemory(path);
    await db.close();
    return await writerRound(path, writers, { commits: perWriter });
  } finally {
    cleanup();
  }
}

/** A round's throughput and commit p99 as rows, with ratios to the single writer's round. */
export function scalingRows(
  bench: string,
  name: string,
  result: RoundResult,
  single: RoundResult,
  note?: string,
): BenchRow[] {
  return [
    {
      bench,
      case: name,
      metric: 'throughput',
      value: result.throughput,
      unit: 'commits/s',
      baseline: single.throughput,
      ratio: result.throughput / single.throughput,
      ...(note === undefined ? {} : { note }),
    },
    {
      bench,
      case: name,
      metric: 'commit p99',
      value: result.p99,
      unit: 'ms',
      baseline: single.p99,
      ratio: result.p99 / single.p99,
      note: `p50 ${result.p50.toFixed(2)} ms`,
    },
  ];
}

/** Shared-mode write scaling across processes. */
export const runMultiprocess: BenchModule = async (options) => {
  const perWriter = options.quick ? 60 : 300;
  const rows: BenchRow[] = [];
  const single = await round(1, perWriter);
  options.log(`multiprocess: 1 writer ${single.throughput.toFixed(0)} commits/s`);
  for (const writers of [1, 2, 4]) {
    const result = writers === 1 ? single : await round(writers, perWriter);
    options.log(
      `multiprocess: ${writers} writers ${result.throughput.toFixed(0)} commits/s, p99 ${result.p99.toFixed(2)} ms`,
    );
    rows.push(
      ...scalingRows(
        'multiprocess',
        `${writers} writer process(es), ${perWriter} commits each`,
        result,
        single,
      ),
    );
  }
  return {
    name: 'multiprocess',
    rows,
    notes: [
      'Each writer is a separate Node process committing radial tasks at durability full to one file in shared mode; SQLite serialises the commits (BEGIN IMMEDIATE + busy timeout).',
    ],
  };
};
