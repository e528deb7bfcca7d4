import type { IndexLayer } from '../../core/model/recall.js';
import type { IndexDoc } from '../index-repo.js';
import type { IndexRepository, VectorRepository } from '../seam.js';
import { indexText } from './fts.js';
import { int } from './pg-values.js';
import { lastStatement, type PgQuery } from './pg-query.js';

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
   * Inserts or replaces the index row for (layer, ref, part). Must run inside a write. One
   * statement: `hh_index_put` (src/store/pg/schema/write-functions.ts) finds the row under a row
   * lock, replaces it (dropping its stale vector) or inserts it, and counts it.
   */
  async upsert(doc: IndexDoc): Promise<number> {
    return int((await this.#put(doc, false))?.rowid);
  }

  /**
   * {@link PgIndexRepo.upsert} as the write's last statement: COMMIT goes out behind it when the
   * write allows it ({@link lastStatement}); nothing may be sent after it.
   */
  async upsertLast(doc: IndexDoc): Promise<number> {
    return int((await this.#put(doc, true))?.rowid);
  }

  async #put(doc: IndexDoc, last: boolean): Promise<{ rowid: unknown } | undefined> {
    const text = indexText(doc.text);
    const statement = `SELECT hh_index_put($1, $2, $3, $4, $5, $6, $7, $8, $9::tsvector, $10, $11::jsonb) AS rowid`;
    const values = [
      doc.agentId,
      doc.layer,
      doc.ref,
      doc.part ?? '',
      doc.lineId ?? null,
      doc.sceneId ?? null,
      doc.topicId ?? null,
      doc.createdAt,
      text.vector,
      text.length,
      text.heavy,
    ];
    const { rows } = last
      ? await lastStatement<{ rowid: unknown }>(this.#db, statement, values)
      : await this.#db.query<{ rowid: unknown }>(statement, values);
    return rows[0];
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
