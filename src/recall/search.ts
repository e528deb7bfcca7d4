import type { Embedder } from '../llm/types.js';
import type { IndexLayer } from '../store/index-repo.js';
import type { DocRow } from '../store/recall-repo.js';
import type { Store } from '../store/store.js';
import { DEFAULT_WEIGHTS, rankDocuments, type RankWeights } from './rank.js';

/** What {@link searchIndex} looks for, and where. */
export interface SearchOptions {
  /** The asking agent. Its own rows and the file-wide knowledge rows are searched, nothing else. */
  readonly agentId: number;
  /** Free text; never read as FTS5 syntax. Empty (or only punctuation) lists the newest rows. */
  readonly query: string;
  /** Only these layers (default: all). */
  readonly layers?: readonly IndexLayer[] | undefined;
  /** Only rows of this radial line. */
  readonly lineId?: string | undefined;
  /** Only rows of this scene. */
  readonly sceneId?: string | undefined;
  /** Only rows of this topic (turn). */
  readonly topicId?: string | undefined;
  /** Only rows created at or after this time (ms since the epoch). */
  readonly from?: number | undefined;
  /** Only rows created before this time (ms since the epoch). */
  readonly to?: number | undefined;
  /** At most this many hits (default 10, at most 1000). */
  readonly limit?: number | undefined;
  /**
   * When given, the query is also embedded and searched in the vector table, and the two
   * ranked lists are fused. Rows whose embedding is still pending are found by BM25 only.
   */
  readonly embedder?: Embedder | undefined;
  /**
   * The time "now" for the recency prior (default: the newest row's time, so that a memory
   * replayed long after the fact ranks as it did at the time).
   */
  readonly now?: number | undefined;
  /** @internal Ranking weights (tests and the evaluation harness tune them). */
  readonly weights?: Partial<RankWeights> | undefined;
}

/** One ranked index row: where its text came from, and how well it answers the query. */
export interface SearchHit {
  /** The `search_docs` rowid. */
  readonly rowid: number;
  readonly layer: IndexLayer;
  /** Id of the verbatim record (node id, archive row id, topic id, knowledge node id, agent id). */
  readonly ref: string;
  /** Which text of the record matched (`label`, `summary`, `full` for nodes; '' when single). */
  readonly part: string;
  /** Owning agent; `null` for file-wide knowledge rows. */
  readonly agentId: number | null;
  readonly lineId: string | null;
  readonly sceneId: string | null;
  readonly topicId: string | null;
  /** When the record was written (for archive rows: the utterance time). */
  readonly createdAt: number;
  /** Ranking score: only meaningful to order the hits of one query (higher is better). */
  readonly score: number;
  /**
   * How much of the query the hit holds, 0..1, comparable across queries: the share of the
   * query's information (each query word weighted by its inverse document frequency in the
   * index) whose word (or stem) occurs in the hit's own text. 1 means every searched word of
   * the query is in the hit; a hit found only through its neighbours or a vector has a lower
   * value. See docs/file-format.md, "Recall index".
   */
  readonly confidence: number;
}

/** Default and maximum number of hits. */
export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 1000;

/**
 * Searches one agent's recall index (plus the file-wide knowledge rows): BM25 over FTS5, with
 * neighbour, recency and position priors, fused with vector search when an embedder is given.
 * Synchronous reads run in one read transaction; only the query embedding is awaited. An
 * embedder that fails (or was not the one the file's vectors were made with) is not used.
 *
 * @example
 * ```ts
 * const hits = await searchIndex(store, { agentId, query: 'where did we put the JWT secret?', layers: ['radial'] });
 * if (hits[0] && hits[0].confidence > 0.6) console.log(hits[0].ref);
 * ```
 */
export async function searchIndex(store: Store, options: SearchOptions): Promise<SearchHit[]> {
  const queryVector = (await embedQuery(store, options)) ?? undefined;
  return searchIndexSync(store, options, queryVector);
}

/**
 * The query's vector, when an embedder is given, the query has text, and the file's vectors
 * were made with that same model (vectors of two models are never compared).
 */
async function embedQuery(store: Store, options: SearchOptions): Promise<Float32Array | undefined> {
  const embedder = options.embedder;
  if (!embedder || options.query.trim().length === 0) return undefined;
  const model = store.engine.read('search', () => store.vectors.model());
  if (!model || model.modelId !== embedder.modelId || model.dimensions !== embedder.dimensions)
    return undefined;
  try {
    const [vector] = await embedder.embed([options.query]);
    return vector;
  } catch {
    // Vectors are optional: a failing embedder leaves the search to BM25.
    return undefined;
  }
}

/**
 * {@link searchIndex} without awaiting: BM25 (and the given query vector, if any) only.
 * For callers that already hold a read transaction or cannot await.
 */
export function searchIndexSync(
  store: Store,
  options: SearchOptions,
  queryVector?: Float32Array,
): SearchHit[] {
  const limit = clampLimit(options.limit);
  return store.engine.read('search', () =>
    rankDocuments(store, { ...options, limit }, queryVector, {
      ...DEFAULT_WEIGHTS,
      ...options.weights,
    }).map((ranked) => toHit(ranked.doc, ranked)),
  );
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_SEARCH_LIMIT;
  return Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(limit)));
}

function toHit(doc: DocRow, ranked: { score: number; confidence: number }): SearchHit {
  return {
    rowid: doc.rowid,
    layer: doc.layer,
    ref: doc.ref,
    part: doc.part,
    agentId: doc.agentId,
    lineId: doc.lineId,
    sceneId: doc.sceneId,
    topicId: doc.topicId,
    createdAt: doc.createdAt,
    score: ranked.score,
    confidence: ranked.confidence,
  };
}
