/**
 * Decisions, a step of recall's ordering: with a coding agent, a decision is most often an
 * exchange in which the agent proposes and the user approves ("Do it.", "Agreed.", "Go ahead,
 * and use the nightly marker."), the agent then carrying it out. A question about what was
 * decided ("what did we decide about the fixture?", "what did we agree on?", "what did we settle
 * on / go with / end up with?") wants that turn, while the turns that only weighed the problem
 * often hold more of the question's words. Among the records of the question's subject, those
 * of a turn the user opened with an approval are lifted. A question about why or when a decision
 * was taken is left to the ranking (what was said then).
 * Only the order (and the final scores) change: what is recalled is what the ranking found.
 */
import type { RankedItem } from './turn-units.js';
import { unitKey } from './turn-units.js';

const DECISION_RE =
  /\b(?:decided?|decision|agreed?|settled?\s+on|go(?:ne)?\s+with|went\s+with|end(?:ed)?\s+up)\b/iu;
const WHY_OR_WHEN_RE = /\b(?:why|when|how come)\b/iu;

/** Whether a question asks what was decided (English cue words). */
export function asksForDecision(query: string): boolean {
  return DECISION_RE.test(query) && !WHY_OR_WHEN_RE.test(query);
}

/** How a user's message approves what was proposed, at its start (English). */
const APPROVAL_RE =
  /^\s*(?:ok(?:ay)?|yes|yep|yeah|sure|agreed|approved|sounds\s+(?:good|right|great)|looks\s+good|lgtm|perfect|great|deal|do\s+(?:it|that|this)|go\s+(?:ahead|for\s+it)|ship\s+it|let'?s\s+(?:do|go\s+with)\s+(?:it|that|this)|make\s+it\s+so)\b/iu;

/** Whether a user's message opens by approving what was proposed ("Do it.", "Agreed. But …"). */
export function approves(message: string): boolean {
  return APPROVAL_RE.test(message);
}

/** Tuning of {@link applyDecision}. */
export interface DecisionWeights {
  /** How much (share of the best score) the records of an approved turn of the subject gain. */
  readonly lift: number;
  /** Records scoring below this share of the best are not about the question's subject. */
  readonly subjectScore: number;
  /** Records holding less than this share of the best coverage are not about the subject either. */
  readonly subjectCoverage: number;
}

export const DEFAULT_DECISION_WEIGHTS: DecisionWeights = {
  lift: 0.6,
  subjectScore: 0.4,
  subjectCoverage: 0.6,
};

/** A ranked record with its final score, and how much of the query it holds (0..1). */
type Scored = RankedItem & { readonly score: number };

/**
 * The units (turns) whose records are about the question's subject: near the best score and
 * holding most of what the best-covered record holds of the query. Their user messages are what
 * {@link applyDecision} looks at.
 */
export function decisionSubject<T extends Scored>(
  items: readonly T[],
  weights: DecisionWeights = DEFAULT_DECISION_WEIGHTS,
): Set<string> {
  const best = Math.max(0, ...items.map((item) => item.score));
  const coverage = Math.max(0, ...items.map((item) => item.hit.confidence));
  const out = new Set<string>();
  if (best <= 0) return out;
  for (const item of items) {
    if (
      item.score >= weights.subjectScore * best &&
      item.hit.confidence >= weights.subjectCoverage * coverage
    )
      out.add(unitKey(item.hit));
  }
  return out;
}

/**
 * The items (best first, with their final scores) after the decision step: the records of each
 * subject unit that `approved` says the user approved gain `lift` × the best score. `subject` is
 * {@link decisionSubject} of the items, passed by a caller that has already worked it out.
 */
export function applyDecision<T extends Scored>(
  items: readonly T[],
  approved: (unit: string) => boolean,
  weights: DecisionWeights = DEFAULT_DECISION_WEIGHTS,
  subject: ReadonlySet<string> = decisionSubject(items, weights),
): T[] {
  const lifted = [...subject].filter(approved);
  if (lifted.length === 0) return [...items];
  const best = Math.max(0, ...items.map((item) => item.score));
  const gain = weights.lift * best;
  const chosen = new Set(lifted);
  return items
    .map((item, order) => ({
      item,
      order,
      score: chosen.has(unitKey(item.hit)) ? item.score + gain : item.score,
    }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ item, score }) => (score === item.score ? item : { ...item, score }));
}
