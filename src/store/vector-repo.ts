import * as sqliteVec from 'sqlite-vec';
import { HedgehopError } from '../core/errors.js';
import type { Engine } from './engine.js';

/** The embedding model a file's vectors were made with (stored in `meta`). */
export interface VectorModel {
  readonly modelId: string;
  readonly dimensions: number;
}

/** One nearest neighbour: an index rowid and its cosine distance (0 = same direction). */
export interface VectorMatch {
  readonly rowid: number;
  readonly distance: number;
}

const MODEL_KEY = 'embedder.model';
const DIMENSIONS_KEY = 'embedder.dimensions';

/** Agent id under which file-wide rows (knowledge, agent null) are stored in the vector table. */
const FILE_WIDE = 0;

/**
 * Vectors per sqlite-vec chunk. A k-nearest search scans the table chunk by chunk and keeps a
 * top-k of each chunk; with chunks of 32 rather than sqlite-vec's default 1,024 a search over
 * 10,000 vectors (k = 300) costs about 0.8x the CPU. Files whose table was made with other
 * chunks are rebuilt with these when an embedder is next configured ({@link VectorRepo.configure}).
 */
export const VECTOR_CHUNK_SIZE = 32;

/** The definition of the vector table for `dimensions`-long embeddings. */
export function vectorTableSql(table: string, dimensions: number): string {
  return `CREATE VIRTUAL TABLE ${table} USING vec0(agent_id integer, embedding float[${dimensions}] distance_metric=cosine, chunk_size=${VECTOR_CHUNK_SIZE})`;
}

function blob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * Vectors of the recall index, in an sqlite-vec `vec0` table (`search_vec`, cosine distance,
 * one row per `search_docs` rowid, with the owning agent as a metadata column so a k-nearest
 * search never crosses agents). The table is created when an embedder is first configured,
 * since only then is its dimension known; the model id and dimension go into `meta`, and
 * vectors of another model are never mixed in.
 */
export class VectorRepo {
  readonly #engine: Engine;
  #loaded = false;
  /** Set once the table is known to have this build's layout (layouts only move forward). */
  #layoutCurrent = false;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /** Loads sqlite-vec into this connection (once). */
  #load(): void {
    if (this.#loaded) return;
    this.#engine.loadExtension(sqliteVec.getLoadablePath());
    this.#loaded = true;
  }

  /** The configured model, or undefined when the file has no vectors. */
  model(): VectorModel | undefined {
    const get = (key: string): string | undefined =>
      this.#engine.statement('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
    const modelId = get(MODEL_KEY);
    const dimensions = Number(get(DIMENSIONS_KEY));
    if (modelId === undefined || !Number.isInteger(dimensions) || dimensions <= 0) return undefined;
    return { modelId, dimensions };
  }

  /** True when the file holds (or expects) vectors. */
  enabled(): boolean {
    return this.model() !== undefined;
  }

  /**
   * True when the vector table (if any) has this build's layout ({@link VECTOR_CHUNK_SIZE});
   * false when {@link configure} would rebuild it.
   */
  layoutCurrent(): boolean {
    if (this.#layoutCurrent) return true;
    const sql = this.#engine
      .statement("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'search_vec'")
      .pluck()
      .get() as string | undefined;
    const current = sql === undefined || sql.includes(`chunk_size=${VECTOR_CHUNK_SIZE}`);
    if (current && sql !== undefined) this.#layoutCurrent = true;
    return current;
  }

  /**
   * Makes `model` the file's embedding model. The first time, creates the vector table and
   * marks every index row pending. Another model than the stored one is a `CONFLICT` unless
   * `replace` is set, in which case every vector is dropped and every row becomes pending.
   * The same model on a table of an older layout: the table is rebuilt with this build's,
   * every vector kept. Must run inside a write.
   */
  configure(model: VectorModel, replace = false): 'created' | 'unchanged' | 'replaced' {
    const current = this.model();
    if (current && current.modelId === model.modelId && current.dimensions === model.dimensions) {
      if (!this.layoutCurrent()) this.#rebuild(model.dimensions);
      return 'unchanged';
    }
    if (current && !replace) {
      throw new HedgehopError(
        'CONFLICT',
        `embedder: this file's vectors were made with ${current.modelId} (${current.dimensions} dimensions), not ${model.modelId} (${model.dimensions}); vectors of two models are never mixed (reset the embeddings to switch)`,
      );
    }
    this.#load();
    this.#engine.exec('configure vectors', 'DROP TABLE IF EXISTS search_vec');
    this.#engine.exec('configure vectors', vectorTableSql('search_vec', model.dimensions));
    const set = this.#engine.statement(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    );
    set.run(MODEL_KEY, model.modelId);
    set.run(DIMENSIONS_KEY, String(model.dimensions));
    this.#engine.statement("UPDATE search_docs SET embed_state = 'pending'").run();
    return current ? 'replaced' : 'created';
  }

  /** Rebuilds the vector table with this build's layout, keeping every row. Inside a write. */
  #rebuild(dimensions: number): void {
    this.#load();
    const exec = (sql: string): void => this.#engine.exec('rebuild vectors', sql);
    exec('DROP TABLE IF EXISTS temp.search_vec_rebuild');
    exec('CREATE TEMP TABLE search_vec_rebuild AS SELECT rowid AS id, agent_id, embedding FROM search_vec');
    exec('DROP TABLE search_vec');
    exec(vectorTableSql('search_vec', dimensions));
    exec(
      'INSERT INTO search_vec (rowid, agent_id, embedding) SELECT id, agent_id, embedding FROM temp.search_vec_rebuild ORDER BY id',
    );
    exec('DROP TABLE temp.search_vec_rebuild');
    this.#layoutCurrent = true;
  }

