/**
 * Offline grouping of adjacent topics for Dream: neighbours whose keywords overlap enough are
 * fused. Linkage is complete (every pair inside a group must overlap), so a chain A~B~C never
 * pulls two different subjects A and C together: a false merge is a false memory.
 */
import { extractiveSummary } from './extractive-summary.js';
import { contentTerms } from './text-analysis.js';
import type { TopicForGrouping, TopicGroup } from './types.js';

/** Jaccard similarity of stemmed keyword terms at or above which two topics share a subject. */
export const GROUP_THRESHOLD = 0.3;

/** Characters kept from each member's dialogue in a reconstruction. */
const MEMBER_TEXT_CHARS = 400;

/**
 * Groups adjacent topics (in the order given) until at most `target` remain or no neighbours
 * share a subject. Only groups of two or more are returned; each `mergedSummary` holds every
 * member keyword.
 */
export function groupAdjacentTopics(topics: readonly TopicForGrouping[], target: number): TopicGroup[] {
  const terms = topics.map((topic) => keywordTerms(topic.keywords));
  const clusters: number[][] = topics.map((_, i) => [i]);
  while (clusters.length > Math.max(1, target)) {
    let bestAt = -1;
    let bestScore = 0;
    for (let i = 0; i + 1 < clusters.length; i++) {
      const score = linkage(clusters[i]!, clusters[i + 1]!, terms);
      // `>=` prefers the later (more recent) pair on ties, as the consolidation contract asks.
      if (score >= GROUP_THRESHOLD && score >= bestScore) [bestAt, bestScore] = [i, score];
    }
    if (bestAt < 0) break;
    clusters.splice(bestAt, 2, [...clusters[bestAt]!, ...clusters[bestAt + 1]!]);
  }
  return clusters
    .filter((cluster) => cluster.length > 1)
    .map((cluster) => {
      const members = cluster.map((i) => topics[i]!);
      return { topicIds: members.map((m) => m.id), mergedSummary: reconstruct(members) };
    });
}

function keywordTerms(keywords: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const keyword of keywords) for (const term of contentTerms(keyword)) out.add(term);
  return out;
}

/** Jaccard similarity of two term sets (0 when either is empty). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const term of a) if (b.has(term)) shared++;
  return shared / (a.size + b.size - shared);
}

function linkage(a: readonly number[], b: readonly number[], terms: readonly Set<string>[]): number {
  let min = Infinity;
  for (const i of a) for (const j of b) min = Math.min(min, jaccard(terms[i]!, terms[j]!));
  return min;
}

/**
 * The members' dialogue (each shortened extractively) followed by every member keyword the
 * text does not already contain, so nothing searchable is lost in the fusion.
 */
export function reconstruct(members: readonly TopicForGrouping[]): string {
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
