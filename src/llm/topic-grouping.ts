/**
 * Offline grouping of adjacent topics for Dream, by segmentation (TextTiling, Hearst 1997, over
 * turns instead of sentences): each gap between two neighbouring turns gets the similarity of
 * the turns just before it and just after it (TF-IDF cosine of their words and keywords, a few
 * turns on each side, so that one short reply does not decide); a gap is a topic boundary when
 * that similarity dips well below the peaks on both sides (its depth). A conversation's turns
 * share few words even inside a subject, so no fixed similarity threshold separates subjects; a
 * dip relative to the neighbourhood does. Each segment of two or more turns is one group.
 */
import { extractiveSummary } from './extractive-summary.js';
import { tokenize } from '../core/text-analysis.js';
import type { TopicForGrouping, TopicGroup } from './types.js';

/** Turns on each side of a gap whose words are compared (TextTiling's block size). */
const SEGMENT_WINDOW = 3;
/**
 * A gap is a boundary when its depth exceeds the mean depth of the conversation's gaps by this
 * many standard deviations (TextTiling's cutoff is the mean minus half a deviation over valleys;
 * over every gap the mean itself sits lower, hence a positive factor).
 */
const DEPTH_CUTOFF_SD = 0.5;
/** Fewest turns in a segment: a lone turn between two boundaries joins its closer neighbour. */
const MIN_SEGMENT_TURNS = 2;

/** Characters kept from each member's dialogue in a reconstruction. */
const MEMBER_TEXT_CHARS = 400;

/**
 * Groups adjacent topics (in the order given) by segmentation; returns only groups of two or
 * more, each with a reconstruction holding every member keyword. `target` is the floor Dream
 * aims at: a scene with fewer topics than that is left alone (Dream compresses a scene from
 * `compressMinTopics` topics on, that many included), and segments are never fused across a
 * boundary to reach it (a false merge is a false memory).
 */
export function groupAdjacentTopics(topics: readonly TopicForGrouping[], target: number): TopicGroup[] {
  if (topics.length < 2 || topics.length < Math.max(2, target)) return [];
  return segmentBoundaries(topics)
    .map((start, i, starts) => topics.slice(start, starts[i + 1] ?? topics.length))
    .filter((members) => members.length > 1)
    .map((members) => ({ topicIds: members.map((m) => m.id), mergedSummary: reconstruct(members) }));
}

/**
 * The index of the first topic of each segment (always starting with 0). Neighbours that share
 * no word at all are always split (turns without words are never joined to anything).
 */
export function segmentBoundaries(topics: readonly TopicForGrouping[]): number[] {
  const vectors = weightedVectors(topics);
  const gaps = topics.slice(1).map((_, g) => blockSimilarity(vectors, g + 1));
  const depths = gaps.map((_, g) => depthAt(gaps, g));
  const mean = depths.reduce((a, b) => a + b, 0) / Math.max(1, depths.length);
  const sd = Math.sqrt(depths.reduce((a, d) => a + (d - mean) ** 2, 0) / Math.max(1, depths.length));
  const cutoff = mean + DEPTH_CUTOFF_SD * sd;
  const forced: number[] = [];
  const relative: number[] = [];
  gaps.forEach((_, g) => {
    const start = g + 1;
    if (adjacentSimilarity(vectors, start) === 0) forced.push(start);
    else if (depths[g]! > 0 && depths[g]! > cutoff) relative.push(start);
  });
  return [0, ...spaced(forced, relative, depths, topics.length)];
}

type Vector = Map<string, number>;

