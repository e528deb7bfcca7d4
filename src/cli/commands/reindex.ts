import type { Command } from 'commander';
// The rebuild lives in the recall layer and is not on the public API yet; the CLI, being the
// entry point, calls it on the open file's store.
import type { RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';

/** `reindex`: rebuild the recall index from the verbatim records. */
export function registerReindex(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('reindex')
    .description('rebuild the recall index (every agent, every layer) from the verbatim records')
    .action((_options, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const progress = ctx.progress('reindex');
        const report = await ctx.withMemory((db) =>
          db.reindex({ onProgress: ({ done, total }) => progress.update(done, total) }),
        );
        progress.finish();
        const rows = Object.values(report.rows).reduce((sum, n) => sum + n, 0);
        ctx.output(
          report,
          () =>
            `rebuilt ${rows} index rows (${Object.entries(report.rows)
              .map(([layer, n]) => `${layer} ${n}`)
              .join(', ')}) in ${report.ms} ms`,
        );
      }),
    );
}
