import { oneLine } from '../core/text.js';
import { fitWords } from './fit-text.js';
import { LanguageModelError } from './language-model-error.js';
import { appendMissingKeywords } from './topic-grouping.js';
import { contentTerms, tokenize } from '../core/text-analysis.js';
import type {
  ProfileDistillation,
  ProfileSample,
  SummarizeContext,
  Summarizer,
  TopicForGrouping,
  TopicGroup,
  TurnUtterance,
} from './types.js';

/** The operations of a {@link Summarizer}, for {@link MockSummarizer.failing}. */
export type SummarizerOperation =
  | 'summarize'
  | 'verifyMatch'
  | 'distillKeywords'
  | 'groupTopics'
  | 'distillProfile';

/**
 * A predictable {@link Summarizer} for tests: `summarize` keeps the head of the text (cut at a
 * word, within budget), `verifyMatch` is the share of query words present, `distillKeywords`
 * lists distinct content words, `groupTopics` fuses adjacent topics sharing a keyword.
 * Set `failing` to make operations reject with `LLM_FAILED`, to test what happens when a model
 * is down. Every call is recorded in `calls`.
 *
 * @example
 * ```ts
 * const summarizer = new MockSummarizer();
 * summarizer.failing = new Set(['distillKeywords']); // keywords stay pending
 * ```
 */
export class MockSummarizer implements Summarizer {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'mock';
  /** Operations that reject with `LLM_FAILED`: `true` for all. */
  failing: boolean | ReadonlySet<SummarizerOperation> = false;
  readonly calls: { readonly operation: SummarizerOperation; readonly args: readonly unknown[] }[] = [];

  summarize(text: string, maxChars: number, context: SummarizeContext = {}): Promise<string> {
    return this.#run('summarize', [text, maxChars, context], () => {
      const line = oneLine(text);
      return fitWords(line.length > 0 ? line : oneLine(context.hint ?? ''), maxChars);
    });
  }

  verifyMatch(query: string, summary: string): Promise<{ match: boolean; confidence: number }> {
    return this.#run('verifyMatch', [query, summary], () => {
      const wanted = contentTerms(query);
      if (wanted.size === 0) return { match: false, confidence: 0 };
      const present = contentTerms(summary);
      const confidence =
        Math.round(([...wanted].filter((t) => present.has(t)).length / wanted.size) * 1000) / 1000;
      return { match: confidence >= 0.5, confidence };
    });
  }

  distillKeywords(utterances: readonly TurnUtterance[]): Promise<string[]> {
    return this.#run('distillKeywords', [utterances], () => {
      const words = utterances.flatMap((u) => tokenize(u.content).filter((t) => !t.stop));
      return [...new Set(words.map((t) => t.surface.toLowerCase()))];
    });
  }

  groupTopics(
    topics: readonly TopicForGrouping[],
    options: { readonly target: number },
  ): Promise<TopicGroup[]> {
    return this.#run('groupTopics', [topics, options], () => {
      const groups: TopicForGrouping[][] = [];
      for (const topic of topics) {
        const last = groups[groups.length - 1];
        const previous = last?.[last.length - 1];
        const shares = previous?.keywords.some((k) => topic.keywords.includes(k)) ?? false;
        if (last && shares) last.push(topic);
        else groups.push([topic]);
      }
      return groups
        .filter((g) => g.length > 1)
        .map((g) => ({ topicIds: g.map((t) => t.id), mergedSummary: appendMissingKeywords('', g) }));
    });
  }

  distillProfile(samples: readonly ProfileSample[]): Promise<ProfileDistillation> {
    return this.#run('distillProfile', [samples], () => ({
      emotion: { valence: 0.5, arousal: 0, dominance: 0.5 },
      mbti: { i_e: 0, n_s: 0, t_f: 0, j_p: 0 },
      personality: '',
      perNode: [],
    }));
  }

  #run<T>(operation: SummarizerOperation, args: readonly unknown[], body: () => T): Promise<T> {
    this.calls.push({ operation, args });
    const fails = this.failing === true || (this.failing !== false && this.failing.has(operation));
    if (fails) return Promise.reject(new LanguageModelError('unknown', `mock: ${operation} is set to fail`));
    return Promise.resolve(body());
  }
}
