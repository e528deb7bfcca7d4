/**
 * Rows of the verbatim tables as `reindex` reads them on both engines, and the plain mappers to
 * the records it indexes. Numbers arrive as numbers (the PostgreSQL repository converts them).
 */

import type { StoredNodeText } from '../core/index-text.js';

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
  /** Its utterance texts in slot order, Dream's reconstructions excepted (its index terms' source). */
  readonly utterances: readonly string[];
}

/** A radial node as the index needs it (JSON columns left as stored). */
export interface VerbatimNode extends StoredNodeText {
  readonly seq: number;
  readonly id: string;
  readonly agentId: number;
  readonly lineId: string;
  readonly createdAt: number;
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

export interface RawArchiveRow {
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
}

export function toVerbatimArchive(r: RawArchiveRow): VerbatimArchive {
  return {
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
  };
}

export interface RawTopicRow {
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
}

export function toVerbatimTopic(r: RawTopicRow, utterances: readonly string[]): VerbatimTopic {
  return {
    rowid: r.rowid,
    utterances,
    id: r.id,
    agentId: r.agent_id,
    sceneId: r.scene_id,
    name: u(r.name),
    keywords: stringArray(r.keywords),
    keywordsPending: r.keywords_state === 'pending',
    outcome: u(r.outcome),
    createdAt: r.user_ts ?? r.opened_at,
  };
}

export interface RawNodeRow {
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
}

export function toVerbatimNode(r: RawNodeRow): VerbatimNode {
  return {
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
  };
}

export interface RawKnowledgeRow {
  seq: number;
  id: string;
  title: string;
  type: string;
  content: string;
  keywords: string;
  observations: string;
  created_at: number;
}

export function toVerbatimKnowledge(r: RawKnowledgeRow): VerbatimKnowledge {
  return {
    seq: r.seq,
    id: r.id,
    title: r.title,
    type: r.type,
    content: r.content,
    keywords: stringArray(r.keywords),
    observations: stringArray(r.observations),
    createdAt: r.created_at,
  };
}
