import type { Command } from 'commander';
import type { DreamReport } from '../../core/model/dream.js';
import { wholeNumber, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';

function changes(changed: Readonly<Record<string, number>>): string {
  const parts = Object.entries(changed)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`);
  return parts.length > 0 ? parts.join(', ') : 'no changes';
}

/** The human lines of a Dream report: its outcome, then one line per stage. */
export function describeDream(report: DreamReport): string {
  return [
    `dream ${report.id}: ${report.status} in ${report.durationMs} ms (${report.modelCalls} model calls, applied in ${report.applyMs} ms)`,
    ...report.stages.map(
      (s) => `  ${s.name.padEnd(10)} ${s.status.padEnd(9)} ${s.reason ?? changes(s.changed)}`,
    ),
    ...report.errors.map((e) => `  error: ${e}`),
  ].join('\n');
}

/** `dream`, `dream history`, `dream undo`. */
export function registerDream(program: Command, io: CliIO, run: RunCommand): void {
  const dream = program
    .command('dream')
    .description('consolidate memory now: fill pending summaries, fuse related turns, rebuild the engram')
    .option('--scene <id>', 'compress only this scene')
    .action((options: { scene?: string }, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const progress = ctx.progress('dream');
        progress.update(0, 1);
        const report = await ctx.withMemory(async (db) => (await ctx.agent(db)).dream(options.scene));
        progress.update(1, 1);
        progress.finish();
        ctx.output(report, () => describeDream(report));
      }),
    );
  dream
    .command('history')
    .description('the Dream passes of the agent, newest first')
    .option('--limit <n>', 'at most this many', '20')
    .action((options: { limit: string }, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const limit = wholeNumber('limit', options.limit, 1) as number;
        const reports = await ctx.withMemory(async (db) => (await ctx.agent(db)).dreamHistory({ limit }));
        ctx.output(reports, () =>
          reports.length === 0
            ? '(no Dream passes yet)'
            : reports
                .map(
                  (r) =>
                    `${r.id}  ${new Date(r.startedAt).toISOString()}  ${r.status}${r.undoneAt ? ' (undone)' : ''}`,
                )
                .join('\n'),
        );
      }),
    );
  dream
    .command('undo')
    .description('put back everything a Dream pass changed')
    .argument('<id>', 'the pass (see dream history)')
    .action((id: string, _options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const report = await ctx.withMemory(async (db) => (await ctx.agent(db)).undoDream(id));
        ctx.output(report, () => `undid dream ${report.id}`);
      }),
    );
}
