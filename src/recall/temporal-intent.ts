/**
 * The temporal step of recall, applied to the ranked records: a memory holds both the old and
 * the new value of a fact that changed. A question about the current state ("now", "latest",
 * "still") wants the most recent record of its subject; one about the past ("before",
 * "originally", "used to") the oldest; any other question keeps the ranking's order, where the newer
 * record already wins a tie.
 * Only the order (and the final scores) change: what is recalled is what the ranking found.
 */

import { timeCues } from '../core/time-cues.js';

/** What a question asks about time: the current state, an earlier one, or neither. */
export type TemporalIntent = 'current' | 'past' | 'none';

/**
 * The temporal intent of a question (English cue words). A question with cues of both kinds
 * ("what was it before, and what is it now?") asks for both and gets neither preference.
 *
 * @example
 * ```ts
 * temporalIntent('what are the alert thresholds now?'); // 'current'
 * temporalIntent('which hash did we use originally?');  // 'past'
 * ```
 */
export function temporalIntent(query: string): TemporalIntent {
  const { current, past } = timeCues(query);
  if (current === past) return 'none';
  return current ? 'current' : 'past';
}

/** One ranked record as the step sees it. */
export interface TimedCandidate {
  /** The ranking's score (higher is better). */
  readonly score: number;
  /** When the record was written (ms). */
  readonly createdAt: number;
  /** 0..1: how much of the query the record holds (the IDF-weighted share of its words). */
  readonly coverage: number;
}

/** Tuning of {@link applyTemporalIntent}. */
export interface TemporalWeights {
  /** How much (share of the best score) the newest (current) or oldest (past) record of the subject gains. */
  readonly intent: number;
  /** Records scoring below this share of the best are not about the question's subject. */
  readonly subjectScore: number;
  /** Records holding less than this share of the best coverage are not about the subject either. */
  readonly subjectCoverage: number;
}

export const DEFAULT_TEMPORAL_WEIGHTS: TemporalWeights = {
  intent: 0.6,
  subjectScore: 0.4,
  subjectCoverage: 0.6,
};

/**
 * The records with their final scores, best first. On a question about the current state,
 * the records of its subject (near the best score and holding most of what the best-covered
 * record holds of the query) gain by their place in time, the newest most; on one about the past
 * the oldest gain. Equal final scores keep the ranking's order, where the newer record already
 * wins a tie (the ranking's recency prior, then the newer row first). Promoting a newer record
 * over a near tie as well was measured and dropped: it cost LoCoMo multi-hop R@10 0.4 points
 * even within 0.1 % of the best score (docs/benchmarks.md).
 */
export function applyTemporalIntent<T extends TimedCandidate>(
  candidates: readonly T[],
  intent: TemporalIntent,
  weights: TemporalWeights = DEFAULT_TEMPORAL_WEIGHTS,
): { candidate: T; score: number }[] {
  const best = Math.max(0, ...candidates.map((c) => c.score));
  if (best <= 0 || candidates.length < 2)
    return candidates.map((candidate) => ({ candidate, score: candidate.score }));
  const lifted = candidates.map((candidate, order) => ({ candidate, score: candidate.score, order }));
  if (intent !== 'none') {
    const topCoverage = Math.max(0, ...candidates.map((c) => c.coverage));
    const subject = lifted.filter(
      ({ candidate: c }) =>
        c.score >= weights.subjectScore * best && c.coverage >= weights.subjectCoverage * topCoverage,
    );
    const place = timePlaces(subject.map((s) => s.candidate.createdAt));
    for (const entry of subject) {
      const r = place.get(entry.candidate.createdAt) ?? 0;
      entry.score += weights.intent * best * (intent === 'current' ? r : 1 - r);
    }
  }
  lifted.sort((a, b) => b.score - a.score || a.order - b.order);
  return lifted.map(({ candidate, score }) => ({ candidate, score }));
}

/**
 * Each distinct time's place among `times`, 0 (the oldest) to 1 (the newest). Empty when they
 * are all the same time.
 */
function timePlaces(times: readonly number[]): Map<number, number> {
  const distinct = [...new Set(times)].sort((a, b) => a - b);
  if (distinct.length < 2) return new Map();
  return new Map(distinct.map((t, i) => [t, i / (distinct.length - 1)]));
}
