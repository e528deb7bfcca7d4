import type { Command } from 'commander';
import { evaluateLocomo, loadLocomo, LOCOMO_CATEGORIES, type LocomoReport } from '../../eval/locomo.js';
import { hedgehopLocomoSubject } from '../../eval/locomo-subject.js';
import { wholeNumber, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';

interface LocomoOptions {
  readonly data: string;
  readonly conversations?: string;
  readonly budgets: boolean;
}

function table(report: LocomoReport): string {
  const head = `${'category'.padEnd(14)} ${'n'.padStart(5)} ${'R@5'.padStart(6)} ${'R@10'.padStart(6)} ${'R@20'.padStart(6)} ${'NDCG@10'.padStart(8)}`;
  const row = (name: string, s: LocomoReport['overall']): string =>
    `${name.padEnd(14)} ${String(s.n).padStart(5)} ${s['recall@5'].toFixed(1).padStart(6)} ${s['recall@10'].toFixed(1).padStart(6)} ${s['recall@20'].toFixed(1).padStart(6)} ${s['ndcg@10'].toFixed(1).padStart(8)}`;
  return [
    `LoCoMo retrieval: ${report.conversations} conversations, ${report.questions} questions`,
    head,
    ...Object.values(LOCOMO_CATEGORIES).map((name) => row(name, report.categories[name])),
    row('overall (1-4)', report.overall),
    `evidence in context at 500 / 1000 / 2000 tokens: ${report.budget['500']}% / ${report.budget['1000']}% / ${report.budget['2000']}%`,
  ].join('\n');
}

/** `eval locomo --data <file>`. */
export function registerEval(program: Command, io: CliIO, run: RunCommand): void {
  const evaluate = program.command('eval').description('evaluations of retrieval quality');
  evaluate
    .command('locomo')
    .description(
      'the LoCoMo retrieval evaluation: Recall@k and NDCG@10 per category (each conversation in a temporary file)',
    )
    .requiredOption('--data <file>', 'the LoCoMo dataset (locomo10.json)')
    .option('--conversations <n>', 'only the first n conversations')
    .option('--no-budgets', 'skip the context-budget coverage figures (faster)')
    .action((options: LocomoOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const all = await loadLocomo(options.data);
        const limit = wholeNumber('conversations', options.conversations, 1);
        const conversations = limit === undefined ? all : all.slice(0, limit);
        const progress = ctx.progress('eval locomo');
        const report = await evaluateLocomo(conversations, hedgehopLocomoSubject(), {
          onProgress: (done, total) => progress.update(done, total),
          budgets: options.budgets,
        });
        progress.finish();
        ctx.output(report, () => table(report));
      }),
    );
}
