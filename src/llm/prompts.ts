/**
 * Every prompt hedgehop sends to a language model, with the zod schema of the JSON reply it
 * asks for. Keeping them in one file keeps them consistent and reviewable; `ModelSummarizer`
 * is their only user. Prompts are in English; each asks the model to answer in the language of
 * the input.
 */
import { z } from 'zod';
import type { ProfileSample, TopicForGrouping } from './types.js';
import type { DetailLevelName } from '../core/model/levels.js';

/** A system + user message pair. */
export interface Prompt {
  readonly system: string;
  readonly prompt: string;
  /** Output ceiling when the adapter's default (1024) may be too small. */
  readonly maxOutputTokens?: number;
}

const JSON_ONLY = 'Reply with one JSON object and nothing else: no prose, no code fence.';

/** Accepts a number or a numeric string (small models often quote numbers). */
const looseNumber = z.union([z.number(), z.string().trim().min(1)]).transform((value, context) => {
  const parsed = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(parsed)) {
    context.addIssue({ code: 'custom', message: 'expected a number' });
    return z.NEVER;
  }
  return parsed;
});

// ---------------------------------------------------------------------------------------------
// summarize

/** Reply shape of {@link summarizePrompt}. */
export const summarySchema = z.object({ summary: z.string().trim().min(1, 'summary is empty') });

/** Asks for a summary of `text` within `maxChars` characters. */
export function summarizePrompt(
  text: string,
  maxChars: number,
  options: { readonly hint?: string | undefined; readonly level: DetailLevelName },
): Prompt {
  const oneLine = options.level === 'origin' || options.level === 'brief';
  const rules = [
    `Write a summary of the text below in at most ${maxChars} characters (count every character, spaces included).`,
    'Keep the facts that matter later: names, numbers, decisions, outcomes, open items.',
    'Use the same language as the text. Do not invent anything that is not in the text.',
    oneLine
      ? 'Write a single line: no line breaks, no bullet points.'
      : 'Plain prose or short lines; no headings.',
  ];
  if (options.hint) rules.push(`The text is about: "${options.hint}". Keep what relates to it.`);
  return {
    system: `You compress notes for an AI agent's long-term memory.\n${rules.join('\n')}\n${JSON_ONLY} Shape: {"summary": "..."}`,
    prompt: `Text to summarise, between the lines of dashes:\n-----\n${text}\n-----`,
    // CJK text can take a token per character; leave room for the JSON around it.
    maxOutputTokens: Math.max(1024, maxChars + 256),
  };
}

// ---------------------------------------------------------------------------------------------
// verifyMatch

/** Reply shape of {@link verifyMatchPrompt}. */
export const matchSchema = z.object({
  match: z.union([z.boolean(), z.enum(['true', 'false', 'yes', 'no', 'YES', 'NO'])]).transform((v) => {
    return v === true || v === 'true' || v === 'yes' || v === 'YES';
  }),
  confidence: looseNumber,
});

/** Asks whether a stored summary describes what a query is looking for. */
export function verifyMatchPrompt(query: string, summary: string): Prompt {
  return {
    system:
      'You decide whether a stored task summary is what a search query is looking for.\n' +
      'confidence is your probability (0 to 1) that it is; match is true when it is likely.\n' +
      `${JSON_ONLY} Shape: {"match": true, "confidence": 0.9}`,
    prompt: `Query: ${query}\n\nStored summary:\n${summary}`,
  };
}

// ---------------------------------------------------------------------------------------------
// distillKeywords

/** Reply shape of {@link keywordsPrompt}. */
export const keywordsSchema = z.object({ keywords: z.array(z.union([z.string(), z.number()])) });

/** Asks for the searchable keywords and short phrases of one piece of a conversation turn. */
export function keywordsPrompt(text: string): Prompt {
  return {
    system: [
      'You index a conversation for later search. List the keywords and short phrases someone',
      'would type to find this exchange again. Together they must keep the facts, intent,',
      'relations and tone: named entities, topics, actions with their objects, dates and times',
      '(relative ones as said, e.g. "yesterday"), places, exact numbers, causes and effects.',
      'Mix single words and short phrases; as many as the text warrants, no more. Keep the',
      'original language and spelling of names and numbers. Leave out greetings, fillers,',
      'question words and generic verbs. Do not summarise.',
      `${JSON_ONLY} Shape: {"keywords": ["...", "..."]}`,
    ].join('\n'),
    prompt: `Extract keywords from:\n${text}`,
  };
}

