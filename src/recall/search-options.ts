/** What a search of the recall index takes: the query, its filters, and the ranking weights. */
import type { IndexLayer } from '../core/model/recall.js';
import type { Embedder } from '../llm/types.js';

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

/** Tuning of the ranking; the defaults were chosen on development data, see docs/benchmarks.md. */
export interface RankWeights {
  /** How many BM25 candidates are re-ranked (at least `limit`). */
  readonly candidates: number;
  /** Weight of the best neighbour's score (adjacent turns in the same scene). */
  readonly neighbour: number;
  /** How far (in turns) neighbours reach, and the decay per turn. */
  readonly neighbourWindow: number;
  readonly neighbourDecay: number;
  /** How many of the best archive candidates spread their score to their neighbours. */
  readonly neighbourSeeds: number;
  /** Weight of the scene's own relevance (its best hits) in each of its rows' scores. */
  readonly scene: number;
  /** Weight of the recency prior, and its half-life in ms. */
  readonly recency: number;
  readonly recencyHalfLifeMs: number;
  /**
   * Weight of pseudo-relevance feedback, from how many top hits, with how many words. Twelve
   * seeds rather than eight draw the feedback words from more than one session's best turns.
   */
  readonly feedback: number;
  readonly feedbackDocs: number;
  readonly feedbackTerms: number;
  /** Weight of the vector list in reciprocal-rank fusion (BM25's is 1). */
  readonly vector: number;
  /** Feedback words come from the best hits after the priors (true) or by BM25 alone. */
  readonly feedbackAfterPriors: boolean;
  /** Feedback words held by more than this share of the index rows are not searched. */
  readonly feedbackMaxShare: number;
  /** Feedback words held by more rows than this are not searched, whatever the index size. */
  readonly feedbackMaxRows: number;
  /**
   * How many of the feedback query's best matches add to the scores (at most `candidates`):
   * 100 ranks as 300 did on LoCoMo (R@10 the same in every category) and reads a third of the rows.
   */
  readonly feedbackCandidates: number;
  /** Share of a matching topic's score its turn's records gain. */
  readonly topic: number;
  /** Weight of a record whose speaker (a leading `Name:` label) is named in the query. */
  readonly speaker: number;
  /** At most this many rows of one scene in the first `sceneCapWindow` places (0: no cap). */
  readonly sceneCap: number;
  readonly sceneCapWindow: number;
}
