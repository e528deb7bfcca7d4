import { HedgehopError } from '../../core/errors.js';
import type { VectorMatch, VectorModel } from '../vector-repo.js';
import type { VectorRepository } from '../seam.js';
import { first, int, withSavepoint } from './pg-values.js';
import type { PgQuery } from './pg-query.js';

const MODEL_KEY = 'embedder.model';
const DIMENSIONS_KEY = 'embedder.dimensions';

/** Agent id under which memory-wide rows (knowledge, agent null) are stored in the vector table. */
const FILE_WIDE = 0;

/** How `search_vec` stores its vectors: a pgvector column (in `schema`), or a `real[]` one. */
export type VectorStorage = { readonly kind: 'vector'; readonly schema: string } | { readonly kind: 'array' };

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** pgvector's text form of a vector (`[1,2,3]`): each float32 printed exactly. */
function vectorLiteral(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

function norm(vector: Float32Array): number {
  let sum = 0;
  for (const x of vector) sum += x * x;
  return Math.sqrt(sum);
}

/** How the current `search_vec` stores vectors (read from the catalog), or undefined without one. */
export async function vectorStorage(db: PgQuery): Promise<VectorStorage | undefined> {
  const row = await first<{ type: string; schema: string }>(
    db,
    `SELECT t.typname AS type, n.nspname AS schema FROM pg_attribute a
       JOIN pg_type t ON t.oid = a.atttypid JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE a.attrelid = to_regclass('search_vec') AND a.attname = 'embedding'`,
  );
  if (!row) return undefined;
  return row.type === 'vector' ? { kind: 'vector', schema: row.schema } : { kind: 'array' };
}

/** pgvector's schema when the extension is (or can be) installed, else undefined. */
async function pgvectorSchema(db: PgQuery): Promise<string | undefined> {
  const installed = async (): Promise<string | undefined> =>
    (
      await first<{ schema: string }>(
        db,
        `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
         WHERE e.extname = 'vector'`,
      )
    )?.schema;
  const found = await installed();
  if (found !== undefined) return found;
  try {
    await withSavepoint(db, () => db.query('CREATE EXTENSION IF NOT EXISTS vector SCHEMA public'));
  } catch {
    return undefined; // not available on this server, or no right to install it: plain arrays
  }
  return installed();
}

/**
 * (Re)creates the empty vector table for vectors of `dimensions`: a pgvector `vector(n)` column
 * when the extension is there or can be created, else `real[]` with each vector's norm. Must
 * run inside a write.
 */
export async function createVectorTable(db: PgQuery, dimensions: number): Promise<void> {
  await db.query('DROP TABLE IF EXISTS search_vec');
  const schema = await pgvectorSchema(db);
  const column =
    schema === undefined
      ? 'norm float8 NOT NULL, embedding real[] NOT NULL'
      : `embedding ${quoteIdent(schema)}.vector(${dimensions}) NOT NULL`;
  await db.query(`CREATE TABLE search_vec (rowid bigint PRIMARY KEY, agent_id bigint NOT NULL, ${column})`);
  await db.query('CREATE INDEX search_vec_agent ON search_vec (agent_id)');
}

/** Stores one vector row as `storage` keeps it (no checks: the caller has made them). */
export async function insertVector(
  db: PgQuery,
  storage: VectorStorage,
  row: { readonly rowid: number; readonly agentId: number; readonly vector: Float32Array },
): Promise<void> {
  if (storage.kind === 'vector') {
    await db.query(
      `INSERT INTO search_vec (rowid, agent_id, embedding) VALUES ($1, $2, $3::${quoteIdent(storage.schema)}.vector)`,
      [row.rowid, row.agentId, vectorLiteral(row.vector)],
    );
  } else {
    await db.query(
      'INSERT INTO search_vec (rowid, agent_id, norm, embedding) VALUES ($1, $2, $3, $4::real[])',
      [row.rowid, row.agentId, norm(row.vector), Array.from(row.vector)],
    );
  }
}

/** The select list reading `search_vec` as a dump holds it: rowid, agent_id, embedding ({@link parseEmbedding}). */
export function vectorColumnsSql(storage: VectorStorage): string {
  return storage.kind === 'vector'
    ? 'rowid, agent_id, embedding::text AS embedding'
    : 'rowid, agent_id, embedding';
}

/**
 * A stored embedding as float32 values: pgvector's text form (`[1,2,3]`) or a `real[]` as
 * node-postgres returns it (numbers). Both print each float with the shortest digits that
 * read back as the same float32, so nothing is lost.
 */
export function parseEmbedding(value: unknown): Float32Array {
  if (typeof value === 'string') {
    const inner = value.trim().replace(/^\[|\]$/gu, '');
    return Float32Array.from(inner.length === 0 ? [] : inner.split(',').map(Number));
  }
  if (Array.isArray(value)) return Float32Array.from(value.map(Number));
  throw new HedgehopError(
    'CORRUPT',
    `search_vec: an embedding is neither a vector nor a real[] (${typeof value})`,
  );
}

/**
 * Vectors of the recall index on PostgreSQL (SQLite: src/store/vector-repo.ts, an sqlite-vec
 * table), with the same calls and results. When the server has pgvector (or lets
 * `CREATE EXTENSION vector` succeed, installed in schema `public` so every memory's schema can
 * use it), `search_vec.embedding` is a `vector(n)` column searched with its cosine distance
 * `<=>`; otherwise a `real[]` column (float32, as sqlite-vec stores) searched exactly in SQL
 * with the same cosine distance. Either way the search is exact k-nearest, as sqlite-vec's is
 * (no approximate index). Distances are computed in double precision where sqlite-vec uses
 * single, so they may differ from SQLite's in the seventh digit.
 */
export class PgVectorRepo implements VectorRepository {
  readonly #db: PgQuery;

  constructor(db: PgQuery) {
    this.#db = db;
  }

  /** The configured model, or undefined when the memory has no vectors. */
  async model(): Promise<VectorModel | undefined> {
    const { rows } = await this.#db.query<{ key: string; value: string }>(
      'SELECT key, value FROM meta WHERE key = ANY($1::text[])',
      [[MODEL_KEY, DIMENSIONS_KEY]],
    );
    const get = (key: string): string | undefined => rows.find((row) => row.key === key)?.value;
    const modelId = get(MODEL_KEY);
    const dimensions = Number(get(DIMENSIONS_KEY));
    if (modelId === undefined || !Number.isInteger(dimensions) || dimensions <= 0) return undefined;
    return { modelId, dimensions };
  }

  /** Always true: the PostgreSQL vector table has one layout (SQLite's has chunk sizes). */
  layoutCurrent(): Promise<boolean> {
    return Promise.resolve(true);
  }

  /** True when the memory holds (or expects) vectors. */
  async enabled(): Promise<boolean> {
    return (await this.model()) !== undefined;
  }

  /**
   * Makes `model` the memory's embedding model. The first time, creates the vector table and
   * marks every index row pending. Another model than the stored one is a `CONFLICT` unless
   * `replace` is set, in which case every vector is dropped and every row becomes pending.
   * Must run inside a write.
   */
  async configure(model: VectorModel, replace = false): Promise<'created' | 'unchanged' | 'replaced'> {
    const current = await this.model();
    if (current && current.modelId === model.modelId && current.dimensions === model.dimensions) {
      return 'unchanged';
    }
    if (current && !replace) {
      throw new HedgehopError(
        'CONFLICT',
        `embedder: this file's vectors were made with ${current.modelId} (${current.dimensions} dimensions), not ${model.modelId} (${model.dimensions}); vectors of two models are never mixed (reset the embeddings to switch)`,
      );
    }
    if (!Number.isInteger(model.dimensions) || model.dimensions <= 0) {
      throw new HedgehopError(
        'INVALID_INPUT',
        `dimensions: expected a positive integer, got ${model.dimensions}`,
        {
          field: 'dimensions',
        },
      );
    }
    await createVectorTable(this.#db, model.dimensions);
    for (const [key, value] of [
      [MODEL_KEY, model.modelId],
      [DIMENSIONS_KEY, String(model.dimensions)],
    ]) {
      await this.#db.query(
        'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [key, value],
      );
    }
    await this.#db.query("UPDATE search_docs SET embed_state = 'pending'");
    return current ? 'replaced' : 'created';
  }

  /** Drops the vector of one row (its text changed or it was removed). Must run inside a write. */
  async delete(rowid: number): Promise<void> {
    if (!(await this.enabled())) return;
    await this.#db.query('DELETE FROM search_vec WHERE rowid = $1', [rowid]);
  }

  /** Drops every vector and marks every row pending (after a rebuild). Must run inside a write. */
  async invalidateAll(): Promise<void> {
    if (!(await this.enabled())) return;
    await this.#db.query('DELETE FROM search_vec');
    await this.#db.query("UPDATE search_docs SET embed_state = 'pending'");
  }

  /** Rowids whose embedding is pending, oldest first. */
  async pending(limit: number, after = 0): Promise<number[]> {
    const { rows } = await this.#db.query<{ rowid: unknown }>(
      "SELECT rowid FROM search_docs WHERE embed_state = 'pending' AND rowid > $1 ORDER BY rowid LIMIT $2",
      [after, limit < 0 ? null : limit],
    );
    return rows.map((row) => int(row.rowid));
  }

  /** How many rows wait for an embedding. */
  async pendingCount(): Promise<number> {
    const row = await first<{ count: unknown }>(
      this.#db,
      "SELECT count(*) AS count FROM search_docs WHERE embed_state = 'pending'",
    );
    return int(row?.count ?? 0);
  }

  /**
   * Stores the vector of a row and marks it ready, if the row still exists and is still
   * pending (the row is locked while checked). Must run inside a write.
   */
  async save(rowid: number, vector: Float32Array): Promise<boolean> {
    const model = await this.model();
    if (!model) throw new HedgehopError('CONFLICT', 'vectors: no embedder is configured for this file');
    if (vector.length !== model.dimensions) {
      throw new HedgehopError(
        'INVALID_INPUT',
        `embedding: expected ${model.dimensions} dimensions (${model.modelId}), got ${vector.length}`,
        { field: 'embedding' },
      );
    }
    const row = await first<{ agent_id: unknown; embed_state: string }>(
      this.#db,
      'SELECT agent_id, embed_state FROM search_docs WHERE rowid = $1 FOR UPDATE',
      [rowid],
    );
    if (!row || row.embed_state !== 'pending') return false;
    const agent = row.agent_id === null ? FILE_WIDE : int(row.agent_id);
    const storage = await vectorStorage(this.#db);
    if (!storage)
      throw new HedgehopError('CORRUPT', 'vectors: meta names an embedder but search_vec is missing');
    await this.#db.query('DELETE FROM search_vec WHERE rowid = $1', [rowid]);
    await insertVector(this.#db, storage, { rowid, agentId: agent, vector });
    await this.#db.query("UPDATE search_docs SET embed_state = 'ready' WHERE rowid = $1", [rowid]);
    return true;
  }

  /**
   * The `k` nearest rows to `vector` among the agent's own and the memory-wide rows, nearest
   * first (on equal distance the agent's own first, then by rowid). Empty without vectors.
   */
  async nearest(vector: Float32Array, agentId: number, k: number): Promise<VectorMatch[]> {
    const model = await this.model();
    if (!model || vector.length !== model.dimensions || k <= 0) return [];
    const storage = await vectorStorage(this.#db);
    if (!storage) return [];
    const distance =
      storage.kind === 'vector'
        ? `v.embedding OPERATOR(${quoteIdent(storage.schema)}.<=>) $1::${quoteIdent(storage.schema)}.vector`
        : `CASE WHEN v.norm = 0 OR $4::float8 = 0 THEN 'NaN'::float8 ELSE
             1 - (SELECT sum(a::float8 * b) FROM unnest(v.embedding, $1::float8[]) AS t(a, b)) / (v.norm * $4::float8) END`;
    const query = storage.kind === 'vector' ? vectorLiteral(vector) : Array.from(vector);
    const { rows } = await this.#db.query<{ rowid: unknown; distance: unknown }>(
      `SELECT v.rowid, ${distance} AS distance FROM search_vec v
       WHERE v.agent_id = $2 OR v.agent_id = ${FILE_WIDE}
       ORDER BY distance, v.agent_id <> $2, v.rowid LIMIT $3`,
      storage.kind === 'vector' ? [query, agentId, k] : [query, agentId, k, norm(vector)],
    );
    return rows.map((row) => ({ rowid: int(row.rowid), distance: Number(row.distance) }));
  }
}
