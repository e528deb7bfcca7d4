import { z } from 'zod';
import { codePointLength, oneLine } from '../core/text.js';
import { parseInput } from '../core/validate.js';
import { budgetOf, extractiveSummary, levelForBudget } from './extractive-summary.js';
import { isOneLineLevel } from '../core/model/levels.js';
import { fitWords } from './fit-text.js';
import { clamp, normalizeDistillation } from './profile-distillation.js';
import { HedgehopError } from '../core/errors.js';
import { LanguageModelError } from './language-model-error.js';
import { heuristicProfile } from './profile-heuristics.js';
import {
  formatReminder,
  groupTopicsPrompt,
  keywordsPrompt,
  keywordsSchema,
  matchSchema,
  profilePrompt,
  profileSchema,
  summarizePrompt,
  summarySchema,
  topicGroupsSchema,
  verifyMatchPrompt,
  type Prompt,
} from './prompts.js';
import { chunkText } from './chunk-text.js';
import { appendMissingKeywords } from './topic-grouping.js';
import { UsageMeter } from './usage-meter.js';
import type {
  LanguageModel,
  ProfileDistillation,
  ProfileSample,
  SummarizeContext,
  Summarizer,
  TokenUsage,
  TopicForGrouping,
  TopicGroup,
  TurnUtterance,
} from './types.js';

/** Options of {@link ModelSummarizer}. */
export interface ModelSummarizerOptions {
  /**
   * How many times a call whose reply is unusable (not JSON, wrong shape, empty) is asked
   * again, with a format reminder, before `LLM_FAILED`. Default 2 (so at most 3 calls).
   * Transport failures are not retried here: the adapter has its own bounded retries.
   */
  readonly outputRetries?: number;
  /**
   * Texts longer than this (code points) are first cut down extractively, offline, so a
   * huge input never overflows the model's context. Default 24 000.
   */
  readonly maxInputChars?: number;
  /** Keyword extraction works on pieces of at most this many code points. Default 2000. */
  readonly keywordChunkChars?: number;
  /** Where call and token counts go (one is created when omitted); read it as `summarizer.usage`. */
  readonly usage?: UsageMeter;
  /** Aborts every call made by this summariser (e.g. on shutdown). */
  readonly signal?: AbortSignal;
}

const optionsSchema = z.strictObject({
  outputRetries: z.number().int().min(0).max(10).default(2),
  maxInputChars: z.number().int().min(200).default(24_000),
  keywordChunkChars: z.number().int().min(100).default(2000),
  usage: z.instanceof(UsageMeter).optional(),
  signal: z.instanceof(AbortSignal).optional(),
});

/**
 * A {@link Summarizer} over any {@link LanguageModel}: each operation is one prompt (see
 * `prompts.ts`) asking for JSON, checked with zod. An unusable reply is asked for again a
 * bounded number of times; then, like any transport failure, the call rejects with a
 * `HedgehopError` whose code is `LLM_FAILED` (a {@link LanguageModelError}). Summaries are cut
 * to the budget when the model overshoots, at a word boundary.
 *
 * Nothing is sent to the model when it is not needed: empty input, a text that already fits
 * its budget, fewer than two topics, no profile samples.
 *
 * @example
 * ```ts
 * const model = createOpenAICompatible({ baseURL: 'http://localhost:11434/v1', model: 'llama3.2' });
 * const summarizer = new ModelSummarizer(model, { outputRetries: 1 });
 * const db = await openMemory('agent.db', { summarizer });
 * console.log(summarizer.usage.snapshot());
 * ```
 */
export class ModelSummarizer implements Summarizer {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  /** Calls, failures and tokens per operation. */
  readonly usage: UsageMeter;
  readonly #options: z.output<typeof optionsSchema>;

  constructor(
    readonly model: LanguageModel,
    options: ModelSummarizerOptions = {},
  ) {
    this.#options = parseInput(optionsSchema, options, 'ModelSummarizer.options');
    this.usage = this.#options.usage ?? new UsageMeter();
    this.id = `model:${model.modelId}`;
  }

  async summarize(text: string, maxChars: number, context: SummarizeContext = {}): Promise<string> {
    const max = budgetOf(maxChars);
    const level = context.level ?? levelForBudget(max);
    const prepared = isOneLineLevel(level) ? oneLine(text) : text.trim();
    if (prepared.length === 0 || codePointLength(prepared) <= max) {
      return extractiveSummary(text, max, { hint: context.hint, level });
    }
    const input = extractiveSummary(prepared, this.#options.maxInputChars, { hint: context.hint, level });
    const reply = await this.#ask(
      'summarize',
      summarizePrompt(input, max, { hint: context.hint, level }),
      summarySchema,
    );
    const summary = isOneLineLevel(level) ? oneLine(reply.summary) : reply.summary.trim();
    return fitWords(summary, max);
  }

  async verifyMatch(query: string, summary: string): Promise<{ match: boolean; confidence: number }> {
    if (query.trim().length === 0) return { match: false, confidence: 0 };
    const reply = await this.#ask('verifyMatch', verifyMatchPrompt(query, summary), matchSchema);
    return { match: reply.match, confidence: clamp(reply.confidence, 0, 1) };
  }

