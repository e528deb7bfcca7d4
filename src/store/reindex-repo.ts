import type { Engine } from './engine.js';
import { TOPIC_UTTERANCES_SQL } from './conversation-rows.js';
import {
  toVerbatimArchive,
  toVerbatimKnowledge,
  toVerbatimNode,
  toVerbatimTopic,
  type RawArchiveRow,
  type RawKnowledgeRow,
  type RawNodeRow,
  type RawTopicRow,
} from './reindex-rows.js';

import type { VerbatimArchive, VerbatimTopic, VerbatimNode, VerbatimKnowledge } from './reindex-rows.js';
import { indexChanges } from './index-changes.js';

export type { VerbatimArchive, VerbatimTopic, VerbatimNode, VerbatimKnowledge };

/**
 * What `reindex` reads and clears: the verbatim tables in key order, a batch at a time, and
 * the derived index tables. Batches are read inside the caller's write transaction, so what
 * is indexed is exactly what is stored when the batch commits.
 */
export class ReindexRepo {
  readonly #engine: Engine;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /** How many records each layer holds (profiles counted per agent). */
  counts(): { archive: number; topic: number; radial: number; knowledge: number; profile: number } {
    const count = (sql: string): number => this.#engine.statement(sql).pluck().get() as number;
    return {
      archive: count('SELECT count(*) FROM archive'),
      topic: count("SELECT count(*) FROM topics WHERE status = 'closed'"),
      radial: count('SELECT count(*) FROM nodes'),
      knowledge: count('SELECT count(*) FROM kg_nodes'),
      profile: count('SELECT count(*) FROM profiles'),
    };
  }

  /** Deletes every index row (FTS5 and `search_docs`); vectors are the vector repository's. */
  clear(): void {
    this.#engine.statement("INSERT INTO search_fts (search_fts) VALUES ('delete-all')").run();
    indexChanges(this.#engine).changed();
    this.#engine.statement('DELETE FROM search_docs').run();
  }

  /** Archive records with id > `after`, oldest first. */
  archive(after: number, limit: number): VerbatimArchive[] {
    const rows = this.#engine
      .statement(
        `SELECT a.id, a.agent_id, a.topic_id, t.scene_id, a.kind, a.role, a.speaker, a.event_type, a.content, a.created_at
         FROM archive a JOIN topics t ON t.id = a.topic_id WHERE a.id > ? ORDER BY a.id LIMIT ?`,
      )
      .all(after, limit) as RawArchiveRow[];
    return rows.map(toVerbatimArchive);
  }

  /** Closed topics with rowid > `after`. */
  topics(after: number, limit: number): VerbatimTopic[] {
    const rows = this.#engine
      .statement(
        `SELECT rowid, id, agent_id, scene_id, name, keywords, keywords_state, outcome, user_ts, opened_at
         FROM topics WHERE status = 'closed' AND rowid > ? ORDER BY rowid LIMIT ?`,
      )
      .all(after, limit) as RawTopicRow[];
    const utterances = this.#engine.statement(TOPIC_UTTERANCES_SQL).pluck(true);
    return rows.map((row) => toVerbatimTopic(row, utterances.all(row.id) as string[]));
  }

  /** Radial nodes with seq > `after`. */
  nodes(after: number, limit: number): VerbatimNode[] {
    const rows = this.#engine
      .statement(
        `SELECT seq, id, agent_id, line_id, created_at, task_label, conversation_summary, full_context, file_changes,
                todos, s_origin, s_brief, s_summary, s_detailed, summaries_state, summaries_tier
         FROM nodes WHERE seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(after, limit) as RawNodeRow[];
    return rows.map(toVerbatimNode);
  }

  /** Knowledge nodes with seq > `after`. */
  knowledge(after: number, limit: number): VerbatimKnowledge[] {
    const rows = this.#engine
      .statement(
        `SELECT seq, id, title, type, content, keywords, observations, created_at
         FROM kg_nodes WHERE seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(after, limit) as RawKnowledgeRow[];
    return rows.map(toVerbatimKnowledge);
  }

  /** Agents that have a stored profile. */
  profileAgents(): number[] {
    return this.#engine
      .statement('SELECT agent_id FROM profiles ORDER BY agent_id')
      .pluck()
      .all() as number[];
  }
}