// ---------------------------------------------------------------------------------------------
// groupTopics

/** Reply shape of {@link groupTopicsPrompt}. */
export const topicGroupsSchema = z.object({
  groups: z.array(
    z.object({
      topic_ids: z.array(z.union([z.string(), z.number()]).transform(String)).min(2),
      merged_summary: z.string().trim().min(1, 'merged_summary is empty'),
    }),
  ),
});

/** Asks which adjacent topics of one conversation are the same thread, and for reconstructions. */
export function groupTopicsPrompt(topics: readonly TopicForGrouping[], target: number): Prompt {
  const lines = topics.map((topic, i) => {
    const text = topic.text ? `\n  text: ${topic.text.replace(/\s+/gu, ' ').trim()}` : '';
    return `${i + 1}. id=${JSON.stringify(topic.id)} keywords=${JSON.stringify(topic.keywords)}${text}`;
  });
  return {
    system: [
      'You consolidate the memory of one conversation. Its topics are listed oldest first.',
      'Find runs of ADJACENT topics that continue the same thread, scanning from the newest back.',
      'Never group topics about different subjects: a wrong merge creates a false memory, which',
      `is worse than no merge. Aim for at most ${target} topics in the end, but only as far as that rule allows.`,
      'For each group write merged_summary: one coherent reconstruction (not a summary) in which',
      'every keyword of every member appears, word for word or as the exact fact; keep the tone,',
      'language, numbers and relative dates as said. Echo the ids exactly as given.',
      'If nothing should be grouped, return an empty list.',
      `${JSON_ONLY} Shape: {"groups": [{"topic_ids": ["id1", "id2"], "merged_summary": "..."}]}`,
    ].join('\n'),
    prompt: `Topics (${topics.length}):\n${lines.join('\n')}\n\nOutput the groups now.`,
    // Reconstructions keep every keyword of every member: they can be long.
    maxOutputTokens: 8192,
  };
}

// ---------------------------------------------------------------------------------------------
// distillProfile

const unit = looseNumber.catch(0.5);
const axis = looseNumber.catch(0);

/** Reply shape of {@link profilePrompt}; values are clamped by the caller. */
export const profileSchema = z.object({
  emotion: z.object({ valence: unit, arousal: unit.catch(0), dominance: unit }),
  mbti: z.object({ i_e: axis, n_s: axis, t_f: axis, j_p: axis }),
  personality: z.string().catch(''),
  per_node: z
    .array(
      z.object({ id: z.union([z.string(), z.number()]).transform(String), valence: unit, arousal: unit }),
    )
    .catch([]),
});

/** Asks for the agent's emotional state, MBTI-style axes and a personality line from samples. */
export function profilePrompt(samples: readonly ProfileSample[]): Prompt {
  const lines = samples.map(
    (s) =>
      `- id=${JSON.stringify(s.id)} importance=${s.importance.toFixed(3)} keywords=${JSON.stringify(s.keywords)}`,
  );
  return {
    system: [
      "From samples of an agent's memory, estimate its current state. Use only the samples.",
      'emotion: valence 0 very negative, 0.5 neutral, 1 very positive; arousal 0 calm to 1 excited;',
      'dominance 0 submissive to 1 dominant.',
      'mbti: each axis from -1 to 1; negative means I, N, T, J and positive E, S, F, P; the size is',
      'the strength; 0 only when the samples give no evidence.',
      'personality: a short third-person description, at most 160 characters.',
      'per_node: at most 20 rows, for the most emotional samples, with their id as given.',
      `${JSON_ONLY} Shape: {"emotion": {"valence": 0.5, "arousal": 0.2, "dominance": 0.5},`,
      '"mbti": {"i_e": 0, "n_s": 0, "t_f": 0, "j_p": 0}, "personality": "...",',
      '"per_node": [{"id": "...", "valence": 0.5, "arousal": 0.2}]}',
    ].join('\n'),
    prompt: `Samples (${samples.length}):\n${lines.join('\n')}\n\nOutput the JSON now.`,
  };
}

/** Appended to the user message when the previous reply could not be used. */
export function formatReminder(problem: string): string {
  return `\n\nYour previous reply could not be used (${problem}). ${JSON_ONLY} Use exactly the shape described.`;
}
