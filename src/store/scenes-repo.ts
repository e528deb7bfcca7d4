import { HedgehopError, notFound } from '../core/errors.js';
import type { ArchiveRepo, ArchiveWrite } from './archive-repo.js';
import {
  mergedAnchor,
  parseStringList,
  refuseCreationFields,
  refuseResumeConflict,
  toScene,
  toTopic,
  topicIndexDoc,
  TOPIC_UTTERANCES_SQL,
  type RawScene,
  type RawTopic,
} from './conversation-rows.js';
import {
  defaultSceneName,
  type Scene,
  type Topic,
  type UtteranceRole,
  type DeleteReport,
  type MergeReport,
  type TopicMessages,
} from '../core/model/conversation.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import { noOpenTurn, readOpenTurn } from './open-turn.js';
import { indexChanges } from './index-changes.js';

/** What `search` asks for; validated by the caller. */
export interface OpenTurnRequest {
  readonly agentId: number;
  readonly sceneId?: string | undefined;
  readonly newScene: boolean;
  readonly knowledgeId?: string | undefined;
  readonly sceneName?: string | undefined;
  readonly now: number;
  /** Ids to use if a scene / a turn is created (minted by the caller). */
  readonly newSceneId: string;
  readonly newTopicId: string;
}

/** The turn `search` opened (or found still open), its scene and the scene's surface. */
export interface OpenedTurn {
  readonly scene: Scene;
  readonly turn: Topic;
  /** True when the turn was already open (a second `search` before `update`). */
  readonly resumed: boolean;
  readonly sceneCreated: boolean;
  /** Closed depth-1 topics of the scene, oldest first. */
  readonly surface: Topic[];
}

/** What `update` writes, computed before the transaction. */
export interface CloseTurnRequest {
  readonly agentId: number;
  /** The turn the keywords were distilled for; the close is refused if another turn is open now. */
  readonly turnId: string;
  readonly records: readonly ArchiveWrite[];
  /** `undefined` = distillation failed: the topic is written with keywords pending. */
  readonly keywords: readonly string[] | undefined;
  readonly outcome: string | undefined;
  readonly createdAt: number;
  readonly now: number;
}

/** The topic `update` closed, and how many closed depth-1 topics its scene holds now. */
export interface ClosedTurn {
  readonly topic: Topic;
  /** The scene's surface as the closing transaction left it (Dream's trigger measures it). */
  readonly surfaceCount: number;
}

/** A change to a scene. `knowledgeId: null` clears the anchor. */
export interface ScenePatch {
  readonly name?: string | undefined;
  readonly knowledgeId?: string | null | undefined;
  readonly force?: boolean | undefined;
}

const jsonList = (values: readonly string[]): string => JSON.stringify(values);

/** Scenes, topics (turns) and the agent's current scene. */
export class ScenesRepo {
  readonly #engine: Engine;
  readonly #index: IndexRepo;
  readonly #archive: ArchiveRepo;

  constructor(engine: Engine, index: IndexRepo, archive: ArchiveRepo) {
    this.#engine = engine;
    this.#index = index;
    this.#archive = archive;
  }

