/**
 * The records of conversation memory as the repositories return them (plain, readonly data),
 * and the mapping from SQLite rows. Public types of the conversation API are these.
 */

/** Who said an utterance. `dream` is written only by hedgehop (fused-topic reconstructions). */
export type UtteranceRole = 'user' | 'agent' | 'system' | 'dream';
/** An archive record is dialogue (`utterance`) or something that happened (`event`). */
export type ArchiveKind = 'utterance' | 'event';
/** What an archive record's content is. */
export type ContentType = 'text' | 'image' | 'video' | 'document' | 'audio' | 'code' | 'other';
/** A plan step's state; `done` and `failed` are terminal. */
export type PlanStatus = 'in_progress' | 'done' | 'failed';

export const UTTERANCE_ROLES: readonly UtteranceRole[] = ['user', 'agent', 'system', 'dream'];
export const CONTENT_TYPES: readonly ContentType[] = [
  'text',
  'image',
  'video',
  'document',
  'audio',
  'code',
  'other',
];
export const PLAN_STATUSES: readonly PlanStatus[] = ['in_progress', 'done', 'failed'];

/** An agent's profile: who it is (host-owned fields) and what Dream estimated (library-owned). */
export interface Profile {
  readonly name: string;
  readonly role: string;
  readonly personality: string;
  readonly preferences: Readonly<Record<string, string>>;
  /** Each in 0..1 (0.5 is neutral valence); all 0 until Dream has estimated them. */
  readonly emotion: { readonly valence: number; readonly arousal: number; readonly dominance: number };
  /** Axes in -1..1 (negative = I/N/T/J); `type` is derived from the axes on every read. */
  readonly mbti: {
    readonly i_e: number;
    readonly n_s: number;
    readonly t_f: number;
    readonly j_p: number;
    readonly type: string;
  };
  readonly agentType: 'primary' | 'sub';
  /** 0 for a profile never written. */
  readonly updatedAt: number;
}

/** A scene: one conversation (session). */
export interface Scene {
  readonly id: string;
  readonly name: string;
  /** The knowledge graph this scene is anchored to, if any. */
  readonly knowledgeId: string | undefined;
  /** How many turns were opened in it (the last turn's number). */
  readonly turnSeq: number;
  readonly createdAt: number;
  readonly lastUsedAt: number;
}

/** A topic: one turn (open or closed), or a group Dream fused from adjacent turns. */
export interface Topic {
  readonly id: string;
  readonly sceneId: string;
  readonly kind: 'turn' | 'fused';
  readonly status: 'open' | 'closed';
  /** The turn's number in its scene (undefined for fused topics). */
  readonly turnSeq: number | undefined;
  readonly parentId: string | undefined;
  /** 1 = on the scene's surface; 2 = folded under a fused topic. */
  readonly depth: number;
  /** Host-given name (`renameTopic`); never derived. */
  readonly name: string | undefined;
  readonly keywords: readonly string[];
  /** True while the keywords still have to be distilled (a model failure, or not closed yet). */
  readonly keywordsPending: boolean;
  readonly outcome: string | undefined;
  /** Earliest utterance time of the turn (host clock), set when the turn closes. */
  readonly userTs: number | undefined;
  /** Latest utterance time of the turn (host clock), set when the turn closes. */
  readonly agentTs: number | undefined;
  readonly openedAt: number;
  readonly closedAt: number | undefined;
}

/** One verbatim archive record. */
export interface ArchiveRecord {
  /** Row id (the recall index's `ref` for layer `archive`). */
  readonly id: string;
  readonly topicId: string;
  readonly sceneId: string;
  /** Slot in the turn: 1 = input, 2 = output, 3.. = the rest. */
  readonly seq: number;
  readonly kind: ArchiveKind;
  /** Utterances only. */
  readonly role: UtteranceRole | undefined;
  /** Utterances only: who spoke, when the host named them (multi-speaker sessions). */
  readonly speaker: string | undefined;
  readonly contentType: ContentType;
  /** Events only. */
  readonly eventType: string | undefined;
  /** Events only: the plan step this event belongs to. */
  readonly planStep: number | undefined;
  readonly content: string;
  readonly createdAt: number;
}

