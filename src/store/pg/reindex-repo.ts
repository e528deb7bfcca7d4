import type { VerbatimArchive, VerbatimKnowledge, VerbatimNode, VerbatimTopic } from '../reindex-repo.js';
import {
  toVerbatimArchive,
  toVerbatimKnowledge,
  toVerbatimNode,
  toVerbatimTopic,
  type RawArchiveRow,
  type RawKnowledgeRow,
  type RawNodeRow,
  type RawTopicRow,
} from '../reindex-rows.js';
import type { ReindexRepository } from '../seam.js';
import { first, fromUtf8, int, intOrNull, sqlLimit } from './pg-values.js';
import type { PgQuery } from './pg-query.js';
import { topicUtterances } from './topic-utterances.js';

/**
 * What `reindex` reads and clears on PostgreSQL (SQLite: src/store/reindex-repo.ts), with the
 * same calls and results: the verbatim tables in key order, a batch at a time (inside the
 * caller's write, so what is indexed is what is stored when the batch commits), and the derived
 * index tables. Topics are read in `topics.rowid` order (the conversation part's insertion-order
 * column, SQLite's implicit rowid).
 */
export class PgReindexRepo implements ReindexRepository {
  readonly #db: PgQuery;

  constructor(db: PgQuery) {
    this.#db = db;
  }

  /** How many records each layer holds (profiles counted per agent). */
  async counts(): Promise<{
    archive: number;
    topic: number;
    radial: number;
    knowledge: number;
    profile: number;
  }> {
    const row = await first<Record<string, unknown>>(
      this.#db,
      `SELECT (SELECT count(*) FROM archive) AS archive,
              (SELECT count(*) FROM topics WHERE status = 'closed') AS topic,
              (SELECT count(*) FROM nodes) AS radial,
              (SELECT count(*) FROM kg_nodes) AS knowledge,
              (SELECT count(*) FROM profiles) AS profile`,
    );
    return {
      archive: int(row?.archive ?? 0),
      topic: int(row?.topic ?? 0),
      radial: int(row?.radial ?? 0),
      knowledge: int(row?.knowledge ?? 0),
      profile: int(row?.profile ?? 0),
    };
  }

  /**
   * Deletes every index row (and the totals BM25 reads); vectors are the vector repository's.
   * Row ids start again at 1, as SQLite's do once its table is empty: the ranking's document
   * count is the largest row id (see PgRecallRepo.approximateDocCount), so a rebuilt index ranks
   * and rates confidence as SQLite's does, not as if every old row were still there. (Restarting
   * the identity is transactional: a failed rebuild rolls it back with the rows.)
   */
  async clear(): Promise<void> {
    await this.#db.query('DELETE FROM search_docs');
    await this.#db.query('DELETE FROM search_totals');
    await this.#db.query('ALTER TABLE search_docs ALTER COLUMN rowid RESTART WITH 1');
  }

  /** Archive records with id > `after`, oldest first. */
  async archive(after: number, limit: number): Promise<VerbatimArchive[]> {
    const { rows } = await this.#db.query<RawArchiveRow>(
      `SELECT a.id, a.agent_id, a.topic_id, t.scene_id, a.kind, a.role, a.speaker, a.event_type, a.content, a.created_at
       FROM archive a JOIN topics t ON t.id = a.topic_id WHERE a.id > $1 ORDER BY a.id LIMIT $2`,
      [after, sqlLimit(limit)],
    );
    return rows.map((r) =>
      toVerbatimArchive({ ...r, id: int(r.id), agent_id: int(r.agent_id), created_at: int(r.created_at) }),
    );
  }

  /** Closed topics with rowid > `after`. */
  async topics(after: number, limit: number): Promise<VerbatimTopic[]> {
    const { rows } = await this.#db.query<RawTopicRow>(
      `SELECT rowid, id, agent_id, scene_id, name, keywords, keywords_state, outcome, user_ts, opened_at
       FROM topics WHERE status = 'closed' AND rowid > $1 ORDER BY rowid LIMIT $2`,
      [after, sqlLimit(limit)],
    );
    const topics: VerbatimTopic[] = [];
    for (const r of rows) {
      topics.push(
        toVerbatimTopic(
          {
            ...r,
            rowid: int(r.rowid),
            agent_id: int(r.agent_id),
            user_ts: intOrNull(r.user_ts),
            opened_at: int(r.opened_at),
          },
          await topicUtterances(this.#db, r.id),
        ),
      );
    }
    return topics;
  }

  /** Radial nodes with seq > `after`. */
  async nodes(after: number, limit: number): Promise<VerbatimNode[]> {
    const { rows } = await this.#db.query<Omit<RawNodeRow, 'full_context'> & { full_context: unknown }>(
      `SELECT seq, id, agent_id, line_id, created_at, task_label, conversation_summary, full_context, file_changes,
              todos, s_origin, s_brief, s_summary, s_detailed, summaries_state, summaries_tier
       FROM nodes WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [after, sqlLimit(limit)],
    );
    return rows.map((r) =>
      toVerbatimNode({
        ...r,
        seq: int(r.seq),
        agent_id: int(r.agent_id),
        created_at: int(r.created_at),
        summaries_tier: int(r.summaries_tier),
        full_context: fromUtf8(r.full_context),
      }),
    );
  }

  /** Knowledge nodes with seq > `after`. */
  async knowledge(after: number, limit: number): Promise<VerbatimKnowledge[]> {
    const { rows } = await this.#db.query<RawKnowledgeRow>(
      `SELECT seq, id, title, type, content, keywords, observations, created_at
       FROM kg_nodes WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [after, sqlLimit(limit)],
    );
    return rows.map((r) => toVerbatimKnowledge({ ...r, seq: int(r.seq), created_at: int(r.created_at) }));
  }

  /** Agents that have a stored profile. */
  async profileAgents(): Promise<number[]> {
    const { rows } = await this.#db.query<{ agent_id: unknown }>(
      'SELECT agent_id FROM profiles ORDER BY agent_id',
    );
    return rows.map((r) => int(r.agent_id));
  }
}
