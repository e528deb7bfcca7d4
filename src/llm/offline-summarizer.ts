import type { SummaryLevelName } from '../core/model/levels.js';
import { extractiveSummary, taskLevels, type LevelCaps, type TaskSource } from './extractive-summary.js';
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
 * A summariser that makes every level of a task in one go (from one analysis of its context)
 * instead of one `summarize` call per level.
 */
interface TaskLevelSummarizer {
  summarizeTask(task: TaskSource, caps: LevelCaps): Promise<Record<SummaryLevelName, string>>;
}

/** True when `summarizer` offers {@link TaskLevelSummarizer.summarizeTask}. */
export function summarizesTasks(summarizer: Summarizer): summarizer is Summarizer & TaskLevelSummarizer {
  return typeof (summarizer as Partial<TaskLevelSummarizer>).summarizeTask === 'function';
}

/**
 * The default summariser: deterministic, no network, never fails on valid input.
 *
 * - `summarize` splits the text into typed units (prose, tool output, code, logs, diffs …) and
 *   picks the prose sentences most central to it, outcomes, decisions and root causes first,
 *   the end weighted up, kept in order (see extractive-summary.ts); origin and brief levels are
 *   one line; nothing is cut inside a token or a surrogate pair.
 * - `summarizeTask` makes all four levels of a task at once, each leading with the label and
 *   the caller's summary.
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

  async summarizeTask(task: TaskSource, caps: LevelCaps): Promise<Record<SummaryLevelName, string>> {
    return taskLevels(task, caps);
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
