import { queryTerms } from '../../recall/query.js';
import { searchIndexIn } from '../../recall/search.js';
import type { StoreTx } from '../../store/seam.js';
import type { KnowledgeNode, KnowledgeSearchHit } from '../../core/model/knowledge.js';

/** The repositories a knowledge search reads, inside the caller's read transaction. */
type NodeSearchReads = Pick<StoreTx, 'knowledge' | 'recall' | 'vectors'>;

/** Agent id no agent has: with `layers: ['knowledge']` the index returns file-wide rows only. */
const NO_AGENT = 0;

/** How a node matched the whole query as a substring (higher is closer). */
function substringTier(node: KnowledgeNode, lowered: string): number {
  const title = node.title.toLowerCase();
  if (title === lowered) return 3;
  if (title.includes(lowered)) return 2;
  return 1;
}

/** True when `lowered` (a lower-cased text) occurs in any text field of the node, ignoring case. */
export function nodeMentions(node: KnowledgeNode, lowered: string): boolean {
  const has = (text: string): boolean => text.toLowerCase().includes(lowered);
  return (
    has(node.title) ||
    has(node.type) ||
    has(node.content) ||
    node.keywords.some(has) ||
    node.observations.some(has)
  );
}

/**
 * The needle the repository may pre-filter with in SQL (see `KnowledgeNodeFilter.textContains`),
 * or `undefined` when the query holds characters that SQLite's ASCII-only `lower()` or the
 * JSON encoding of lists would not match as JavaScript does.
 */
export function sqlNeedle(lowered: string): string | undefined {
  return /^[\x20-\x7e]+$/u.test(lowered) && !/["\\]/u.test(lowered) ? lowered : undefined;
}

/** How many index hits are blended into the ranking. */
const INDEX_CANDIDATES = 200;

/**
 * Index relevance of each knowledge node the recall index matches, in 0..1: half how much of
 * the query the node holds (the index's calibrated confidence), half its score relative to
 * the best hit.
 */
async function indexRelevance(tx: NodeSearchReads, query: string): Promise<Map<string, number>> {
  const hits = await searchIndexIn(tx, {
    agentId: NO_AGENT,
    query,
    layers: ['knowledge'],
    limit: INDEX_CANDIDATES,
  });
  const best = hits[0]?.score ?? 0;
  const relevance = new Map<string, number>();
  for (const hit of hits) {
    const relative = best > 0 ? Math.max(0, hit.score) / best : 0;
    const value = 0.5 * hit.confidence + 0.5 * relative;
    relevance.set(hit.ref, Math.max(relevance.get(hit.ref) ?? 0, value));
  }
  return relevance;
}

/**
 * Ranks knowledge nodes for a free-text query. Candidates are every node holding the query as
 * a case-insensitive substring of its title, type, content, a keyword or an observation (what
 * the MCP memory server returns, so nothing it would find is missed) plus every node the
 * recall index matches word by word (BM25, stems, CJK segmentation). The score is a tier
 * (3 title equals the query, 2 title holds it, 1 another field holds it, 0 words only) plus
 * the index relevance (0..1). An empty query lists every node, in insertion order.
 */
export async function rankNodes(
  tx: NodeSearchReads,
  query: string,
  options: { graphId?: string | undefined; limit?: number | undefined },
): Promise<KnowledgeSearchHit[]> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const repo = tx.knowledge;
  {
    if (query.trim().length === 0) {
      const all = await repo.scanNodes({ graphId: options.graphId }, () => true, limit);
      return all.map((node) => ({ node, score: 0 }));
    }
    const lowered = query.toLowerCase();
    // A query without a word (`*`, `?`, `!!!`) matches by substring only: the index would
    // otherwise list its newest rows, which answer nothing.
    const relevance =
      queryTerms(query).length > 0 ? await indexRelevance(tx, query) : new Map<string, number>();
    const bySubstring = await repo.scanNodes(
      { graphId: options.graphId, textContains: sqlNeedle(lowered) },
      (node) => nodeMentions(node, lowered),
      Number.POSITIVE_INFINITY,
    );
    const held = new Set(bySubstring.map((node) => node.id));
    const byWords = (await repo.nodesByIds([...relevance.keys()].filter((id) => !held.has(id)))).filter(
      (node) => options.graphId === undefined || node.graphId === options.graphId,
    );
    const hits = [
      ...bySubstring.map((node) => ({
        node,
        score: substringTier(node, lowered) + (relevance.get(node.id) ?? 0),
      })),
      ...byWords.map((node) => ({ node, score: relevance.get(node.id) ?? 0 })),
    ];
    // A stable sort keeps insertion order among equal scores.
    return hits.sort((a, b) => b.score - a.score).slice(0, limit);
  }
}
