/**
 * The engram's constants and decay arithmetic (MemHop's, see the spec's §6–7), in one place.
 */
import { cleanKeywords } from '../../llm/keyword-extraction.js';

/** Hard-coded engram constants. */
export const ENGRAM = {
  /** Base node decay rate per hour (λ_node), before emotional damping. */
  nodeDecayPerHour: 0.01,
  /** Edge decay rate per hour (λ_edge). */
  edgeDecayPerHour: 0.02,
  /** A node whose importance falls below this fades out of the graph. */
  nodeFadeBelow: 0.05,
  /** A node whose importance falls below this keeps no edges. */
  nodeEdgesBelow: 0.15,
  /** An edge whose weight falls below this is removed. */
  edgeRemoveBelow: 0.05,
  /** Two scenes are linked when the Jaccard similarity of their keyword sets reaches this. */
  edgeSimilarityFloor: 0.15,
  /** How much an emotional, aroused memory's decay is slowed (0.9 = down to a tenth). */
  emotionDamping: 0.9,
  /**
   * Decay is applied in steps of at least this much elapsed time. Decay composes exactly
   * (two steps of an hour equal one of two hours), so waiting changes nothing in the end; it
   * only keeps a second pass that follows the first within a minute from rewriting every row.
   */
  decayStepMs: 60_000,
  /** How many nodes profile distillation samples, and keywords per sample. */
  profileSamples: 200,
  keywordsPerSample: 20,
} as const;

const HOUR_MS = 3_600_000;

const clamp01 = (value: number): number => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/**
 * A node's decay rate per hour: `λ = 0.01 × (1 − 0.9 × s × a)` where `s = min(1, 2|valence − 0.5|)`
 * is how far from neutral the memory's tone is and `a` its arousal. Strong feelings fade slower.
 */
export function nodeDecayRate(valence: number, arousal: number): number {
  const strength = Math.min(1, 2 * Math.abs(clamp01(valence) - 0.5));
  return ENGRAM.nodeDecayPerHour * (1 - ENGRAM.emotionDamping * strength * clamp01(arousal));
}

/** `value × e^(−rate × hours)`. */
export function decay(value: number, ratePerHour: number, elapsedMs: number): number {
  return value * Math.exp((-ratePerHour * Math.max(0, elapsedMs)) / HOUR_MS);
}

/** Jaccard similarity of two keyword lists taken as sets (0 when either is empty). */
export function keywordJaccard(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const small = a.length <= b.length ? a : b;
  const large = new Set(a.length <= b.length ? b : a);
  const smallSet = new Set(small);
  let shared = 0;
  for (const keyword of smallSet) if (large.has(keyword)) shared++;
  return shared / (smallSet.size + large.size - shared);
}

/**
 * A scene's keywords as the engram holds them: each turn's list cleaned by the turn keyword
 * rules (no stop words, fillers or bare one- or two-digit numbers; files written before those
 * rules may still hold them), then the union, without a single word that a phrase of another
 * turn holds. Lower-cased, sorted, distinct, as {@link keywordSet}.
 */
export function sceneKeywords(lists: readonly (readonly string[])[]): string[] {
  const cleaned = lists.map((list) => cleanKeywords(list, Number.POSITIVE_INFINITY));
  return cleanKeywords(keywordSet(cleaned), Number.POSITIVE_INFINITY);
}

/**
 * A scene's keyword set as the engram compares it: every keyword trimmed and lower-cased,
 * empties dropped, sorted, distinct.
 */
export function keywordSet(lists: readonly (readonly string[])[]): string[] {
  const out = new Set<string>();
  for (const list of lists) {
    for (const keyword of list) {
      const key = keyword.trim().toLowerCase();
      if (key.length > 0) out.add(key);
    }
  }
  return [...out].sort();
}

/**
 * The `limit` most frequent keywords across `lists` (ties: first seen), as the engram writes them.
 * Pass lists cleaned with {@link sceneKeywords}' rules (`cleanKeywords`) for what an agent reads.
 */
export function topKeywords(lists: readonly (readonly string[])[], limit: number): string[] {
  const counts = new Map<string, { count: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    for (const keyword of list) {
      const key = keyword.trim().toLowerCase();
      if (key.length === 0) continue;
      const entry = counts.get(key) ?? { count: 0, first: order++ };
      entry.count++;
      counts.set(key, entry);
    }
  }
  return [...counts.entries()]
    .sort((a, b) => b[1].count - a[1].count || a[1].first - b[1].first)
    .slice(0, limit)
    .map(([key]) => key);
}
