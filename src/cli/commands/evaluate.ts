import type { Command } from 'commander';
import { evaluateLocomo, formatLocomoReport, loadLocomo, locomoJson } from '../../eval/locomo.js';
import { hedgehopLocomoSubject } from '../../eval/locomo-subject.js';
import { wholeNumber, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';

interface LocomoOptions {
  readonly data: string;
  readonly conversations?: string;
  readonly budgets: boolean;
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
        ctx.output(
          locomoJson(report),
          () =>
            `LoCoMo retrieval: ${report.conversations} conversations, ${report.questions} questions\n${formatLocomoReport(report)}`,
        );
      }),
    );
}