/** One plan step as stored. */
export interface PlanNodeRow {
  readonly topicId: string;
  readonly seq: number;
  /** 0 = a root. */
  readonly parentSeq: number;
  readonly status: PlanStatus;
  readonly title: string;
  readonly summary: string;
  /** True when the summary was folded from the children by hedgehop (not written by the host). */
  readonly summaryFolded: boolean;
  readonly createdAt: number;
  readonly finishedAt: number | undefined;
  readonly updatedAt: number;
}

export interface RawScene {
  id: string;
  agent_id: number;
  name: string;
  knowledge_id: string | null;
  turn_seq: number;
  created_at: number;
  last_used_at: number;
}

export interface RawTopic {
  id: string;
  agent_id: number;
  scene_id: string;
  turn_seq: number | null;
  kind: 'turn' | 'fused';
  status: 'open' | 'closed';
  parent_id: string | null;
  depth: number;
  name: string | null;
  keywords: string;
  keywords_state: 'ready' | 'pending';
  outcome: string | null;
  user_ts: number | null;
  agent_ts: number | null;
  opened_at: number;
  closed_at: number | null;
}

export interface RawArchive {
  id: number;
  topic_id: string;
  scene_id: string;
  seq: number;
  kind: ArchiveKind;
  role: UtteranceRole | null;
  speaker: string | null;
  content_type: ContentType;
  event_type: string | null;
  plan_step: number | null;
  content: string;
  created_at: number;
}

export interface RawPlanNode {
  topic_id: string;
  seq: number;
  parent_seq: number;
  status: PlanStatus;
  title: string;
  summary: string;
  summary_folded: number;
  created_at: number;
  finished_at: number | null;
  updated_at: number;
}

const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** Parses a JSON array of strings, tolerating anything else as empty. */
export function parseStringList(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

export const toScene = (row: RawScene): Scene => ({
  id: row.id,
  name: row.name,
  knowledgeId: orUndefined(row.knowledge_id),
  turnSeq: row.turn_seq,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

export const toTopic = (row: RawTopic): Topic => ({
  id: row.id,
  sceneId: row.scene_id,
  kind: row.kind,
  status: row.status,
  turnSeq: orUndefined(row.turn_seq),
  parentId: orUndefined(row.parent_id),
  depth: row.depth,
  name: orUndefined(row.name),
  keywords: parseStringList(row.keywords),
  keywordsPending: row.keywords_state === 'pending',
  outcome: orUndefined(row.outcome),
  userTs: orUndefined(row.user_ts),
  agentTs: orUndefined(row.agent_ts),
  openedAt: row.opened_at,
  closedAt: orUndefined(row.closed_at),
});

export const toArchive = (row: RawArchive): ArchiveRecord => ({
  id: String(row.id),
  topicId: row.topic_id,
  sceneId: row.scene_id,
  seq: row.seq,
  kind: row.kind,
  role: orUndefined(row.role),
  speaker: orUndefined(row.speaker),
  contentType: row.content_type,
  eventType: orUndefined(row.event_type),
  planStep: orUndefined(row.plan_step),
  content: row.content,
  createdAt: row.created_at,
});

export const toPlanNode = (row: RawPlanNode): PlanNodeRow => ({
  topicId: row.topic_id,
  seq: row.seq,
  parentSeq: row.parent_seq,
  status: row.status,
  title: row.title,
  summary: row.summary,
  summaryFolded: row.summary_folded === 1,
  createdAt: row.created_at,
  finishedAt: orUndefined(row.finished_at),
  updatedAt: row.updated_at,
});

/** The text the recall index holds for an archive record: who spoke (or what happened), then the content. */
export function archiveIndexText(record: {
  readonly kind: ArchiveKind;
  readonly role: UtteranceRole | undefined;
  readonly speaker: string | undefined;
  readonly eventType: string | undefined;
  readonly content: string;
}): string {
  const label = record.kind === 'event' ? record.eventType : (record.speaker ?? record.role);
  return label ? `${label}: ${record.content}` : record.content;
}

/** The text the recall index holds for a topic: its name, keywords and outcome. */
export function topicIndexText(topic: {
  readonly name: string | undefined;
  readonly keywords: readonly string[];
  readonly outcome: string | undefined;
}): string {
  return [topic.name ?? '', topic.keywords.join(', '), topic.outcome ?? '']
    .filter((part) => part.length > 0)
    .join(' — ');
}
