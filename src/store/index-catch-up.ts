import { storedNodeIndexTexts } from '../core/index-text.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import { toVerbatimNode, type RawNodeRow } from './reindex-rows.js';

/**
 * `meta` key: every node with `seq` up to this value has its recall-index rows. A commit writes
 * its node without them (the index rows are derived, and writing them took more than half of a
 * commit's storage time: FTS5's flush and some ten more WAL pages to fsync); the store writes
 * them just after ({@link IndexCatchUp.catchUp}: once the committing handle's event loop turns,
 * or before its next read), and after a crash the next writable open writes whatever was
 * pending.
 * Absent until the first such commit: every node before it was written with its index rows.
 */
export const NODES_INDEXED_KEY = 'index.nodes_through';

/** Nodes read per statement while catching up the index. */
const CATCH_UP_BATCH = 200;

/** What one catch-up did: nodes indexed, and whether nodes are still pending (its `limit` reached). */
export interface CatchUpResult {
  readonly indexed: number;
  readonly more: boolean;
}

/**
 * The SQLite engine's catch-up of the radial recall-index rows that commits leave to the next
 * read (see {@link NODES_INDEXED_KEY}). Engine-internal: not part of the seam.
 */
export class IndexCatchUp {
  readonly #engine: Engine;
  readonly #index: IndexRepo;

  constructor(engine: Engine, index: IndexRepo) {
    this.#engine = engine;
    this.#index = index;
  }

  /** True when some node was committed without its recall-index rows (see {@link NODES_INDEXED_KEY}). */
  indexLags(): boolean {
    return this.#engine.read('index catch-up', () => {
      const row = this.#engine
        .statement(
          `SELECT (SELECT max(seq) FROM nodes) AS top,
                  (SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?) AS through`,
        )
        .get(NODES_INDEXED_KEY) as { top: number | null; through: number | null };
      return row.through !== null && (row.top ?? 0) > row.through;
    });
  }

  /**
   * Writes the recall-index rows of nodes committed without them (the texts their commits would
   * have written, made from their rows), oldest first, at most `limit` nodes, and moves
   * {@link NODES_INDEXED_KEY} past them, in one write. With `wait` false it gives up at once
   * when another connection holds the write lock (returns `'busy'`, nothing written); with
   * `wait` it waits for the lock as any write does. A row already there (a summary filled
   * meanwhile, an import) is replaced, so running it twice writes the same rows.
   */
  catchUp(options: { wait: boolean; limit: number }): CatchUpResult | 'busy' {
    const work = (): CatchUpResult => this.#indexPending(options.limit);
    if (options.wait) return this.#engine.write('index catch-up', work);
    return this.#engine.tryWrite('index catch-up', work)?.value ?? 'busy';
  }

  #indexPending(limit: number): CatchUpResult {
    let after = this.#engine
      .statement('SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?')
      .pluck()
      .get(NODES_INDEXED_KEY) as number | undefined;
    if (after === undefined) return { indexed: 0, more: false };
    let indexed = 0;
    let more = false;
    for (;;) {
      const room = limit - indexed;
      if (room <= 0) {
        more =
          this.#engine.statement('SELECT 1 FROM nodes WHERE seq > ? LIMIT 1').pluck().get(after) !==
          undefined;
        break;
      }
      const batch = Math.min(CATCH_UP_BATCH, room);
      const rows = this.#engine
        .statement(
          `SELECT seq, id, agent_id, line_id, created_at, task_label, conversation_summary, full_context,
                  file_changes, todos, s_origin, s_brief, s_summary, s_detailed, summaries_state, summaries_tier
           FROM nodes WHERE seq > ? ORDER BY seq LIMIT ?`,
        )
        .all(after, batch) as RawNodeRow[];
      for (const row of rows) {
        this.#indexNode(row);
        after = row.seq;
        indexed++;
      }
      if (rows.length < batch) break;
    }
    if (indexed > 0)
      this.#engine
        .statement('UPDATE meta SET value = CAST(? AS TEXT) WHERE key = ?')
        .run(after, NODES_INDEXED_KEY);
    return { indexed, more };
  }

  #indexNode(row: RawNodeRow): void {
    const node = toVerbatimNode(row);
    for (const doc of storedNodeIndexTexts(node)) {
      if (doc.text.length === 0) continue;
      this.#index.upsert({
        layer: 'radial',
        ref: node.id,
        part: doc.part,
        agentId: node.agentId,
        lineId: node.lineId,
        createdAt: node.createdAt,
        text: doc.text,
      });
    }
  }
}
