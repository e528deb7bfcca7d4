/**
 * The temporal-intent step of recall, on top of the ranked candidates: facts change, and a
 * memory holds both the old and the new value. A question about the current state ("now",
 * "latest", "still") wants the most recent record of its subject; one about the past ("before",
 * "originally", "used to") the older one; any other question lets the newer record win near
 * ties. Only the order changes: what is recalled is what the ranking found.
 */

/** What a question asks about time: the current state, an earlier one, or neither. */
export type TemporalIntent = 'current' | 'past' | 'none';

const CURRENT_RE =
  /\b(?:now|nowadays|today|latest|current(?:ly)?|still|anymore|any more|these days|at the moment|right now|most recent(?:ly)?|newest)\b/iu;
const PAST_RE =
  /\b(?:before|originally|original|used to|previous(?:ly)?|at first|initially|formerly|former|earlier|first (?:set|chose|picked|planned|decided)|back then)\b/iu;

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
  const current = CURRENT_RE.test(query);
  const past = PAST_RE.test(query);
  if (current === past) return 'none';
  return current ? 'current' : 'past';
}

/** One ranked candidate as the step sees it. */
export interface TimedCandidate {
  readonly score: number;
  /** When the record was written (ms). */
  readonly createdAt: number;
}

/** Tuning of {@link applyTemporalIntent}; shares of the best candidate's score. */
export interface TemporalWeights {
  /** How much the newest candidate gains over the oldest on any question: decides near ties. */
  readonly tie: number;
  /** How much the newest (current) or oldest (past) candidate of the subject gains. */
  readonly intent: number;
  /** Candidates scoring below this share of the best are not of the question's subject. */
  readonly subjectFloor: number;
}

export const DEFAULT_TEMPORAL_WEIGHTS: TemporalWeights = {
  tie: 0.04,
  intent: 0.5,
  subjectFloor: 0.5,
};

/**
 * The candidates with their final scores, best first: each gains by its place in time among the
 * candidates of the question's subject (those within `subjectFloor` of the best), a little on
 * every question (so that on near ties the newer wins), and much on a question about the
 * current state; on a question about the past the older ones gain instead. The input order is
 * the ranking's; equal final scores keep it.
 */
export function applyTemporalIntent<T extends TimedCandidate>(
  candidates: readonly T[],
  intent: TemporalIntent,
  weights: TemporalWeights = DEFAULT_TEMPORAL_WEIGHTS,
): { candidate: T; score: number }[] {
  const best = Math.max(0, ...candidates.map((c) => c.score));
  const subject = candidates.filter((c) => best > 0 && c.score >= weights.subjectFloor * best);
  const recency = recencyRanks(subject);
  const scored = candidates.map((candidate, order) => {
    const r = recency.get(candidate);
    if (r === undefined) return { candidate, score: candidate.score, order };
    const lift =
      intent === 'current'
        ? weights.intent * r
        : intent === 'past'
          ? weights.intent * (1 - r)
          : weights.tie * r;
    return { candidate, score: candidate.score + lift * best, order };
  });
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.map(({ candidate, score }) => ({ candidate, score }));
}

/**
 * Each candidate's place in time among `candidates`, 0 (the oldest) to 1 (the newest); records
 * written at the same time share a place. Empty when they were all written at once.
 */
function recencyRanks<T extends TimedCandidate>(candidates: readonly T[]): Map<T, number> {
  const times = [...new Set(candidates.map((c) => c.createdAt))].sort((a, b) => a - b);
  if (times.length < 2) return new Map();
  const place = new Map(times.map((t, i) => [t, i / (times.length - 1)]));
  return new Map(candidates.map((c) => [c, place.get(c.createdAt) ?? 0]));
}
