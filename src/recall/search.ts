import { type IndexLayer, type SearchHit, MAX_SEARCH_LIMIT } from '../core/model/recall.js';
import type { DocRow, ResolvedText } from '../store/recall-repo.js';
import type { StoreSeam } from '../store/seam.js';
import { DEFAULT_WEIGHTS, rankDocuments, type RankReads } from './rank.js';
import { type SearchOptions } from './search-options.js';

/** Default and maximum number of hits. */
const DEFAULT_SEARCH_LIMIT = 10;
/**
 * Searches one agent's recall index (plus the file-wide knowledge rows): BM25 over FTS5, with
 * neighbour, recency and position priors, fused with vector search when an embedder is given.
 * The reads run in one read transaction, after the query embedding (never inside it). An
 * embedder that fails (or was not the one the file's vectors were made with) is not used.
 *
 * @example
 * ```ts
 * const hits = await searchIndex(store, { agentId, query: 'where did we put the JWT secret?', layers: ['radial'] });
 * if (hits[0] && hits[0].confidence > 0.6) console.log(hits[0].ref);
 * ```
 */
export async function searchIndex(store: StoreSeam, options: SearchOptions): Promise<SearchHit[]> {
  const queryVector = (await embedQuery(store, options)) ?? undefined;
  return store.read('search', (tx) => searchIndexIn(tx, options, queryVector));
}

/**
 * The query's vector, when an embedder is given, the query has text, and the file's vectors
 * were made with that same model (vectors of two models are never compared).
 */
async function embedQuery(store: StoreSeam, options: SearchOptions): Promise<Float32Array | undefined> {
  const embedder = options.embedder;
  if (!embedder || options.query.trim().length === 0) return undefined;
  const model = await store.read('search', (tx) => tx.vectors.model());
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
 * {@link searchIndex} inside the caller's transaction: BM25 (and the given query vector, if
 * any) only, no embedder call (none may happen inside a transaction).
 */
export async function searchIndexIn(
  tx: RankReads,
  options: SearchOptions,
  queryVector?: Float32Array,
): Promise<SearchHit[]> {
  const limit = clampLimit(options.limit);
  const ranked = await rankDocuments(tx, { ...options, limit }, queryVector, {
    ...DEFAULT_WEIGHTS,
    ...options.weights,
  });
  return ranked.map((entry) => toHit(entry.doc, entry));
}

/** A hit with the verbatim text behind it (read once while ranking). */
export interface ResolvedHit {
  readonly hit: SearchHit;
  readonly resolved: ResolvedText;
  /** True when the row is one of the query's own FTS5 matches (its index text holds a query word). */
  readonly matchesQuery: boolean;
}

/**
 * {@link searchIndex} that also hands back each hit's verbatim text, read in the same snapshot
 * as the ranking (hits whose record is gone are left out). Recall builds its context from it.
 */
export async function searchIndexResolved(store: StoreSeam, options: SearchOptions): Promise<ResolvedHit[]> {
  const ranked = await rankInSnapshot(store, options, true);
  const out: ResolvedHit[] = [];
  for (const entry of ranked) {
    if (entry.resolved)
      out.push({ hit: toHit(entry.doc, entry), resolved: entry.resolved, matchesQuery: entry.matchesQuery });
  }
  return out;
}

/** One row of a ranking read for its order only (see {@link searchIndexOrder}). */
export interface RankedRow {
  readonly layer: IndexLayer;
  readonly ref: string;
  /** True when the row is one of the query's own FTS5 matches (its index text holds a query word). */
  readonly matchesQuery: boolean;
}

/**
 * {@link searchIndex}'s order and nothing else: the hits' texts are not read and no confidence
 * is worked out (searchArchive reads the records it returns itself).
 */
export async function searchIndexOrder(store: StoreSeam, options: SearchOptions): Promise<RankedRow[]> {
  const ranked = await rankInSnapshot(store, options, false);
  return ranked.map((entry) => ({
    layer: entry.doc.layer,
    ref: entry.doc.ref,
    matchesQuery: entry.matchesQuery,
  }));
}

/**
 * The query embedded (outside any transaction), then ranked in one read snapshot; the hits'
 * texts are read in that snapshot only when `readTexts`.
 */
async function rankInSnapshot(
  store: StoreSeam,
  options: SearchOptions,
  readTexts: boolean,
): ReturnType<typeof rankDocuments> {
  const queryVector = (await embedQuery(store, options)) ?? undefined;
  const limit = clampLimit(options.limit);
  return store.read('search', (tx) =>
    rankDocuments(tx, { ...options, limit, readTexts }, queryVector, {
      ...DEFAULT_WEIGHTS,
      ...options.weights,
    }),
  );
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_SEARCH_LIMIT;
  return Math.max(1, Math.min(MAX_SEARCH_LIMIT, Math.floor(limit)));
}

/**
 * A hit of a ranked row. Its confidence is read from the ranking when first asked for: recall's
 * rankings work it out lazily, for the hits they return only. Built whole (no copy per row).
 */
function toHit(doc: DocRow, ranked: { score: number; readonly confidence: number }): SearchHit {
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
    get confidence(): number {
      return ranked.confidence;
    },
  };
}