/** Each turn's words and keywords as TF-IDF vectors over the conversation. */
function weightedVectors(topics: readonly TopicForGrouping[]): Vector[] {
  const counts = topics.map((topic) => {
    const vector: Vector = new Map();
    const text = [topic.text ?? '', ...topic.keywords].join('\n');
    for (const token of tokenize(text)) {
      if (token.stop || /^\p{N}+$/u.test(token.surface)) continue;
      vector.set(token.term, (vector.get(token.term) ?? 0) + 1);
    }
    return vector;
  });
  const df = new Map<string, number>();
  for (const vector of counts) for (const term of vector.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const n = topics.length;
  return counts.map((vector) => {
    const weighted: Vector = new Map();
    for (const [term, count] of vector) {
      weighted.set(term, (1 + Math.log(count)) * Math.log(1 + n / (df.get(term) ?? 1)));
    }
    return weighted;
  });
}

function sum(vectors: readonly Vector[]): Vector {
  const out: Vector = new Map();
  for (const vector of vectors) for (const [term, w] of vector) out.set(term, (out.get(term) ?? 0) + w);
  return out;
}

function cosine(a: Vector, b: Vector): number {
  let dot = 0;
  for (const [term, w] of a) dot += w * (b.get(term) ?? 0);
  if (dot === 0) return 0;
  const norm = (v: Vector): number => Math.sqrt([...v.values()].reduce((acc, w) => acc + w * w, 0));
  return dot / (norm(a) * norm(b));
}

/** Similarity of the `SEGMENT_WINDOW` turns before the gap (which opens at `start`) and after it. */
function blockSimilarity(vectors: readonly Vector[], start: number): number {
  const before = vectors.slice(Math.max(0, start - SEGMENT_WINDOW), start);
  const after = vectors.slice(start, start + SEGMENT_WINDOW);
  return cosine(sum(before), sum(after));
}

function adjacentSimilarity(vectors: readonly Vector[], start: number): number {
  return cosine(vectors[start - 1]!, vectors[start]!);
}

/** How far the similarity at gap `g` lies below the highest points reached climbing each way. */
function depthAt(gaps: readonly number[], g: number): number {
  const here = gaps[g]!;
  let left = here;
  for (let i = g - 1; i >= 0 && gaps[i]! >= left; i--) left = gaps[i]!;
  let right = here;
  for (let i = g + 1; i < gaps.length && gaps[i]! >= right; i++) right = gaps[i]!;
  return left - here + (right - here);
}

/**
 * The forced boundaries (neighbours sharing no word), then the relative ones that lie at least
 * {@link MIN_SEGMENT_TURNS} from every kept boundary and from either end, deepest first.
 */
function spaced(
  forced: readonly number[],
  relative: readonly number[],
  depths: readonly number[],
  length: number,
): number[] {
  const depthOf = (start: number): number => depths[start - 1] ?? 0;
  const kept = [...forced];
  for (const start of [...relative].sort((a, b) => depthOf(b) - depthOf(a) || a - b)) {
    if (start < MIN_SEGMENT_TURNS || length - start < MIN_SEGMENT_TURNS) continue;
    if (kept.some((other) => Math.abs(other - start) < MIN_SEGMENT_TURNS)) continue;
    kept.push(start);
  }
  return kept.sort((a, b) => a - b);
}

/** Jaccard similarity of two term sets (0 when either is empty). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * The members' dialogue (each shortened extractively) followed by every member keyword the
 * text does not already contain, so nothing searchable is lost in the fusion.
 */
function reconstruct(members: readonly TopicForGrouping[]): string {
  const parts = members
    .map((m) => (m.text ? extractiveSummary(m.text, MEMBER_TEXT_CHARS, { level: 'summary' }) : ''))
    .filter((part) => part.length > 0);
  return appendMissingKeywords(parts.join('\n'), members);
}

/** `text` plus a `Keywords: …` line naming every member keyword it lacks (case-insensitive). */
export function appendMissingKeywords(text: string, members: readonly TopicForGrouping[]): string {
  const lower = text.toLowerCase();
  const missing: string[] = [];
  const seen = new Set<string>();
  for (const keyword of members.flatMap((m) => m.keywords)) {
    const key = keyword.trim().toLowerCase();
    if (key.length === 0 || seen.has(key) || lower.includes(key)) continue;
    seen.add(key);
    missing.push(keyword.trim());
  }
  if (missing.length === 0) return text;
  return `${text}${text.length > 0 ? '\n' : ''}Keywords: ${missing.join(', ')}.`;
}
