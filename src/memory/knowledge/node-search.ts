import { matchExpression, mostInformativeTerms, queryCandidates, queryTerms } from '../../recall/query.js';
import { confidenceOf } from '../../recall/rank.js';
import { knowledgeHitText } from '../../store/recall-rows.js';
import type { StoreTx } from '../../store/seam.js';
import { knowledgeTextQuery, type NeedlePlace } from '../../store/knowledge-search-text.js';
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

/** How many index hits are blended into the ranking. */
const INDEX_CANDIDATES = 200;

/** The knowledge nodes the recall index matches word by word, and how relevant each is. */
interface IndexMatches {
  /** Ids of the matched nodes (at most {@link INDEX_CANDIDATES}), best BM25 first. */
  readonly ids: ReadonlySet<string>;
  /** A matched node's index relevance in 0..1; 0 for any other node. */
  relevance(node: KnowledgeNode): number;
}

const NO_MATCHES: IndexMatches = { ids: new Set(), relevance: () => 0 };

/**
 * The recall index's BM25 matches of the query among the knowledge rows (stems, CJK
 * segmentation and the query's most informative terms, as recall matches them), read in one
 * statement. A node's relevance is half how much of the query its text holds (the calibrated
 * confidence recall reports for its hit) and half its BM25 score relative to the best match.
 * Recall's conversation priors (recency, scenes, speakers, feedback) are not applied: they
 * rank a conversation's records, and a graph's nodes have neither turns nor scenes.
 */
async function indexMatches(tx: NodeSearchReads, query: string): Promise<IndexMatches> {
  const candidates = queryCandidates(query);
  const statistics = await tx.recall.termStatistics(candidates.map((term) => term.stem));
  const terms = mostInformativeTerms(candidates, statistics.frequency);
  const match = matchExpression(terms.map((term) => term.word));
  if (match === undefined) return NO_MATCHES;
  const rows = await tx.recall.match(match, { agentId: NO_AGENT, layers: ['knowledge'] }, INDEX_CANDIDATES);
  const best = rows[0]?.bm25 ?? 0;
  const relative = new Map<string, number>();
  for (const row of rows) {
    const value = best > 0 ? Math.max(0, row.bm25) / best : 0;
    relative.set(row.ref, Math.max(relative.get(row.ref) ?? 0, value));
  }
  const confidence = confidenceOf(statistics, terms);
  return {
    ids: new Set(relative.keys()),
    relevance: (node) => {
      const score = relative.get(node.id);
      if (score === undefined) return 0;
      return 0.5 * confidence(knowledgeHitText(node.title, node.content, node.observations)) + 0.5 * score;
    },
  };
}

/** A candidate of the ranking: its score, and whether it matched by words only. */
interface Ranked {
  readonly score: number;
  readonly wordsOnly: boolean;
}

/** The places of the substring tiers the fast path reads, best first. */
const TIER_PLACES: readonly (readonly [number, NeedlePlace])[] = [
  [3, 'title-equals'],
  [2, 'title-not-equal'],
  [1, 'not-title'],
];

/**
 * Ranks knowledge nodes for a free-text query. Candidates are every node holding the query as
 * a case-insensitive substring of its title, type, content, a keyword or an observation (what
 * the MCP memory server returns, so nothing it would find is missed) plus every node the
 * recall index matches word by word (BM25, stems, CJK segmentation). The score is a tier
 * (3 title equals the query, 2 title holds it, 1 another field holds it, 0 words only) plus
 * the index relevance (0..1); equal scores keep insertion order, substring matches before
 * word-only ones. An empty query lists every node, in insertion order.
 */
