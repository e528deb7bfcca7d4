import type { Command } from 'commander';
import type { RecallHit } from '../../core/model/recall.js';
import { clip, collect, defined, timestamp, wholeNumber, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import type { CliIO } from '../output.js';

interface RecallCliOptions {
  readonly budget: string;
  readonly limit: string;
  readonly layer?: string[];
  readonly line?: string;
  readonly scene?: string;
  readonly from?: string;
  readonly to?: string;
}

function source(hit: RecallHit): string {
  const p = hit.provenance;
  if (p.layer === 'radial') return `radial ${p.lineId ?? ''} #${p.position ?? '?'}`;
  if (p.layer === 'archive') return `archive ${p.speaker ?? ''}`.trim();
  return p.layer;
}

/** `recall <query> --budget <tokens>`. */
export function registerRecall(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('recall')
    .description('recall what memory holds about a query: ranked hits and a context within a token budget')
    .argument('<query>', 'what to recall, in any language')
    .option('--budget <tokens>', 'token budget of the assembled context (0: hits only)', '1000')
    .option('--limit <n>', 'at most this many hits', '10')
    .option(
      '--layer <layer>',
      'only this layer: radial, topic, archive, knowledge, profile (repeatable)',
      collect,
    )
    .option('--line <id>', 'only this radial line')
    .option('--scene <id>', 'only this scene')
    .option('--from <time>', 'only records from this time (ms or ISO date)')
    .option('--to <time>', 'only records before this time (ms or ISO date)')
    .action((query: string, options: RecallCliOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const recallOptions = defined({
          budgetTokens: wholeNumber('budget', options.budget),
          limit: wholeNumber('limit', options.limit, 1),
          layers: options.layer as ('radial' | 'topic' | 'archive' | 'knowledge' | 'profile')[] | undefined,
          lineId: options.line,
          sceneId: options.scene,
          from: timestamp('from', options.from),
          to: timestamp('to', options.to),
        });
        const result = await ctx.withMemory(async (db) => (await ctx.agent(db)).recall(query, recallOptions));
        ctx.output(result, () =>
          [
            ctx.paint(
              'bold',
              `${result.hits.length} hits; context ${result.usedTokens}/${result.budgetTokens} tokens`,
            ),
            ...result.hits.map(
              (hit) =>
                `  ${hit.score.toFixed(2)}  words ${hit.confidence.toFixed(2)}  ${source(hit).padEnd(18)} ${clip(hit.preview, 80)}`,
            ),
            ...(result.context.length > 0 ? ['', result.context] : []),
          ].join('\n'),
        );
      }),
    );
}
