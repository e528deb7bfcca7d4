import type { Command } from 'commander';
import type { CliIO } from '../output.js';
import { CommandContext } from '../command-context.js';

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** `stats`, `check`, `checkpoint`, `compact`, `agents`. */
export function registerMaintenance(
  program: Command,
  io: CliIO,
  run: (fn: () => Promise<void>) => Promise<void>,
): void {
  program
    .command('stats')
    .description('file size, WAL size, live rows per layer and pending derived work')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const stats = await ctx.withMemory((db) => db.stats());
        ctx.output(stats, () => {
          const rows = Object.entries(stats.rows)
            .filter(([, n]) => n > 0)
            .map(([name, n]) => `  ${name.padEnd(16)} ${n}`);
          return [
            `${stats.path}`,
            `  file ${bytes(stats.fileBytes)}, WAL ${bytes(stats.walBytes)}, schema v${stats.schemaVersion}, ${stats.agents} agent(s)`,
            ...(rows.length > 0 ? rows : ['  (empty)']),
            `  pending: ${stats.pending.summaries} summaries, ${stats.pending.keywords} keyword sets, ${stats.pending.embeddings} embeddings`,
          ].join('\n');
        });
      }),
    );

  program
    .command('check')
    .description('verify the whole file (exit 4 and what was found if it is corrupt)')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const report = await ctx.withMemory((db) => db.check());
        ctx.output(report, () =>
          [
            `ok: ${report.checked.join(', ')}`,
            ...report.skipped.map((skip) => `skipped ${skip.check}: ${skip.reason}`),
          ].join('\n'),
        );
      }),
    );

  program
    .command('checkpoint')
    .description('copy the write-ahead log into the main file')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const result = await ctx.withMemory((db) => db.checkpoint());
        ctx.output(result, () => `checkpointed ${result.walFramesCheckpointed} WAL frames`);
      }),
    );

  program
    .command('compact')
    .description('write a defragmented copy of the file to a new path')
    .argument('<target>', 'path of the new file (must not exist)')
    .action((target: string, _options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const progress = ctx.progress('compact');
        progress.update(0, 1);
        const result = await ctx.withMemory((db) => db.compactTo(target));
        progress.update(1, 1);
        progress.finish();
        ctx.output(
          result,
          () => `wrote ${result.path}: ${bytes(result.bytesBefore)} -> ${bytes(result.bytesAfter)}`,
        );
      }),
    );

  program
    .command('agents')
    .description('list the agents of the file')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const agents = await ctx.withMemory((db) => db.agents());
        ctx.output(agents, () => agents.map((a) => `${a.primary ? '*' : ' '} ${a.name}`).join('\n'));
      }),
    );
}
