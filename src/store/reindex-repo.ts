import type { Engine } from './engine.js';

/** An archive record as the index needs it. */
export interface VerbatimArchive {
  readonly id: number;
  readonly agentId: number;
  readonly topicId: string;
  readonly sceneId: string;
  readonly kind: 'utterance' | 'event';
  readonly role: 'user' | 'agent' | 'system' | 'dream' | undefined;
  readonly speaker: string | undefined;
  readonly eventType: string | undefined;
  readonly content: string;
  readonly createdAt: number;
}

/** A closed topic as the index needs it. */
export interface VerbatimTopic {
  readonly rowid: number;
  readonly id: string;
  readonly agentId: number;
  readonly sceneId: string;
  readonly name: string | undefined;
  readonly keywords: readonly string[];
  readonly keywordsPending: boolean;
  readonly outcome: string | undefined;
  readonly createdAt: number;
}

/** A radial node as the index needs it (JSON columns left as stored). */
export interface VerbatimNode {
  readonly seq: number;
  readonly id: string;
  readonly agentId: number;
  readonly lineId: string;
  readonly createdAt: number;
  readonly taskLabel: string;
  readonly conversationSummary: string;
  readonly fullContext: string;
  readonly fileChanges: string;
  readonly todos: string;
  readonly summariesReady: boolean;
  /** Who wrote the summaries (`nodes.summaries_tier`). */
  readonly summariesTier: number;
  readonly summaries: {
    readonly origin: string | undefined;
    readonly brief: string | undefined;
    readonly summary: string | undefined;
    readonly detailed: string | undefined;
  };
}

/** A knowledge node as the index needs it. */
export interface VerbatimKnowledge {
  readonly seq: number;
  readonly id: string;
  readonly title: string;
  readonly type: string;
  readonly content: string;
  readonly keywords: readonly string[];
  readonly observations: readonly string[];
  readonly createdAt: number;
}

const u = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

function stringArray(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

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
    this.#engine.statement('DELETE FROM search_docs').run();
  }

  /** Archive records with id > `after`, oldest first. */
  archive(after: number, limit: number): VerbatimArchive[] {
    const rows = this.#engine
      .statement(
        `SELECT a.id, a.agent_id, a.topic_id, t.scene_id, a.kind, a.role, a.speaker, a.event_type, a.content, a.created_at
         FROM archive a JOIN topics t ON t.id = a.topic_id WHERE a.id > ? ORDER BY a.id LIMIT ?`,
      )
      .all(after, limit) as {
      id: number;
      agent_id: number;
      topic_id: string;
      scene_id: string;
      kind: 'utterance' | 'event';
      role: VerbatimArchive['role'] | null;
      speaker: string | null;
      event_type: string | null;
      content: string;
      created_at: number;
    }[];
    return rows.map((r) => ({
      id: r.id,
      agentId: r.agent_id,
      topicId: r.topic_id,
      sceneId: r.scene_id,
      kind: r.kind,
      role: u(r.role),
      speaker: u(r.speaker),
      eventType: u(r.event_type),
      content: r.content,
      createdAt: r.created_at,
    }));
  }

  /** Closed topics with rowid > `after`. */
  topics(after: number, limit: number): VerbatimTopic[] {
    const rows = this.#engine
      .statement(
        `SELECT rowid, id, agent_id, scene_id, name, keywords, keywords_state, outcome, user_ts, opened_at
         FROM topics WHERE status = 'closed' AND rowid > ? ORDER BY rowid LIMIT ?`,
      )
      .all(after, limit) as {
      rowid: number;
      id: string;
      agent_id: number;
      scene_id: string;
      name: string | null;
      keywords: string;
      keywords_state: string;
      outcome: string | null;
      user_ts: number | null;
      opened_at: number;
    }[];
    return rows.map((r) => ({
      rowid: r.rowid,
      id: r.id,
      agentId: r.agent_id,
      sceneId: r.scene_id,
      name: u(r.name),
      keywords: stringArray(r.keywords),
      keywordsPending: r.keywords_state === 'pending',
      outcome: u(r.outcome),
      createdAt: r.user_ts ?? r.opened_at,
    }));
  }

  /** Radial nodes with seq > `after`. */
  nodes(after: number, limit: number): VerbatimNode[] {
    const rows = this.#engine
      .statement(
        `SELECT seq, id, agent_id, line_id, created_at, task_label, conversation_summary, full_context, file_changes,
                todos, s_origin, s_brief, s_summary, s_detailed, summaries_state, summaries_tier
         FROM nodes WHERE seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(after, limit) as {
      seq: number;
      id: string;
      agent_id: number;
      line_id: string;
      created_at: number;
      task_label: string;
      conversation_summary: string;
      full_context: string;
      file_changes: string;
      todos: string;
      s_origin: string | null;
      s_brief: string | null;
      s_summary: string | null;
      s_detailed: string | null;
      summaries_state: string;
      summaries_tier: number;
    }[];
    return rows.map((r) => ({
      seq: r.seq,
      id: r.id,
      agentId: r.agent_id,
      lineId: r.line_id,
      createdAt: r.created_at,
      taskLabel: r.task_label,
      conversationSummary: r.conversation_summary,
      fullContext: r.full_context,
      fileChanges: r.file_changes,
      todos: r.todos,
      summariesReady: r.summaries_state === 'ready',
      summariesTier: r.summaries_tier,
      summaries: {
        origin: u(r.s_origin),
        brief: u(r.s_brief),
        summary: u(r.s_summary),
        detailed: u(r.s_detailed),
      },
    }));
  }

  /** Knowledge nodes with seq > `after`. */
  knowledge(after: number, limit: number): VerbatimKnowledge[] {
    const rows = this.#engine
      .statement(
        `SELECT seq, id, title, type, content, keywords, observations, created_at
         FROM kg_nodes WHERE seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(after, limit) as {
      seq: number;
      id: string;
      title: string;
      type: string;
      content: string;
      keywords: string;
      observations: string;
      created_at: number;
    }[];
    return rows.map((r) => ({
      seq: r.seq,
      id: r.id,
      title: r.title,
      type: r.type,
      content: r.content,
      keywords: stringArray(r.keywords),
      observations: stringArray(r.observations),
      createdAt: r.created_at,
    }));
  }

  /** Agents that have a stored profile. */
  profileAgents(): number[] {
    return this.#engine
      .statement('SELECT agent_id FROM profiles ORDER BY agent_id')
      .pluck()
      .all() as number[];
  }
}
