import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { HedgehopError } from '../../core/errors.js';
import { collect, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';

/**
 * What `dist/bench/run.js` must export for `hedgehop bench` to exist: one function running the
 * selected benchmark modules and returning their reports (see bench/harness.ts). Until the file
 * is built, the command is not registered at all.
 */
interface BenchRunnerModule {
  runBenchmarks(options: {
    readonly quick: boolean;
    readonly only?: readonly string[];
    readonly log: (line: string) => void;
    readonly onProgress?: (done: number, total: number) => void;
  }): Promise<unknown>;
  /** Optional: renders the runner's result as text for a terminal. */
  formatBenchmarks?(result: unknown): string;
}

/** `dist/bench/run.js`, beside the built CLI (`dist/src/cli/commands/`). */
const RUNNER = new URL('../../../bench/run.js', import.meta.url);

async function loadRunner(): Promise<BenchRunnerModule> {
  const module = (await import(RUNNER.href)) as Partial<BenchRunnerModule>;
  if (typeof module.runBenchmarks !== 'function') {
    throw new HedgehopError('IO', `${fileURLToPath(RUNNER)} does not export runBenchmarks(options)`);
  }
  return module as BenchRunnerModule;
}

interface BenchOptions {
  readonly quick?: boolean;
  readonly only?: string[];
}

/** `bench`, when the benchmark runner has been built. */
export function registerBench(program: Command, io: CliIO, run: RunCommand): void {
  if (!existsSync(fileURLToPath(RUNNER))) return;
  program
    .command('bench')
    .description('run the benchmarks (ratios against baselines measured in the same run)')
    .option('--quick', 'smaller sizes, for a smoke run')
    .option('--only <name>', 'only this benchmark (repeatable)', collect)
    .action((options: BenchOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const runner = await loadRunner();
        const progress = ctx.progress('bench');
        const result = await runner.runBenchmarks({
          quick: options.quick === true,
          ...(options.only === undefined ? {} : { only: options.only }),
          log: (line) => {
            if (!ctx.json) io.stderr.write(`${line}\n`);
          },
          onProgress: (done, total) => progress.update(done, total),
        });
        progress.finish();
        ctx.output(result, () =>
          runner.formatBenchmarks ? runner.formatBenchmarks(result) : JSON.stringify(result, null, 2),
        );
        // A module that failed fails the command, after what did run has been printed.
        const failures = (result as { failures?: readonly { name: string }[] }).failures ?? [];
        if (failures.length > 0) {
          throw new HedgehopError(
            'IO',
            `benchmark module(s) failed: ${failures.map((f) => f.name).join(', ')}`,
          );
        }
      }),
    );
}
