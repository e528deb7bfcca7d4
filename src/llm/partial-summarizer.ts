import { z } from 'zod';
import { HedgehopError } from '../core/errors.js';
import { fitWords } from './fit-text.js';
import type {
  ProfileDistillation,
  ProfileSample,
  SummarizeContext,
  Summarizer,
  TopicForGrouping,
  TopicGroup,
  TurnUtterance,
} from './types.js';

/** What a custom `verifyMatch` may answer: HedgehogMemory's `[isMatch, confidence]` tuple, or an object. */
export type MatchVerdict =
  | readonly [match: boolean, confidence: number]
  | { readonly match: boolean; readonly confidence: number };

/**
 * A summariser with only some of the {@link Summarizer} operations, e.g. one ported from
 * HedgehogMemory's `BaseSummarizer` (`summarize` and `verify_match`). `summarize` is required;
 * each operation left out is done by the fallback (the offline summariser, or the model given
 * as `llm`). Methods may be synchronous.
 *
 * @example
 * ```ts
 * const db = await openMemory('memory.db', {
 *   summarizer: {
 *     summarize: (text, maxChars, context) => myModel.compress(text, maxChars, context.hint),
 *     verifyMatch: (query, summary) => [summary.includes(query), 0.9], // a tuple, as in Python
 *   },
 * });
 * ```
 */
export interface PartialSummarizer {
  readonly id?: string;
  summarize(text: string, maxChars: number, context: SummarizeContext): string | Promise<string>;
  verifyMatch?(query: string, summary: string): MatchVerdict | Promise<MatchVerdict>;
  distillKeywords?(utterances: readonly TurnUtterance[]): string[] | Promise<string[]>;
  groupTopics?(
    topics: readonly TopicForGrouping[],
    options: { readonly target: number },
  ): TopicGroup[] | Promise<TopicGroup[]>;
  distillProfile?(samples: readonly ProfileSample[]): ProfileDistillation | Promise<ProfileDistillation>;
}

const OPERATIONS = ['summarize', 'verifyMatch', 'distillKeywords', 'groupTopics', 'distillProfile'] as const;

const verdictSchema = z.union([
  z.tuple([z.boolean(), z.number().finite()]),
  z.object({ match: z.boolean(), confidence: z.number().finite() }),
]);

/** True when `value` implements every {@link Summarizer} operation (and is versioned). */
function isCompleteSummarizer(value: object): value is Summarizer {
  const record = value as Record<string, unknown>;
  return (
    record['specificationVersion'] === 'v1' &&
    typeof record['id'] === 'string' &&
    OPERATIONS.every((name) => typeof record[name] === 'function')
  );
}

function badReply(operation: string, message: string, cause?: unknown): HedgehopError {
  return new HedgehopError('LLM_FAILED', `custom summarizer: ${operation} ${message}`, { cause });
}

/**
 * Normalises a verdict (tuple or object) to `{ match, confidence }`, the confidence clamped to
 * 0..1. Anything else is `LLM_FAILED`.
 */
export function normalizeVerdict(value: unknown): { match: boolean; confidence: number } {
  const parsed = verdictSchema.safeParse(value);
  if (!parsed.success)
    throw badReply('verifyMatch', 'must return [boolean, number] or { match, confidence }', parsed.error);
  const [match, confidence] = Array.isArray(parsed.data)
    ? parsed.data
    : [parsed.data.match, parsed.data.confidence];
  return { match, confidence: Math.min(1, Math.max(0, confidence)) };
}

/**
 * A complete {@link Summarizer} made of a {@link PartialSummarizer} and a fallback for every
 * operation it leaves out. Its `summarize` result is checked (a string) and cut to the budget
 * at a word boundary, so a custom summariser that overshoots never breaks a level's cap.
 */
export class CustomSummarizer implements Summarizer {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  readonly #custom: PartialSummarizer;
  readonly #fallback: Summarizer;

  constructor(custom: PartialSummarizer, fallback: Summarizer) {
    this.#custom = custom;
    this.#fallback = fallback;
    this.id = typeof custom.id === 'string' && custom.id.length > 0 ? custom.id : `custom+${fallback.id}`;
  }

  /** True unless `verifyMatch` falls back to the offline word-overlap check. */
  get verifiesWithModel(): boolean {
    return this.#custom.verifyMatch !== undefined || this.#fallback.id !== 'offline';
  }

  /** Which operations the fallback does (for reports and tests). */
  get fallbackOperations(): string[] {
    const record = this.#custom as unknown as Record<string, unknown>;
    return OPERATIONS.filter((name) => typeof record[name] !== 'function');
  }

  async summarize(text: string, maxChars: number, context: SummarizeContext = {}): Promise<string> {
    const summary: unknown = await this.#custom.summarize(text, maxChars, context);
    if (typeof summary !== 'string') throw badReply('summarize', `returned ${typeof summary}, not a string`);
    return fitWords(summary.trim(), maxChars);
  }

  async verifyMatch(query: string, summary: string): Promise<{ match: boolean; confidence: number }> {
    if (!this.#custom.verifyMatch) return this.#fallback.verifyMatch(query, summary);
    return normalizeVerdict(await this.#custom.verifyMatch(query, summary));
  }

  async distillKeywords(utterances: readonly TurnUtterance[]): Promise<string[]> {
    if (!this.#custom.distillKeywords) return this.#fallback.distillKeywords(utterances);
    const keywords: unknown = await this.#custom.distillKeywords(utterances);
    const parsed = z.array(z.string()).safeParse(keywords);
    if (!parsed.success) throw badReply('distillKeywords', 'must return an array of strings', parsed.error);
    return parsed.data;
  }

  async groupTopics(
    topics: readonly TopicForGrouping[],
    options: { readonly target: number },
  ): Promise<TopicGroup[]> {
    if (!this.#custom.groupTopics) return this.#fallback.groupTopics(topics, options);
    return this.#custom.groupTopics(topics, options);
  }

  async distillProfile(samples: readonly ProfileSample[]): Promise<ProfileDistillation> {
    if (!this.#custom.distillProfile) return this.#fallback.distillProfile(samples);
    return this.#custom.distillProfile(samples);
  }
}

/**
 * The summariser to use: a complete one as given, a partial one completed by `fallback`.
 */
export function completeSummarizer(
  given: Summarizer | PartialSummarizer,
  fallback: () => Summarizer,
): Summarizer {
  return isCompleteSummarizer(given) ? given : new CustomSummarizer(given, fallback());
}

/**
 * True when the summariser's `verifyMatch` judges meaning (a model, or a custom one), false
 * when it is the offline word-overlap check, which can never confirm a node that shares no
 * word with the query.
 */
export function verifiesWithModel(summarizer: Summarizer): boolean {
  if (summarizer instanceof CustomSummarizer) return summarizer.verifiesWithModel;
  return summarizer.id !== 'offline';
}