  /**
   * The turn-opening half of `search`, in one transaction: resolves the scene (named, new,
   * current, or created), opens a turn on it and makes it current. When a turn is already open,
   * returns it (`resumed`) if the request is compatible, and refuses with `CONFLICT` if the request
   * names another scene or a new one.
   */
  openTurn(request: OpenTurnRequest): OpenedTurn {
    return this.#engine.write('search', () => {
      const open = readOpenTurn(this.#engine, request.agentId);
      if (open) return this.#resume(request, open);
      const { scene, created } = this.#resolveScene(request);
      this.#engine
        .statement(
          'UPDATE scenes SET turn_seq = turn_seq + 1, last_used_at = max(?, last_used_at) WHERE id = ?',
        )
        .run(request.now, scene.id);
      const turnSeq = scene.turnSeq + 1;
      this.#engine
        .statement(
          `INSERT INTO topics (id, agent_id, scene_id, turn_seq, kind, status, depth, opened_at)
           VALUES (?, ?, ?, ?, 'turn', 'open', 1, ?)`,
        )
        .run(request.newTopicId, request.agentId, scene.id, turnSeq, request.now);
      this.#setCurrent(request.agentId, scene.id);
      return {
        scene: this.#sceneOrThrow(request.agentId, scene.id),
        turn: this.#topicOrThrow(request.agentId, request.newTopicId),
        resumed: false,
        sceneCreated: created,
        surface: this.surface(scene.id),
      };
    });
  }

  #resume(request: OpenTurnRequest, open: RawTopic): OpenedTurn {
    refuseResumeConflict(request, open);
    refuseCreationFields(request);
    // A resumed turn writes nothing (the current scene already is the turn's, unless a merge moved it).
    if (this.currentScene(request.agentId)?.id !== open.scene_id)
      this.#setCurrent(request.agentId, open.scene_id);
    return {
      scene: this.#sceneOrThrow(request.agentId, open.scene_id),
      turn: toTopic(open),
      resumed: true,
      sceneCreated: false,
      surface: this.surface(open.scene_id),
    };
  }

  #resolveScene(request: OpenTurnRequest): { scene: Scene; created: boolean } {
    if (request.sceneId !== undefined) {
      refuseCreationFields(request);
      return { scene: this.#sceneOrThrow(request.agentId, request.sceneId), created: false };
    }
    if (!request.newScene) {
      const current = this.currentScene(request.agentId);
      if (current) {
        refuseCreationFields(request);
        return { scene: current, created: false };
      }
    }
    return { scene: this.#createScene(request), created: true };
  }

  #createScene(request: OpenTurnRequest): Scene {
    if (request.knowledgeId !== undefined) this.#requireKnowledge(request.knowledgeId, 'search');
    this.#engine
      .statement(
        `INSERT INTO scenes (id, agent_id, name, knowledge_id, turn_seq, created_at, last_used_at)
         VALUES (?, ?, ?, ?, 0, ?, ?)`,
      )
      .run(
        request.newSceneId,
        request.agentId,
        request.sceneName ?? defaultSceneName(request.newSceneId),
        request.knowledgeId ?? null,
        request.now,
        request.now,
      );
    return this.#sceneOrThrow(request.agentId, request.newSceneId);
  }

  #requireKnowledge(knowledgeId: string, what: string): void {
    const exists = this.#engine
      .statement('SELECT 1 FROM kg_graphs WHERE id = ?')
      .pluck(true)
      .get(knowledgeId);
    if (exists === undefined) throw notFound(`${what}: no knowledge graph ${knowledgeId}`);
  }

  #setCurrent(agentId: number, sceneId: string | null): void {
    this.#engine
      .statement(
        `INSERT INTO agent_state (agent_id, current_scene_id) VALUES (?, ?)
         ON CONFLICT (agent_id) DO UPDATE SET current_scene_id = excluded.current_scene_id`,
      )
      .run(agentId, sceneId);
  }

  /**
   * The agent's current scene: the one its last `search` used, or after that scene is gone, the
   * most recently used (ties: more turns, then the smaller id). `undefined` when it has none.
   */
  currentScene(agentId: number): Scene | undefined {
    const current = this.#engine
      .statement(
        `SELECT s.* FROM agent_state a JOIN scenes s ON s.id = a.current_scene_id AND s.agent_id = a.agent_id
         WHERE a.agent_id = ?`,
      )
      .pluck(false)
      .get(agentId) as RawScene | undefined;
    if (current) return toScene(current);
    const latest = this.#engine
      .statement(
        'SELECT * FROM scenes WHERE agent_id = ? ORDER BY last_used_at DESC, turn_seq DESC, id LIMIT 1',
      )
      .pluck(false)
      .get(agentId) as RawScene | undefined;
    return latest ? toScene(latest) : undefined;
  }

  /** The agent's open turn, if any. */
  openTurnOf(agentId: number): Topic | undefined {
    const row = readOpenTurn(this.#engine, agentId);
    return row ? toTopic(row) : undefined;
  }

  /** Closed depth-1 topics of a scene ordered by (first utterance time, id): what a host injects. */
  surface(sceneId: string): Topic[] {
    return (
      this.#engine
        .statement(
          `SELECT * FROM topics WHERE scene_id = ? AND depth = 1 AND status = 'closed' ORDER BY user_ts, id`,
        )
        .pluck(false)
        .all(sceneId) as RawTopic[]
    ).map(toTopic);
  }

  /**
   * The closing half of `update`, in one transaction: writes the dialogue and outcome records,
   * sets the topic's keywords (or leaves them pending), times and outcome, closes the turn and
   * indexes it; counts the scene's surface after it.
   */
  closeTurn(request: CloseTurnRequest): ClosedTurn {
    return this.#engine.write('update', () => {
      const open = readOpenTurn(this.#engine, request.agentId);
      if (!open) throw noOpenTurn('update');
      if (open.id !== request.turnId) {
        throw new HedgehopError(
          'CONFLICT',
          `update: turn ${request.turnId} was closed by another caller while its keywords were distilled; turn ${open.id} is open now`,
        );
      }
      this.#archive.writeInto(open, request.records);
      const times = this.#engine
        .statement(
          "SELECT min(created_at) AS lo, max(created_at) AS hi FROM archive WHERE topic_id = ? AND kind = 'utterance'",
        )
        .pluck(false)
        .get(open.id) as { lo: number | null; hi: number | null };
      this.#engine
        .statement(
          `UPDATE topics SET status = 'closed', closed_at = ?, keywords = ?, keywords_state = ?,
             outcome = coalesce(?, outcome), user_ts = ?, agent_ts = ? WHERE id = ?`,
        )
        .run(
          request.now,
          JSON.stringify(request.keywords ?? []),
          request.keywords === undefined ? 'pending' : 'ready',
          request.outcome ?? null,
          times.lo ?? request.createdAt,
          times.hi ?? request.createdAt,
          open.id,
        );
      const topic = this.#topicOrThrow(request.agentId, open.id);
      this.#reindexTopic(request.agentId, topic);
      const surfaceCount = this.#engine
        .statement("SELECT count(*) FROM topics WHERE scene_id = ? AND depth = 1 AND status = 'closed'")
        .pluck(true)
        .get(topic.sceneId) as number;
      return { topic, surfaceCount };
    });
  }

  /** Closed topics whose keywords are pending, oldest close first. */
  pendingKeywordTopics(agentId: number, limit: number): Topic[] {
    return (
      this.#engine
        .statement(
          `SELECT * FROM topics WHERE agent_id = ? AND keywords_state = 'pending' AND status = 'closed'
           ORDER BY closed_at, id LIMIT ?`,
        )
        .pluck(false)
        .all(agentId, limit) as RawTopic[]
    ).map(toTopic);
  }

  /** Fills a pending topic's keywords; false when it is gone or no longer pending. */
  fillKeywords(agentId: number, topicId: string, keywords: readonly string[]): boolean {
    return this.#engine.write('fill keywords', () => {
      const changes = this.#engine
        .statement(
          `UPDATE topics SET keywords = ?, keywords_state = 'ready'
           WHERE id = ? AND agent_id = ? AND keywords_state = 'pending' AND status = 'closed'`,
        )
        .run(JSON.stringify(keywords), topicId, agentId).changes;
      if (changes === 0) return false;
      this.#reindexTopic(agentId, this.#topicOrThrow(agentId, topicId));
      return true;
    });
  }

  #reindexTopic(agentId: number, topic: Topic): void {
    const utterances = this.#engine.statement(TOPIC_UTTERANCES_SQL).pluck(true).all(topic.id) as string[];
    const doc = topicIndexDoc(agentId, topic, utterances);
    if (doc === undefined) this.#index.remove('topic', topic.id);
    else this.#index.upsert(doc);
  }

  /** One scene of the agent. */
  getScene(agentId: number, sceneId: string): Scene | undefined {
    const row = this.#engine
      .statement('SELECT * FROM scenes WHERE id = ? AND agent_id = ?')
      .pluck(false)
      .get(sceneId, agentId) as RawScene | undefined;
    return row ? toScene(row) : undefined;
  }

  #sceneOrThrow(agentId: number, sceneId: string): Scene {
    const scene = this.getScene(agentId, sceneId);
    if (!scene) throw notFound(`no scene ${sceneId} for this agent`);
    return scene;
  }

  /** One topic of the agent. */
  getTopic(agentId: number, topicId: string): Topic | undefined {
    const row = this.#engine
      .statement('SELECT * FROM topics WHERE id = ? AND agent_id = ?')
      .pluck(false)
      .get(topicId, agentId) as RawTopic | undefined;
    return row ? toTopic(row) : undefined;
  }

  #topicOrThrow(agentId: number, topicId: string): Topic {
    const topic = this.getTopic(agentId, topicId);
    if (!topic) throw notFound(`no topic ${topicId} for this agent`);
    return topic;
  }

  /** The agent's scenes, oldest first; with `knowledgeId`, only those anchored to it. */
  listScenes(agentId: number, knowledgeId?: string): Scene[] {
    const rows = (
      knowledgeId === undefined
        ? this.#engine
            .statement('SELECT * FROM scenes WHERE agent_id = ? ORDER BY created_at, id')
            .pluck(false)
            .all(agentId)
        : this.#engine
            .statement('SELECT * FROM scenes WHERE agent_id = ? AND knowledge_id = ? ORDER BY created_at, id')
            .pluck(false)
            .all(agentId, knowledgeId)
    ) as RawScene[];
    return rows.map(toScene);
  }

  /**
   * A scene's closed topics of depth ≤ 2 ordered by (first utterance time, depth, id), each with
   * its utterances in slot order.
   */
  sceneTopics(sceneId: string): TopicMessages[] {
    const topics = (
      this.#engine
        .statement(
          `SELECT * FROM topics WHERE scene_id = ? AND depth <= 2 AND status = 'closed'
           ORDER BY user_ts, depth, id`,
        )
        .pluck(false)
        .all(sceneId) as RawTopic[]
    ).map(toTopic);
    const messages = this.#engine
      .statement(
        `SELECT a.topic_id, a.seq, a.role, a.speaker, a.content_type, a.content, a.created_at
         FROM archive a JOIN topics t ON t.id = a.topic_id
         WHERE t.scene_id = ? AND t.depth <= 2 AND t.status = 'closed' AND a.kind = 'utterance'
         ORDER BY a.topic_id, a.seq`,
      )
      .pluck(false)
      .all(sceneId) as {
      topic_id: string;
      seq: number;
      role: UtteranceRole;
      speaker: string | null;
      content_type: string;
      content: string;
      created_at: number;
    }[];
    const byTopic = new Map<string, TopicMessages['messages'][number][]>();
    for (const row of messages) {
      let list = byTopic.get(row.topic_id);
      if (!list) byTopic.set(row.topic_id, (list = []));
      list.push({
        seq: row.seq,
        role: row.role,
        speaker: row.speaker ?? undefined,
        contentType: row.content_type,
        content: row.content,
        createdAt: row.created_at,
      });
    }
    return topics.map((topic) => ({ topic, messages: byTopic.get(topic.id) ?? [] }));
  }

  /** Renames or re-anchors a scene in one transaction; writes nothing when nothing changes. */
  updateScene(agentId: number, sceneId: string, patch: ScenePatch): Scene {
    return this.#engine.write('updateScene', () => {
      const scene = this.#sceneOrThrow(agentId, sceneId);
      let anchor = scene.knowledgeId;
      if (patch.knowledgeId === null) anchor = undefined;
      else if (patch.knowledgeId !== undefined) {
        this.#requireKnowledge(patch.knowledgeId, 'updateScene');
        if (scene.knowledgeId !== undefined && scene.knowledgeId !== patch.knowledgeId && !patch.force) {
          throw new HedgehopError(
            'CONFLICT',
            `updateScene: scene ${sceneId} is anchored to ${scene.knowledgeId}; pass force: true to replace the anchor`,
          );
        }
        anchor = patch.knowledgeId;
      }
      const name = patch.name ?? scene.name;
      if (name === scene.name && anchor === scene.knowledgeId) return scene;
      this.#engine
        .statement('UPDATE scenes SET name = ?, knowledge_id = ? WHERE id = ?')
        .run(name, anchor ?? null, sceneId);
      return this.#sceneOrThrow(agentId, sceneId);
    });
  }

  /** Names a topic (host-owned; never derived). Writes nothing when the name is the same. */
  renameTopic(agentId: number, topicId: string, name: string): Topic {
    return this.#engine.write('renameTopic', () => {
      const topic = this.#topicOrThrow(agentId, topicId);
      if (topic.name === name) return topic;
      this.#engine.statement('UPDATE topics SET name = ? WHERE id = ?').run(name, topicId);
      const renamed = this.#topicOrThrow(agentId, topicId);
      this.#reindexTopic(agentId, renamed);
      return renamed;
    });
  }

  /**
   * Moves every topic of the `secondaryIds` scenes into `sceneId` and deletes those scenes, in
   * one transaction. All ids are checked before anything is written.
   */
  mergeScenes(agentId: number, sceneId: string, secondaryIds: readonly string[]): MergeReport {
    return this.#engine.write('mergeScenes', () => {
      const primary = this.#sceneOrThrow(agentId, sceneId);
      const secondaries = secondaryIds.map((id) => this.#sceneOrThrow(agentId, id));
      const anchor = mergedAnchor(primary, secondaries);
      const ids = jsonList(secondaryIds);
      const open = readOpenTurn(this.#engine, agentId);
      const topicsMoved = this.#engine
        .statement('UPDATE topics SET scene_id = ? WHERE scene_id IN (SELECT value FROM json_each(?))')
        .run(sceneId, ids).changes;
      const indexRowsMoved = this.#engine
        .statement(
          'UPDATE search_docs SET scene_id = ? WHERE agent_id = ? AND scene_id IN (SELECT value FROM json_each(?))',
        )
        .run(sceneId, agentId, ids).changes;
      const engramNodesRemoved = this.#removeEngram(agentId, ids);
      this.#engine.statement('DELETE FROM scenes WHERE id IN (SELECT value FROM json_each(?))').run(ids);
      const lastUsed = Math.max(primary.lastUsedAt, ...secondaries.map((s) => s.lastUsedAt));
      this.#engine
        .statement('UPDATE scenes SET knowledge_id = ?, last_used_at = ? WHERE id = ?')
        .run(anchor ?? null, lastUsed, sceneId);
      const current = this.#engine
        .statement('SELECT current_scene_id FROM agent_state WHERE agent_id = ?')
        .pluck(true)
        .get(agentId) as string | null | undefined;
      if (current && secondaryIds.includes(current)) this.#setCurrent(agentId, sceneId);
      return {
        sceneId,
        mergedSceneIds: [...secondaryIds],
        topicsMoved,
        indexRowsMoved,
        engramNodesRemoved,
        knowledgeId: anchor,
        openTurnMoved: open !== undefined && secondaryIds.includes(open.scene_id),
      };
    });
  }

  // Engram rows are derived (Dream rebuilds them); removing those of deleted scenes keeps the
  // file free of rows pointing at nothing.
  #removeEngram(agentId: number, sceneIdsJson: string): number {
    this.#engine
      .statement(
        `DELETE FROM engram_edges WHERE agent_id = ?
           AND (a IN (SELECT value FROM json_each(?)) OR b IN (SELECT value FROM json_each(?)))`,
      )
      .run(agentId, sceneIdsJson, sceneIdsJson);
    return this.#engine
      .statement(
        'DELETE FROM engram_nodes WHERE agent_id = ? AND scene_id IN (SELECT value FROM json_each(?))',
      )
      .run(agentId, sceneIdsJson).changes;
  }

  /** Deletes a scene with all its topics, records, plan steps and index rows, in one transaction. */
  deleteScene(agentId: number, sceneId: string): DeleteReport {
    return this.#engine.write('deleteScene', () => {
      this.#sceneOrThrow(agentId, sceneId);
      const topicIds = this.#engine
        .statement('SELECT id FROM topics WHERE scene_id = ? ORDER BY id')
        .pluck(true)
        .all(sceneId) as string[];
      const removed = this.#removeTopics(agentId, topicIds);
      const engramNodes = this.#removeEngram(agentId, jsonList([sceneId]));
      this.#engine.statement('DELETE FROM scenes WHERE id = ?').run(sceneId);
      this.#engine
        .statement(
          'UPDATE agent_state SET current_scene_id = NULL WHERE agent_id = ? AND current_scene_id = ?',
        )
        .run(agentId, sceneId);
      return { sceneIds: [sceneId], topicIds, ...removed, engramNodes };
    });
  }

  /** Deletes a topic and every topic under it (with their records, plan steps and index rows). */
  deleteTopic(agentId: number, topicId: string): DeleteReport {
    return this.#engine.write('deleteTopic', () => {
      const topicIds = this.#engine
        .statement(
          `WITH RECURSIVE closure(id) AS (
             SELECT id FROM topics WHERE id = ? AND agent_id = ?
             UNION SELECT t.id FROM topics t JOIN closure c ON t.parent_id = c.id)
           SELECT id FROM closure ORDER BY id`,
        )
        .pluck(true)
        .all(topicId, agentId) as string[];
      if (topicIds.length === 0) throw notFound(`deleteTopic: no topic ${topicId} for this agent`);
      return { sceneIds: [], topicIds, ...this.#removeTopics(agentId, topicIds), engramNodes: 0 };
    });
  }

  #removeTopics(
    agentId: number,
    topicIds: readonly string[],
  ): Pick<DeleteReport, 'archiveRecords' | 'planNodes' | 'indexRows' | 'openTurnDeleted'> {
    const ids = jsonList(topicIds);
    const open = readOpenTurn(this.#engine, agentId);
    const docs = `SELECT rowid FROM search_docs WHERE agent_id = ? AND layer IN ('archive', 'topic')
                    AND topic_id IN (SELECT value FROM json_each(?))`;
    this.#engine.statement(`DELETE FROM search_fts WHERE rowid IN (${docs})`).run(agentId, ids);
    indexChanges(this.#engine).changed();
    const indexRows = this.#engine
      .statement(`DELETE FROM search_docs WHERE rowid IN (${docs})`)
      .run(agentId, ids).changes;
    const archiveRecords = this.#engine
      .statement('DELETE FROM archive WHERE topic_id IN (SELECT value FROM json_each(?))')
      .run(ids).changes;
    const planNodes = this.#engine
      .statement('DELETE FROM plan_nodes WHERE topic_id IN (SELECT value FROM json_each(?))')
      .run(ids).changes;
    // Children first is not needed: SQLite checks these foreign keys at the end of the statement.
    this.#engine.statement('DELETE FROM topics WHERE id IN (SELECT value FROM json_each(?))').run(ids);
    return {
      archiveRecords,
      planNodes,
      indexRows,
      openTurnDeleted: open !== undefined && topicIds.includes(open.id),
    };
  }

  /** Topic keywords as stored (for Dream and tests). */
  topicKeywords(topicId: string): string[] {
    const json = this.#engine
      .statement('SELECT keywords FROM topics WHERE id = ?')
      .pluck(true)
      .get(topicId) as string | undefined;
    return json === undefined ? [] : parseStringList(json);
  }
}
