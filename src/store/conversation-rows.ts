import { HedgehopError, invalidInput } from '../core/errors.js';
import type {
  UtteranceRole,
  ArchiveKind,
  ContentType,
  PlanStatus,
  Scene,
  Topic,
  ArchiveRecord,
  PlanNodeRow,
} from '../core/model/conversation.js';
import type { IndexDoc } from './index-repo.js';
import { topicIndexText } from '../core/index-text.js';

/** Rows of conversation memory (engine-neutral: no SQL) and their mapping to the public records of src/core/model. */
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

/**
 * The recall-index row of a topic (`utterances`: its {@link TOPIC_UTTERANCES_SQL} texts);
 * `undefined` when it has no text (its row is removed).
 */
export function topicIndexDoc(
  agentId: number,
  topic: Topic,
  utterances: readonly string[],
): IndexDoc | undefined {
  const text = topicIndexText({
    name: topic.name,
    keywords: topic.keywordsPending ? [] : topic.keywords,
    outcome: topic.outcome,
    utterances,
  });
  if (text.length === 0) return undefined;
  return {
    layer: 'topic',
    ref: topic.id,
    agentId,
    sceneId: topic.sceneId,
    topicId: topic.id,
    createdAt: topic.userTs ?? topic.openedAt,
    text,
  };
}

/**
 * The texts a topic's index terms come from: its utterances in slot order, Dream's
 * reconstructions excepted (bind the topic id; SQLite spelling, `IS NOT` for PostgreSQL's
 * `IS DISTINCT FROM`).
 */
export const TOPIC_UTTERANCES_SQL = `SELECT content FROM archive
  WHERE topic_id = ? AND kind = 'utterance' AND role IS NOT 'dream' ORDER BY seq`;

/** The part of a turn-opening request that only a new scene may carry. */
interface SceneCreationFields {
  readonly newScene: boolean;
  readonly sceneId?: string | undefined;
  readonly knowledgeId?: string | undefined;
  readonly sceneName?: string | undefined;
}

/** `search` may anchor or name only a scene it creates. */
export function refuseCreationFields(request: SceneCreationFields): void {
  if (request.knowledgeId !== undefined)
    throw invalidInput(
      'search.knowledgeId',
      'anchors only a new scene (pass newScene: true, or use updateScene)',
    );
  if (request.sceneName !== undefined)
    throw invalidInput(
      'search.sceneName',
      'names only a new scene (pass newScene: true, or use updateScene)',
    );
}

/** A `search` while turn `open` is still open may not ask for a new or another scene. */
export function refuseResumeConflict(request: SceneCreationFields, open: RawTopic): void {
  const where = `turn ${open.id} is still open in scene ${open.scene_id}`;
  if (request.newScene)
    throw new HedgehopError('CONFLICT', `cannot start a new scene: ${where}`, { remedy: 'close-turn' });
  if (request.sceneId !== undefined && request.sceneId !== open.scene_id) {
    throw new HedgehopError('CONFLICT', `cannot switch to scene ${request.sceneId}: ${where}`, {
      remedy: 'close-turn',
    });
  }
}

/** The anchor of scenes merged into `primary`: its own, else the one anchor the others share. */
export function mergedAnchor(primary: Scene, secondaries: readonly Scene[]): string | undefined {
  if (primary.knowledgeId !== undefined) return primary.knowledgeId;
  const anchors = [...new Set(secondaries.map((s) => s.knowledgeId).filter((a) => a !== undefined))];
  if (anchors.length > 1) {
    throw new HedgehopError(
      'CONFLICT',
      `mergeScenes: the merged scenes are anchored to different knowledge graphs (${anchors.join(', ')}); anchor the kept scene first with updateScene`,
    );
  }
  return anchors[0];
}
