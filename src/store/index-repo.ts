import { segmentCjk } from '../core/text.js';
import type { Engine } from './engine.js';
import type { VectorRepo } from './vector-repo.js';
import type { IndexLayer } from '../core/model/recall.js';
import { indexChanges } from './index-changes.js';

/** One text to index, with its provenance. */
export interface IndexDoc {
  readonly layer: IndexLayer;
  /** Id of the source record (node id, topic id, archive id, knowledge node id, agent id). */
  readonly ref: string;
  /** Which text of the record, when it has several (e.g. a node's `label`, `summary`, `full`). */
  readonly part?: string;
  /** Owning agent; `null` for file-wide rows (knowledge). */
  readonly agentId: number | null;
  readonly lineId?: string | null;
  readonly sceneId?: string | null;
  readonly topicId?: string | null;
  readonly createdAt: number;
  readonly text: string;
  /** For an archive record: the speaker it names, `''` for none (see `archiveIndexSpeaker`). */
  readonly speaker?: string | undefined;
}

/**
 * The write side of the recall index. Memory layers call these inside their own write
 * transactions, so a record and its index rows commit together (a radial node's rows excepted:
 * written just after its commit, see `IndexCatchUp`). Text is CJK-segmented here,
 * the one place index text is prepared (queries go through the same `segmentCjk`).
 */
export class IndexRepo {
  readonly #engine: Engine;
  readonly #vectors: VectorRepo | undefined;

  constructor(engine: Engine, vectors?: VectorRepo) {
    this.#engine = engine;
    this.#vectors = vectors;
  }

  /** The row's vector no longer matches its text (or the row is gone): drop it. */
  #dropVector(rowid: number, state: string): void {
    if (state === 'ready') this.#vectors?.delete(rowid);
  }

  /**
   * Inserts or replaces the index row for (layer, ref, part). Must run inside a write. With
   * `fresh`, the caller knows the record is new (a node id just made), so the lookup of a row to
   * replace is skipped; a row that exists after all fails the insert rather than doubling.
   */
  upsert(doc: IndexDoc, options?: { readonly fresh?: boolean }): number {
    const part = doc.part ?? '';
    const found = options?.fresh === true ? undefined : this.#lookup(doc.layer, doc.ref, part);
    if (found !== undefined) {
      const existing = found.rowid;
      this.#dropVector(existing, found.embed_state);
      this.#engine.statement('DELETE FROM search_fts WHERE rowid = ?').run(existing);
      indexChanges(this.#engine).changed();
      this.#engine
        .statement(
          `UPDATE search_docs SET agent_id = ?, line_id = ?, scene_id = ?, topic_id = ?, created_at = ?,
             speaker = ?, embed_state = CASE embed_state WHEN 'none' THEN 'none' ELSE 'pending' END
           WHERE rowid = ?`,
        )
        .run(
          doc.agentId,
          doc.lineId ?? null,
          doc.sceneId ?? null,
          doc.topicId ?? null,
          doc.createdAt,
          doc.speaker ?? null,
          existing,
        );
      this.#engine
        .statement('INSERT INTO search_fts (rowid, body) VALUES (?, ?)')
        .run(existing, segmentCjk(doc.text));
      return existing;
    }
    const info = this.#engine
      .statement(
        `INSERT INTO search_docs (agent_id, layer, ref, part, line_id, scene_id, topic_id, created_at, speaker, embed_state)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT CASE WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'embedder.model') THEN 'pending' ELSE 'none' END))`,
      )
      .run(
        doc.agentId,
        doc.layer,
        doc.ref,
        part,
        doc.lineId ?? null,
        doc.sceneId ?? null,
        doc.topicId ?? null,
        doc.createdAt,
        doc.speaker ?? null,
      );
    const rowid = Number(info.lastInsertRowid);
    const body = segmentCjk(doc.text);
    this.#engine.statement('INSERT INTO search_fts (rowid, body) VALUES (?, ?)').run(rowid, body);
    indexChanges(this.#engine).inserted(body);
    return rowid;
  }

  #lookup(layer: IndexLayer, ref: string, part: string): { rowid: number; embed_state: string } | undefined {
    return this.#engine
      .statement('SELECT rowid, embed_state FROM search_docs WHERE layer = ? AND ref = ? AND part = ?')
      .get(layer, ref, part) as { rowid: number; embed_state: string } | undefined;
  }

  /** Removes every index row of a record (all parts). Must run inside a write. */
  remove(layer: IndexLayer, ref: string): number {
    const rows = this.#engine
      .statement('SELECT rowid, embed_state FROM search_docs WHERE layer = ? AND ref = ?')
      .all(layer, ref) as { rowid: number; embed_state: string }[];
    for (const { rowid, embed_state: state } of rows) {
      this.#dropVector(rowid, state);
      this.#engine.statement('DELETE FROM search_fts WHERE rowid = ?').run(rowid);
      this.#engine.statement('DELETE FROM search_docs WHERE rowid = ?').run(rowid);
      indexChanges(this.#engine).changed();
    }
    return rows.length;
  }
}
