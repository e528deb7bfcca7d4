/**
 * Several processes writing one file in shared mode: commit throughput and p99 latency with 1, 2
 * and 4 writer processes, as ratios to the single-process figure of the same run.
 */
import { spawn } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMemory } from '../src/index.js';
import { percentile, tempDir, type BenchModule, type BenchRow } from './harness.js';

const child = join(dirname(fileURLToPath(import.meta.url)), 'children', 'timed-writer.js');

interface WriterResult {
  readonly elapsedMs: number;
  readonly latencies: number[];
}

function runWriter(path: string, prefix: string, count: number): Promise<WriterResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, path, prefix, String(count)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    proc.on('exit', (code) => {
      if (code !== 0) reject(new Error(`writer ${prefix} exited with ${code}`));
      else resolve(JSON.parse(out.trim()) as WriterResult);
    });
  });
}

async function round(
  writers: number,
  perWriter: number,
): Promise<{ throughput: number; p50: number; p99: number }> {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'shared.db');
    const db = await openMemory(path);
    await db.close();
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: writers }, (_, i) => runWriter(path, `w${i}`, perWriter)),
    );
    const wall = performance.now() - started;
    const startup = Math.max(...results.map((r) => wall - r.elapsedMs));
    const latencies = results.flatMap((r) => r.latencies);
    return {
      throughput: (writers * perWriter) / ((wall - Math.max(0, startup)) / 1000),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    cleanup();
  }
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
      {
        bench: 'multiprocess',
        case: `${writers} writer process(es), ${perWriter} commits each`,
        metric: 'throughput',
        value: result.throughput,
        unit: 'commits/s',
        baseline: single.throughput,
        ratio: result.throughput / single.throughput,
      },
      {
        bench: 'multiprocess',
        case: `${writers} writer process(es), ${perWriter} commits each`,
        metric: 'commit p99',
        value: result.p99,
        unit: 'ms',
        baseline: single.p99,
        ratio: result.p99 / single.p99,
        note: `p50 ${result.p50.toFixed(2)} ms`,
      },
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
