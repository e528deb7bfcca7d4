import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { parseInput } from '../core/validate.js';
import type { PartialSummarizer } from '../llm/partial-summarizer.js';
import type { Embedder, LanguageModel, Summarizer } from '../llm/types.js';

const hasMethods =
  (...names: string[]) =>
  (value: unknown): boolean =>
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

/** A profile to seed when the file has none (host-owned fields only). */
export const profileInputSchema = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(256, 'at most 256 characters').optional(),
  role: z.string().max(4096, 'at most 4096 characters').optional(),
  personality: z.string().max(4096, 'at most 4096 characters').optional(),
  preferences: z.record(z.string().max(256), z.string().max(4096)).optional(),
});

/** What a profile update may carry; a field left out keeps its stored value. */
export type ProfileInput = z.input<typeof profileInputSchema>;

export const openOptionsSchema = z.strictObject({
  profile: profileInputSchema.optional(),
  llm: z
    .custom<LanguageModel>(hasMethods('generateText', 'generateObject'), {
      message: 'must be a LanguageModel (generateText and generateObject)',
    })
    .optional(),
  summarizer: z
    .custom<Summarizer | PartialSummarizer>(hasMethods('summarize'), {
      message:
        'must be a Summarizer: at least summarize(text, maxChars, context); the operations it leaves out are done by the model given as llm, or offline',
    })
    .optional(),
  embedder: z
    .custom<Embedder>(hasMethods('embed'), { message: 'must be an Embedder (embed(texts))' })
    .optional(),
  durability: z.enum(['full', 'normal']).default('full'),
  mode: z.enum(['shared', 'exclusive']).default('shared'),
  busyTimeoutMs: z.number().int().min(0).max(600_000).default(5000),
  readOnly: z.boolean().default(false),
  retention: z
    .union([z.literal(false), z.strictObject({ archiveMs: z.number().int().positive() })])
    .default(false),
  dream: z
    .strictObject({
      auto: z.boolean().default(true),
      topicThreshold: z.number().int().min(1).default(24),
      compressMinTopics: z.number().int().min(2).default(20),
    })
    .default({ auto: true, topicThreshold: 24, compressMinTopics: 20 }),
  originTokenBudget: z.number().int().min(40).max(100_000).default(200),
  clock: z.custom<Clock>(hasMethods('now'), { message: 'must be a Clock ({ now(): number })' }).optional(),
});

/**
 * Options of `MemoryDB.agent(name, options)`: a profile seeded when the agent has none (never
 * overwriting a stored one), and the agent's own model (`llm`) or summariser, used for its
 * summaries, keyword distillation and Dream instead of the file's.
 */
export const agentOptionsSchema = z.strictObject({
  profile: profileInputSchema.optional(),
  llm: openOptionsSchema.shape.llm,
  summarizer: openOptionsSchema.shape.summarizer,
});

/** Options of `MemoryDB.agent`. */
export type AgentOptions = z.input<typeof agentOptionsSchema>;

/** Options of {@link openMemory}. */
export type OpenOptions = z.input<typeof openOptionsSchema>;
export type ResolvedOpenOptions = z.output<typeof openOptionsSchema>;

export function parseOpenOptions(options: unknown): ResolvedOpenOptions {
  return parseInput(openOptionsSchema, options ?? {}, 'options');
}
