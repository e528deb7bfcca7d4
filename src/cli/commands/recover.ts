import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { recoverMemory, type RecoverReport } from '../../api/recover.js';
import { HedgehopError } from '../../core/errors.js';
import type { RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

function formatSpans(spans: RecoverReport['tables'][number]['unreadable']): string {
  if (spans.length === 0) return '-';
  const shown = spans.slice(0, 3).map((s) => (s.from === s.to ? `${s.from}` : `${s.from}..${s.to}`));
  return `rowids ${shown.join(', ')}${spans.length > 3 ? ` (+${spans.length - 3} more)` : ''}`;
}

/** The human report: one line per table, kept and unreadable. */
function human(report: RecoverReport): string {
  const width = Math.max(5, ...report.tables.map((t) => t.table.length));
  const lines = [
    `recovered ${report.from} into ${report.to}`,
    `${'table'.padEnd(width)}  ${'kept'.padStart(7)}  unreadable`,
  ];
  for (const t of report.tables) {
    const notes = [
      formatSpans(t.unreadable),
      ...(t.truncated ? ['(rest of the table unreadable)'] : []),
      ...(t.rejected > 0 ? [`${t.rejected} refused by the schema`] : []),
      ...(t.orphaned > 0 ? [`${t.orphaned} dropped (parent lost)`] : []),
    ];
    lines.push(`${t.table.padEnd(width)}  ${String(t.kept).padStart(7)}  ${notes.join('; ')}`);
  }
  const indexRows = Object.values(report.reindex.rows).reduce((sum, n) => sum + n, 0);
  lines.push(`rebuilt ${report.rebuilt.join(', ')} (${indexRows} index rows); the new file passes check`);
  return lines.join('\n');
}

/** `recover <damaged> --out <new>`: salvage every readable row into a new file. */
export function registerRecover(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('recover')
    .description(
      'copy every readable row of a damaged memory file into a new file and rebuild its recall index',
    )
    .argument('<damaged>', 'the damaged memory file (opened read-only, never changed)')
    .requiredOption('--out <file>', 'the new file to write (must not exist)')
    .action((damaged: string, options: { out: string }, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const out = resolve(options.out);
        if (options.out.length === 0)
          throw new HedgehopError('INVALID_INPUT', '--out: must not be empty', { field: '--out' });
        if (sameFile(resolve(damaged), out))
          throw new HedgehopError(
            'INVALID_INPUT',
            `--out: ${out} is the damaged file itself; name a new file`,
            {
              field: '--out',
            },
          );
        if (existsSync(out))
          throw new HedgehopError(
            'INVALID_INPUT',
            `--out: ${out} already exists; recover writes only a new file`,
            {
              field: '--out',
            },
          );
        const busy = ctx.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: ctx.busyTimeoutMs };
        const report = await recoverMemory(damaged, out, busy);
        ctx.output(report, () => human(report));
      }),
    );
}
