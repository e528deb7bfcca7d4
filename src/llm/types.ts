import type { z } from 'zod';
import type { DetailLevelName } from '../core/model/levels.js';

/** Tokens a model call consumed. */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Options shared by model calls. */
export interface GenerateOptions {
  readonly system?: string;
  readonly prompt: string;
  readonly maxOutputTokens?: number;
  readonly signal?: AbortSignal;
  /**
   * What the call is for (`summarize`, `distillKeywords`, …): adapters that meter usage count
   * calls and tokens under this name. Defaults to `generateText` / `generateObject`.
   */
  readonly operation?: string;
}

/**
 * A language model: text in, text or a schema-checked JSON object out. Small and versioned
 * (`specificationVersion`), so implementations outside hedgehop can be checked for fit.
 */
export interface LanguageModel {
  readonly specificationVersion: 'v1';
  /** e.g. `openai:gpt-4o-mini`, `offline`. */
  readonly modelId: string;
  generateText(options: GenerateOptions): Promise<{ text: string; usage: TokenUsage }>;
  generateObject<S extends z.ZodType>(
    options: GenerateOptions & { readonly schema: S; readonly schemaName?: string },
  ): Promise<{ object: z.output<S>; usage: TokenUsage }>;
}

/** Hints for one summary. */
export interface SummarizeContext {
  /** What the text is about (e.g. the task label); a summariser should keep what relates to it. */
  readonly hint?: string;
  /** Which level the summary is for. */
  readonly level?: DetailLevelName;
}

/** One utterance of a turn, for keyword distillation. */
export interface TurnUtterance {
  readonly role: 'user' | 'agent' | 'system' | 'dream';
  readonly content: string;
}

/** A topic offered to Dream's grouping stage. */
export interface TopicForGrouping {
  readonly id: string;
  readonly keywords: readonly string[];
  /** The topic's user/agent dialogue, when still held (used for reconstructions). */
  readonly text?: string;
}

/** A group of adjacent topics Dream may fuse. */
export interface TopicGroup {
  readonly topicIds: readonly string[];
  /** A reconstruction of the members (every member keyword kept). */
  readonly mergedSummary: string;
}

/** One engram node offered to profile distillation. */
export interface ProfileSample {
  readonly id: string;
  readonly importance: number;
  readonly keywords: readonly string[];
}

/** What profile distillation returns. MBTI letters are derived from the axes, never asked for. */
export interface ProfileDistillation {
  readonly emotion: { readonly valence: number; readonly arousal: number; readonly dominance: number };
  readonly mbti: { readonly i_e: number; readonly n_s: number; readonly t_f: number; readonly j_p: number };
  readonly personality: string;
  readonly perNode: readonly { readonly id: string; readonly valence: number; readonly arousal: number }[];
}

/**
 * Everything hedgehop asks of a model, as one interface. The offline default implements it
 * deterministically; `ModelSummarizer` implements it over any {@link LanguageModel}.
 * `summarize` must return at most `maxChars` code points.
 */
export interface Summarizer {
  readonly specificationVersion: 'v1';
  readonly id: string;
  summarize(text: string, maxChars: number, context?: SummarizeContext): Promise<string>;
  verifyMatch(query: string, summary: string): Promise<{ match: boolean; confidence: number }>;
  distillKeywords(utterances: readonly TurnUtterance[]): Promise<string[]>;
  groupTopics(
    topics: readonly TopicForGrouping[],
    options: { readonly target: number },
  ): Promise<TopicGroup[]>;
  distillProfile(samples: readonly ProfileSample[]): Promise<ProfileDistillation>;
}

/** Turns texts into vectors. The model id and dimension are stored in the file. */
export interface Embedder {
  readonly specificationVersion: 'v1';
  readonly modelId: string;
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}
