/**
 * Shared helpers for benchmarks. Every benchmark measures hedgehop and a baseline side by side
 * in the same process (the machines are shared and noisy), and reports ratios, medians and p99.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One figure of a benchmark. `ratio` is value / baseline value of the same run. */
export interface BenchRow {
  readonly bench: string;
  readonly case: string;
  readonly metric: string;
  readonly value: number;
  readonly unit: string;
  readonly baseline?: number;
  readonly ratio?: number;
  readonly note?: string;
}

/** What one benchmark module returns. */
export interface BenchReport {
  readonly name: string;
  readonly rows: readonly BenchRow[];
  readonly notes?: readonly string[];
  /** Optional series for charts: x = memory size, y = cost. */
  readonly series?: readonly {
    readonly name: string;
    readonly unit: string;
    readonly points: readonly [number, number][];
  }[];
}

/** Options every benchmark accepts. `quick` shrinks sizes for CI and smoke runs. */
export interface BenchOptions {
  readonly quick: boolean;
  readonly log: (line: string) => void;
}

/** A benchmark module. */
export type BenchModule = (options: BenchOptions) => Promise<BenchReport>;

/** Sorted-copy percentile (0..100), nearest rank. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export const median = (samples: readonly number[]): number => percentile(samples, 50);

/** Times `fn` `iterations` times; returns per-call milliseconds. */
export async function timeEach(iterations: number, fn: (i: number) => unknown): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

/**
 * The median of per-pair ratios `subject[i] / baseline[i]`. When each measured call is timed
 * right beside its own baseline call, a burst of load or a slow fsync on a shared machine moves
 * both halves of a pair, and the median of the pairs drops the pairs it hit; the ratio of two
 * medians mixes calls made under different load.
 */
export function pairedRatio(subject: readonly number[], baseline: readonly number[]): number {
  if (subject.length !== baseline.length) throw new Error('pairedRatio: samples must come in pairs');
  return median(subject.map((value, i) => value / (baseline[i] as number)));
}

/**
 * Interleaves the measured and the baseline call, so that noise from other processes hits
 * both alike; returns their medians and the ratio.
 */
export async function compareInterleaved(
  iterations: number,
  subject: (i: number) => unknown,
  baseline: (i: number) => unknown,
): Promise<{ subject: number[]; baseline: number[]; ratio: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < iterations; i++) {
    a.push(...(await timeEach(1, () => subject(i))));
    b.push(...(await timeEach(1, () => baseline(i))));
  }
  return { subject: a, baseline: b, ratio: median(a) / median(b) };
}

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix = 'hedgehop-bench-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A deterministic pseudo-random generator (mulberry32) for synthetic workloads. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Engineering words that synthetic workloads (radial, recall) draw their text from. */
export const ENGINEERING_WORDS: readonly string[] = (
  'cache invalidation token refresh login session cookie schema migration index query planner latency ' +
  'throughput queue worker retry backoff timeout deadline payment invoice ledger webhook signature ' +
  'tenant quota limit bucket shard replica failover snapshot backup restore checksum compression ' +
  'parser tokenizer grammar lexer renderer template layout viewport gesture scroll animation frame ' +
  'container image registry cluster node pod deployment rollout canary feature flag experiment metric ' +
  'dashboard alert pager incident postmortem runbook audit permission role policy secret vault key ' +
  'rotation certificate handshake proxy gateway router middleware handler controller service client ' +
  'adapter repository transaction isolation deadlock lock mutex semaphore channel stream buffer socket'
).split(' ');
