import type { IndexLayer } from '../../core/model/recall.js';
import type { IndexDoc } from '../index-repo.js';
import type { IndexRepository, VectorRepository } from '../seam.js';
import { indexText } from './fts.js';
import { first, int } from './pg-values.js';
import type { PgQuery } from './pg-query.js';

/**
 * Adds to the rows and tokens FTS5 counts in its averages record (see schema/index.ts). FTS5
 * with `contentless_delete` only ever adds to them: a deleted row's tokens stay counted, and a
 * replaced row (delete, then insert) counts twice, until the index is cleared. BM25 reads these
 * totals, so the PostgreSQL side counts alike to rank alike.
 */
export async function addTotals(db: PgQuery, docs: number, tokens: number): Promise<void> {
  if (docs === 0 && tokens === 0) return;
  await db.query(
    `INSERT INTO search_totals (shard, docs, tokens) VALUES (pg_backend_pid() % 64, $1, $2)
     ON CONFLICT (shard) DO UPDATE
       SET docs = search_totals.docs + excluded.docs, tokens = search_totals.tokens + excluded.tokens`,
    [docs, tokens],
  );
}

/**
 * The write side of the recall index on PostgreSQL (SQLite: src/store/index-repo.ts), with the
 * same calls and results. Text becomes lexemes in TypeScript (src/store/pg/fts.ts: the same
 * tokenizer, CJK segmentation and stemmer the query side uses), stored as a `tsvector`.
 * Concurrent writers of one (layer, ref, part) are ordered by a row lock, where SQLite has one
 * writer at a time.
 */
export class PgIndexRepo implements IndexRepository {
  readonly #db: PgQuery;
  readonly #vectors: VectorRepository | undefined;

  constructor(db: PgQuery, vectors?: VectorRepository) {
    this.#db = db;
    this.#vectors = vectors;
  }

  async #dropVector(rowid: number, state: string): Promise<void> {
    if (state === 'ready') await this.#vectors?.delete(rowid);
  }

  /**
   * Inserts or replaces the index row for (layer, ref, part). Must run inside a write. A new
   * row is one round trip (find, insert and count it in one statement), a replaced one two.
   */
  async upsert(doc: IndexDoc): Promise<number> {
    const part = doc.part ?? '';
    const text = indexText(doc.text);
    for (;;) {
      const row = await first<{ inserted: unknown; found: unknown; state: string | null }>(
        this.#db,
        `WITH found AS (
           SELECT rowid, embed_state FROM search_docs WHERE layer = $2::text AND ref = $3::text AND part = $4::text
           FOR UPDATE),
         ins AS (
           INSERT INTO search_docs (agent_id, layer, ref, part, line_id, scene_id, topic_id, created_at, embed_state,
             body, body_len, heavy)
           SELECT $1::bigint, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::bigint,
             CASE WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'embedder.model') THEN 'pending' ELSE 'none' END,
             $9::tsvector, $10::integer, $11::jsonb
           WHERE NOT EXISTS (SELECT 1 FROM found)
           ON CONFLICT (layer, ref, part) DO NOTHING RETURNING rowid),
         counted AS (
           INSERT INTO search_totals (shard, docs, tokens) SELECT pg_backend_pid() % 64, 1, $10::integer FROM ins
           ON CONFLICT (shard) DO UPDATE
             SET docs = search_totals.docs + excluded.docs, tokens = search_totals.tokens + excluded.tokens)
         SELECT (SELECT rowid FROM ins) AS inserted, (SELECT rowid FROM found) AS found,
           (SELECT embed_state FROM found) AS state`,
        [
          doc.agentId,
          doc.layer,
          doc.ref,
          part,
          doc.lineId ?? null,
          doc.sceneId ?? null,
          doc.topicId ?? null,
          doc.createdAt,
          text.vector,
          text.length,
          text.heavy,
        ],
      );
      if (row?.inserted !== null && row?.inserted !== undefined) return int(row.inserted);
      // Another transaction inserted the row meanwhile: update it instead (after its commit).
      if (row?.found === null || row?.found === undefined) continue;
      const rowid = int(row.found);
      await this.#dropVector(rowid, row.state ?? 'none');
      await this.#db.query(
        `WITH updated AS (
           UPDATE search_docs SET agent_id = $1, line_id = $2, scene_id = $3, topic_id = $4, created_at = $5,
             embed_state = CASE embed_state WHEN 'none' THEN 'none' ELSE 'pending' END,
             body = $6::tsvector, body_len = $7, heavy = $8::jsonb
           WHERE rowid = $9 RETURNING rowid)
         INSERT INTO search_totals (shard, docs, tokens) SELECT pg_backend_pid() % 64, 1, $7 FROM updated
         ON CONFLICT (shard) DO UPDATE
           SET docs = search_totals.docs + excluded.docs, tokens = search_totals.tokens + excluded.tokens`,
        [
          doc.agentId,
          doc.lineId ?? null,
          doc.sceneId ?? null,
          doc.topicId ?? null,
          doc.createdAt,
          text.vector,
          text.length,
          text.heavy,
          rowid,
        ],
      );
      return rowid;
    }
  }

  /** Removes every index row of a record (all parts). Must run inside a write. */
  async remove(layer: IndexLayer, ref: string): Promise<number> {
    const { rows } = await this.#db.query<{ rowid: unknown; embed_state: string }>(
      'DELETE FROM search_docs WHERE layer = $1 AND ref = $2 RETURNING rowid, embed_state',
      [layer, ref],
    );
    for (const row of rows) await this.#dropVector(int(row.rowid), row.embed_state);
    return rows.length;
  }
}
