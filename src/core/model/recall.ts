import { z } from 'zod';
import { timeInput } from '../time-input.js';
import type { DetailLevelName } from './levels.js';

/** Recall across every layer: the layers, options, hits and results of `agent.recall`. */

export const MAX_SEARCH_LIMIT = 1000;

/** Which layer an index row belongs to. */
export type IndexLayer = 'radial' | 'topic' | 'archive' | 'knowledge' | 'profile';

/** Every layer the recall index holds. */
export const INDEX_LAYERS = [
  'radial',
  'topic',
  'archive',
  'knowledge',
  'profile',
] as const satisfies readonly IndexLayer[];

const idSchema = z.string().min(1, 'must not be empty').max(256, 'at most 256 characters');

const timeSchema = timeInput(
  z
    .number({ error: 'must be milliseconds since the epoch, an ISO 8601 date-time string or a Date' })
    .int('must be an integer (ms since the epoch)')
    .min(0, 'must not be negative'),
);

/** Options of `agent.recall(query, options)`. */
export const recallOptionsSchema = z
  .strictObject({
    /** Token budget of the assembled context (default 1000; 0 gives hits only). */
    budgetTokens: z
      .number()
      .int('must be an integer')
      .min(0, 'must not be negative')
      .max(1_000_000)
      .default(1000),
    /** At most this many hits (default 10). */
    limit: z
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(MAX_SEARCH_LIMIT)
      .default(10),
    layers: z
      .array(z.enum(INDEX_LAYERS, { error: `must be one of ${INDEX_LAYERS.join(', ')}` }))
      .min(1, 'must name at least one layer')
      .optional(),
    lineId: idSchema.optional(),
    sceneId: idSchema.optional(),
    topicId: idSchema.optional(),
    /** Only records created at or after this time (ms or Date). */
    from: timeSchema.optional(),
    /** Only records created before this time (ms or Date). */
    to: timeSchema.optional(),
  })
  .check((ctx) => {
    const { from, to } = ctx.value;
    if (from !== undefined && to !== undefined && to < from) {
      ctx.issues.push({ code: 'custom', path: ['to'], message: 'must not be before from', input: ctx.value });
    }
  });

/** Options of `agent.recall`. */
export type RecallOptions = z.input<typeof recallOptionsSchema>;

/**
 * The query of `agent.recall` on every surface (library, CLI, MCP, HTTP): a string of at most
 * {@link MAX_QUERY_CHARS} characters holding something besides whitespace. An empty query is a
 * mistake, not a request for everything (as for navigation); the newest records are listed by
 * `searchArchive` and the scene views.
 */
export const recallQuerySchema = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(100_000, 'at most 100000 characters')
  .refine((query) => query.trim().length > 0, 'must not be empty');

/** Where a recalled item came from: enough to read the verbatim record again. */
export interface Provenance {
  readonly layer: IndexLayer;
  /** The owning agent's name; `null` for file-wide knowledge. */
  readonly agent: string | null;
  readonly agentId: number | null;
  /** The verbatim table and the record's id in it (`archive` row id, node id, topic id, …). */
  readonly table: 'archive' | 'nodes' | 'topics' | 'kg_nodes' | 'profiles';
  readonly sourceId: string;
  /** Which text of the record matched (`label`, `conversation`, `summary`, `full`; '' for one-text records). */
  readonly part: string;
  readonly lineId?: string;
  /** Radial nodes: position on the line when recalled (1 = newest). */
  readonly position?: number;
  readonly sceneId?: string;
  readonly topicId?: string;
  /** Archive utterances: who spoke (speaker name, else role). */
  readonly speaker?: string;
  readonly createdAt: number;
}

/** One recalled item. */
export interface RecallHit {
  readonly layer: IndexLayer;
  readonly ref: string;
  /** Only meaningful to order the hits of one recall. */
  readonly score: number;
  /** 0..1, comparable across queries (see `SearchHit.confidence`). */
  readonly confidence: number;
  readonly provenance: Provenance;
  /** The verbatim text of the part that matched. */
  readonly text: string;
  /**
   * At most 200 characters of it, on one line: its sentences nearest the query. A task's opens
   * with its label, then (when another of its texts matched) that text's nearest sentences.
   */
  readonly preview: string;
  /** The level at which the context holds this item, or `none`. */
  readonly inContext: ContextLevel | 'none';
}

/** What `agent.recall` returns. */
export interface RecallResult {
  readonly query: string;
  readonly hits: readonly RecallHit[];
  /** The best items, each labelled with where it came from, within `budgetTokens`. */
  readonly context: string;
  /** Tokens of `context` (o200k_base), never more than `budgetTokens`. */
  readonly usedTokens: number;
  readonly budgetTokens: number;
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

/** How much of one item the assembled context shows. */
export type ContextLevel = Exclude<DetailLevelName, 'origin'>;

/** The longest query text recall and navigation take, on every surface. */
export const MAX_QUERY_CHARS = 100_000;

/** A query text: a string of at most {@link MAX_QUERY_CHARS} characters. */
export const queryTextSchema = z
  .string({ error: 'must be a string' })
  .max(MAX_QUERY_CHARS, `at most ${MAX_QUERY_CHARS} characters`);