export async function rankNodes(
  tx: NodeSearchReads,
  query: string,
  options: { graphId?: string | undefined; limit?: number | undefined },
): Promise<KnowledgeSearchHit[]> {
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const repo = tx.knowledge;
  if (query.trim().length === 0) {
    const all = await repo.scanNodes({ graphId: options.graphId }, () => true, limit);
    return all.map((node) => ({ node, score: 0 }));
  }
  const lowered = query.toLowerCase();
  // A query without a word (`*`, `?`, `!!!`) matches by substring only: the index would
  // otherwise list its newest rows, which answer nothing.
  const index = queryTerms(query).length > 0 ? await indexMatches(tx, query) : NO_MATCHES;
  if (Number.isFinite(limit) && knowledgeTextQuery(lowered, 'anywhere') !== undefined) {
    return topRanked(tx, lowered, index, { graphId: options.graphId, limit });
  }
  const bySubstring = await repo.scanNodes(
    { graphId: options.graphId, textContains: lowered },
    () => true,
    Number.POSITIVE_INFINITY,
  );
  const held = new Set(bySubstring.map((node) => node.id));
  const byWords = (await repo.nodesByIds([...index.ids].filter((id) => !held.has(id)))).filter(
    (node) => options.graphId === undefined || node.graphId === options.graphId,
  );
  const hits = [
    ...bySubstring.map((node) => ({
      node,
      score: substringTier(node, lowered) + index.relevance(node),
    })),
    ...byWords.map((node) => ({ node, score: index.relevance(node) })),
  ];
  // A stable sort keeps insertion order among equal scores.
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

/**
 * The best `limit` hits of {@link rankNodes} without reading every substring match: the nodes
 * the index scored (at most {@link INDEX_CANDIDATES}) with their tier, and of every tier the
 * first `limit` other nodes in insertion order (their score is the tier alone, so later ones
 * cannot rank higher), each tier read through the trigram index. Same hits, same order as the
 * full ranking.
 */
async function topRanked(
  tx: NodeSearchReads,
  lowered: string,
  index: IndexMatches,
  options: { graphId: string | undefined; limit: number },
): Promise<KnowledgeSearchHit[]> {
  const repo = tx.knowledge;
  const { graphId, limit } = options;
  // Each list below is in insertion order: the index's nodes (read together), then each tier's.
  const lists: Candidate[][] = [];
  const scored: Candidate[] = [];
  for (const node of await repo.nodesByIds([...index.ids])) {
    if (graphId !== undefined && node.graphId !== graphId) continue;
    const tier = nodeMentions(node, lowered) ? substringTier(node, lowered) : 0;
    scored.push({ node, score: tier + index.relevance(node), wordsOnly: tier === 0 });
  }
  lists.push(scored);
  for (const [tier, place] of TIER_PLACES) {
    const nodes = await repo.scanNodes(
      { graphId, textContains: lowered, textPlace: place },
      (node) => !index.ids.has(node.id),
      limit,
    );
    lists.push(nodes.map((node) => ({ node, score: tier, wordsOnly: false })));
  }
  const candidates = (await inInsertionOrder(repo, lists)) ?? lists.flat();
  // A stable sort by score (substring matches before word-only ones) keeps insertion order among equals.
  return candidates
    .sort((a, b) => b.score - a.score || Number(a.wordsOnly) - Number(b.wordsOnly))
    .slice(0, limit)
    .map(({ node, score }) => ({ node, score }));
}

/** A node of the ranking with its score. */
export interface Candidate extends Ranked {
  readonly node: KnowledgeNode;
}

/**
 * The candidates of `lists` (each in insertion order) in insertion order overall, read again
 * only when the sort could need it: when two lists hold an equal score, whose ties insertion
 * order breaks. Otherwise equal scores sit in one list, already in order, so `undefined`
 * (concatenating the lists is enough) and no second read of the nodes.
 */
export async function inInsertionOrder(
  repo: NodeSearchReads['knowledge'],
  lists: readonly Candidate[][],
): Promise<Candidate[] | undefined> {
  const owner = new Map<number, number>();
  let mixed = false;
  lists.forEach((list, index) => {
    for (const { score } of list) {
      const held = owner.get(score);
      if (held !== undefined && held !== index) mixed = true;
      owner.set(score, index);
    }
  });
  if (!mixed) return undefined;
  const byId = new Map(lists.flat().map((candidate) => [candidate.node.id, candidate]));
  const nodes = await repo.nodesByIds([...byId.keys()]);
  return nodes.flatMap((node) => {
    const candidate = byId.get(node.id);
    return candidate === undefined ? [] : [candidate];
  });
}