  async distillKeywords(utterances: readonly TurnUtterance[]): Promise<string[]> {
    const text = utterances
      .map((u) => u.content.trim())
      .filter((t) => t.length > 0)
      .join('\n');
    if (text.length === 0) return [];
    const keywords: string[] = [];
    const chunks = chunkText(text, this.#options.keywordChunkChars);
    for (const [i, chunk] of chunks.entries()) {
      const what = chunks.length > 1 ? `distillKeywords (chunk ${i + 1} of ${chunks.length})` : undefined;
      const reply = await this.#ask('distillKeywords', keywordsPrompt(chunk), keywordsSchema, what);
      keywords.push(...reply.keywords.map((k) => String(k).trim()));
    }
    return [...new Set(keywords.filter((k) => k.length > 0))];
  }

  async groupTopics(
    topics: readonly TopicForGrouping[],
    options: { readonly target: number },
  ): Promise<TopicGroup[]> {
    if (topics.length < 2) return [];
    const reply = await this.#ask(
      'groupTopics',
      groupTopicsPrompt(topics, options.target),
      topicGroupsSchema,
    );
    return acceptGroups(
      topics,
      reply.groups.map((g) => ({ topicIds: g.topic_ids, mergedSummary: g.merged_summary })),
    );
  }

  async distillProfile(samples: readonly ProfileSample[]): Promise<ProfileDistillation> {
    if (samples.length === 0) return heuristicProfile([]);
    const reply = await this.#ask('distillProfile', profilePrompt(samples), profileSchema);
    // The model's wire shape names its per-scene rows per_node.
    return normalizeDistillation({ ...reply, perNode: reply.per_node }, new Set(samples.map((s) => s.id)));
  }

  /** One JSON call with bounded retries on unusable output; every failure becomes `LLM_FAILED`. */
  async #ask<S extends z.ZodType>(
    operation: string,
    prompt: Prompt,
    schema: S,
    what = operation,
  ): Promise<z.output<S>> {
    const attempts = this.#options.outputRetries + 1;
    let problem: string | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const user = problem === undefined ? prompt.prompt : prompt.prompt + formatReminder(problem);
      try {
        const { object, usage } = await this.model.generateObject({
          system: prompt.system,
          prompt: user,
          schema,
          schemaName: operation,
          operation,
          ...(prompt.maxOutputTokens === undefined ? {} : { maxOutputTokens: prompt.maxOutputTokens }),
          ...(this.#options.signal ? { signal: this.#options.signal } : {}),
        });
        this.usage.recordCall(operation, usage);
        return object;
      } catch (error) {
        this.usage.recordFailure(operation, usageOf(error));
        if (!isInvalidOutput(error)) throw withContext(error, what, attempt);
        problem = describe(error);
      }
    }
    throw new LanguageModelError(
      'invalid-output',
      `${what}: no usable reply after ${attempts} attempts (${problem ?? ''})`,
      {
        attempts,
      },
    );
  }
}

function isInvalidOutput(error: unknown): boolean {
  if (LanguageModelError.isLanguageModelError(error)) return error.reason === 'invalid-output';
  return error instanceof z.ZodError || error instanceof SyntaxError;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return oneLine(message).slice(0, 200);
}

function usageOf(error: unknown): TokenUsage | undefined {
  return LanguageModelError.isLanguageModelError(error) ? error.usage : undefined;
}

/** Every failure leaves as `LLM_FAILED` (a {@link LanguageModelError}) naming the operation. */
function withContext(error: unknown, what: string, attempt: number): LanguageModelError {
  if (LanguageModelError.isLanguageModelError(error)) {
    return new LanguageModelError(error.reason, `${what}: ${error.message}`, {
      cause: error,
      status: error.status,
      attempts: error.attempts,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = HedgehopError.isInstance(error) && error.code !== 'LLM_FAILED' ? ` [${error.code}]` : '';
  return new LanguageModelError('unknown', `${what}: ${message}${code}`, { cause: error, attempts: attempt });
}

/**
 * Keeps the groups that obey the contract: known ids, each used once, members adjacent in the
 * order given, at least two of them. Every member keyword missing from a reconstruction is
 * appended to it, so the fusion loses nothing searchable.
 */
function acceptGroups(topics: readonly TopicForGrouping[], groups: readonly TopicGroup[]): TopicGroup[] {
  const position = new Map(topics.map((topic, i) => [topic.id, i]));
  const used = new Set<string>();
  const accepted: TopicGroup[] = [];
  for (const group of groups) {
    const ids = [...new Set(group.topicIds)];
    const at = ids.map((id) => position.get(id));
    if (ids.length < 2 || at.some((p) => p === undefined) || ids.some((id) => used.has(id))) continue;
    const sorted = (at as number[]).sort((a, b) => a - b);
    if (sorted.some((p, i) => i > 0 && p !== sorted[i - 1]! + 1)) continue;
    const members = sorted.map((p) => topics[p]!);
    for (const member of members) used.add(member.id);
    accepted.push({
      topicIds: members.map((m) => m.id),
      mergedSummary: appendMissingKeywords(group.mergedSummary, members),
    });
  }
  return accepted;
}