  /** Drops the vector of one row (its text changed or it was removed). Must run inside a write. */
  delete(rowid: number): void {
    if (!this.enabled()) return;
    this.#load();
    this.#engine.statement('DELETE FROM search_vec WHERE rowid = ?').run(BigInt(rowid));
  }

  /** Drops every vector and marks every row pending (after a rebuild). Must run inside a write. */
  invalidateAll(): void {
    if (!this.enabled()) return;
    this.#load();
    this.#engine.statement('DELETE FROM search_vec').run();
    this.#engine.statement("UPDATE search_docs SET embed_state = 'pending'").run();
  }

  /** Rowids whose embedding is pending, oldest first. */
  pending(limit: number, after = 0): number[] {
    return this.#engine
      .statement(
        "SELECT rowid FROM search_docs WHERE embed_state = 'pending' AND rowid > ? ORDER BY rowid LIMIT ?",
      )
      .pluck()
      .all(after, limit) as number[];
  }

  /** How many rows wait for an embedding. */
  pendingCount(): number {
    return this.#engine
      .statement("SELECT count(*) FROM search_docs WHERE embed_state = 'pending'")
      .pluck()
      .get() as number;
  }

  /**
   * Stores the vector of a row and marks it ready, if the row still exists and is still
   * pending. Must run inside a write.
   */
  save(rowid: number, vector: Float32Array): boolean {
    const model = this.model();
    if (!model) throw new HedgehopError('CONFLICT', 'vectors: no embedder is configured for this file');
    if (vector.length !== model.dimensions) {
      throw new HedgehopError(
        'INVALID_INPUT',
        `embedding: expected ${model.dimensions} dimensions (${model.modelId}), got ${vector.length}`,
        { field: 'embedding' },
      );
    }
    const row = this.#engine
      .statement('SELECT agent_id, embed_state FROM search_docs WHERE rowid = ?')
      .get(rowid) as { agent_id: number | null; embed_state: string } | undefined;
    if (!row || row.embed_state !== 'pending') return false;
    this.#load();
    this.#engine.statement('DELETE FROM search_vec WHERE rowid = ?').run(BigInt(rowid));
    this.#engine
      .statement('INSERT INTO search_vec (rowid, agent_id, embedding) VALUES (?, ?, ?)')
      .run(BigInt(rowid), BigInt(row.agent_id ?? FILE_WIDE), blob(vector));
    this.#engine.statement("UPDATE search_docs SET embed_state = 'ready' WHERE rowid = ?").run(rowid);
    return true;
  }

  /**
   * The `k` nearest rows to `vector` among the agent's own and the file-wide rows, nearest
   * first (on equal distance the agent's own first, then by rowid, as on PostgreSQL, so that the
   * order does not depend on how the table is laid out). Empty
   * when the file has no vectors. One scan: sqlite-vec filters the metadata column
   * while it scans, so `agent_id IN (own, file-wide)` reads each vector once (a second pass for
   * the file-wide rows, or a query asking whether any exist, would scan the whole table again).
   */
  nearest(vector: Float32Array, agentId: number, k: number): VectorMatch[] {
    const model = this.model();
    if (!model || vector.length !== model.dimensions || k <= 0) return [];
    this.#load();
    const rows = this.#engine
      .statement(
        `SELECT rowid, distance, agent_id FROM search_vec WHERE embedding MATCH ? AND k = ? AND agent_id IN (?, ?) ORDER BY distance`,
      )
      .all(blob(vector), k, BigInt(agentId), BigInt(FILE_WIDE)) as {
      rowid: number | bigint;
      distance: number;
      agent_id: number | bigint;
    }[];
    const shared = (row: { agent_id: number | bigint }): number => (Number(row.agent_id) === agentId ? 0 : 1);
    return rows
      .sort((a, b) => a.distance - b.distance || shared(a) - shared(b) || Number(a.rowid) - Number(b.rowid))
      .map((r) => ({ rowid: Number(r.rowid), distance: r.distance }));
  }
}
