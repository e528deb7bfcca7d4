import { HedgehopError, notFound } from '../../core/errors.js';
import type {
  DeleteReport,
  MergeReport,
  Scene,
  Topic,
  TopicMessages,
  UtteranceRole,
} from '../../core/model/conversation.js';
import {
  mergedAnchor,
  parseStringList,
  refuseCreationFields,
  refuseResumeConflict,
  toScene,
  toTopic,
  topicIndexDoc,
  type RawScene,
  type RawTopic,
} from '../conversation-rows.js';
import { noOpenTurn } from '../open-turn.js';
import type {
  ClosedTurn,
  CloseTurnRequest,
  OpenedTurn,
  OpenTurnRequest,
  ScenePatch,
  ScenesRepo,
} from '../scenes-repo.js';
import type { IndexRepository, Repository } from '../seam.js';
import type { PgArchiveRepo } from './archive-repo.js';
import { readOpenTurn } from './open-turn.js';
import type { PgQuery } from './pg-query.js';
import { PgIndexRepo } from './index-repo.js';
import { all, later, lockAgent, one, run, scalar } from './rows.js';
import { topicUtterances } from './topic-utterances.js';

/** What `hh_turn_open` (src/store/pg/schema/turn-open.ts) answers. */
type TurnOpenStatus = 'opened' | 'resumed' | 'conflict' | 'creation-fields' | 'no-scene' | 'no-graph';

/**
 * Scenes, topics (turns) and the agent's current scene in PostgreSQL: the same calls and results
 * as {@link ScenesRepo}. Every write takes the agent's lock first ({@link lockAgent}), so the open
 * turn stays one per agent and a `search` racing another on a second machine resumes the turn
 * the first opened instead of failing on the unique index.
 */
export class PgScenesRepo implements Repository<ScenesRepo> {
  readonly #db: PgQuery;
  readonly #index: IndexRepository;
  readonly #archive: PgArchiveRepo;

  constructor(db: PgQuery, index: IndexRepository, archive: PgArchiveRepo) {
    this.#db = db;
    this.#index = index;
    this.#archive = archive;
  }

  /**
   * See {@link ScenesRepo.openTurn}. One round trip: `hh_turn_open` (migration 9: the lock, the
   * open turn resumed, or the scene resolved and a turn opened on it) and, behind it, reads of
   * the agent's open turn, its scene and the scene's surface, which see what it wrote. Its
   * refusals write nothing and are worded here, as on SQLite.
   */
  async openTurn(request: OpenTurnRequest): Promise<OpenedTurn> {
    const agentId = request.agentId;
    const opened = later(
      one<{ o_status: TurnOpenStatus; o_created: boolean }>(
        this.#db,
        'SELECT * FROM hh_turn_open($1::bigint, $2::text, $3::boolean, $4::text, $5::text, $6::bigint, $7::text, $8::text)',
        [
          agentId,
          request.sceneId ?? null,
          request.newScene,
          request.knowledgeId ?? null,
          request.sceneName ?? null,
          request.now,
          request.newSceneId,
          request.newTopicId,
        ],
      ),
    );
    const turn = later(readOpenTurn(this.#db, agentId));
    const scene = later(
      one<RawScene>(
        this.#db,
        `SELECT s.* FROM topics t JOIN scenes s ON s.id = t.scene_id AND s.agent_id = t.agent_id
         WHERE t.agent_id = $1 AND t.status = 'open'`,
        [agentId],
      ),
    );
    const surface = later(
      all<RawTopic>(
        this.#db,
        `SELECT * FROM topics WHERE depth = 1 AND status = 'closed'
           AND scene_id = (SELECT o.scene_id FROM topics o WHERE o.agent_id = $1 AND o.status = 'open')
         ORDER BY user_ts NULLS FIRST, id`,
        [agentId],
      ),
    );
    const result = await opened;
    const status = result?.o_status;
    const open = await turn;
    if (status === 'conflict' && open) refuseResumeConflict(request, open);
    if (status === 'creation-fields') refuseCreationFields(request);
    if (status === 'no-scene') throw notFound(`no scene ${request.sceneId} for this agent`);
    if (status === 'no-graph') throw notFound(`search: no knowledge graph ${request.knowledgeId}`);
    const row = await scene;
    if ((status !== 'opened' && status !== 'resumed') || !open || !row)
      throw new HedgehopError('CORRUPT', `search: opening a turn returned ${status ?? 'nothing'}`);
    return {
      scene: toScene(row),
      turn: toTopic(open),
      resumed: status === 'resumed',
      sceneCreated: result?.o_created === true,
      surface: (await surface).map(toTopic),
    };
  }

  async #requireKnowledge(knowledgeId: string, what: string): Promise<void> {
    const exists = await scalar(this.#db, 'SELECT 1 FROM kg_graphs WHERE id = $1', [knowledgeId]);
    if (exists === undefined) throw notFound(`${what}: no knowledge graph ${knowledgeId}`);
  }

  async #setCurrent(agentId: number, sceneId: string | null): Promise<void> {
    await run(
      this.#db,
      `INSERT INTO agent_state (agent_id, current_scene_id) VALUES ($1, $2)
       ON CONFLICT (agent_id) DO UPDATE SET current_scene_id = excluded.current_scene_id`,
      [agentId, sceneId],
    );
  }

  /** See {@link ScenesRepo.currentScene}. */
  async currentScene(agentId: number): Promise<Scene | undefined> {
    const current = await one<RawScene>(
      this.#db,
      `SELECT s.* FROM agent_state a JOIN scenes s ON s.id = a.current_scene_id AND s.agent_id = a.agent_id
       WHERE a.agent_id = $1`,
      [agentId],
    );
    if (current) return toScene(current);
    const latest = await one<RawScene>(
      this.#db,
      'SELECT * FROM scenes WHERE agent_id = $1 ORDER BY last_used_at DESC, turn_seq DESC, id LIMIT 1',
      [agentId],
    );
    return latest ? toScene(latest) : undefined;
  }

  /** See {@link ScenesRepo.openTurnOf}. */
  async openTurnOf(agentId: number): Promise<Topic | undefined> {
    const row = await readOpenTurn(this.#db, agentId);
    return row ? toTopic(row) : undefined;
  }

  /** See {@link ScenesRepo.surface}. */
  async surface(sceneId: string): Promise<Topic[]> {
    const rows = await all<RawTopic>(
      this.#db,
      `SELECT * FROM topics WHERE scene_id = $1 AND depth = 1 AND status = 'closed'
       ORDER BY user_ts NULLS FIRST, id`,
      [sceneId],
    );
    return rows.map(toTopic);
  }

  /**
   * See {@link ScenesRepo.closeTurn}. Two round trips: first the agent's lock, its open turn, the
   * records written into the turn named, the turn closed (with its times), its utterances and
   * its scene's surface count, all sent together; then its index row, which carries COMMIT when
   * the write allows it. When the open turn is not the one named, the call refuses and the
   * write is rolled back (the statements sent beside the check wrote only into the rolled-back
   * transaction, under the agent's lock).
   */
  async closeTurn(request: CloseTurnRequest): Promise<ClosedTurn> {
    const locked = later(lockAgent(this.#db, request.agentId));
    const open = later(readOpenTurn(this.#db, request.agentId));
    const written = later(this.#archive.writeIntoTurn(request.agentId, request.turnId, request.records));
    const closed = later(
      one<RawTopic>(
        this.#db,
        `UPDATE topics t SET status = 'closed', closed_at = $1, keywords = $2, keywords_state = $3,
           outcome = coalesce($4, t.outcome), user_ts = coalesce(x.lo, $5), agent_ts = coalesce(x.hi, $5)
         FROM (SELECT min(a.created_at) AS lo, max(a.created_at) AS hi FROM archive a
               WHERE a.topic_id = $6 AND a.kind = 'utterance') x
         WHERE t.id = $6 AND t.agent_id = $7 AND t.status = 'open'
         RETURNING t.*`,
        [
          request.now,
          JSON.stringify(request.keywords ?? []),
          request.keywords === undefined ? 'pending' : 'ready',
          request.outcome ?? null,
          request.createdAt,
          request.turnId,
          request.agentId,
        ],
      ),
    );
    const texts = later(topicUtterances(this.#db, request.turnId));
    const counted = later(
      scalar<number>(
        this.#db,
        `SELECT count(*)::integer FROM topics
         WHERE scene_id = (SELECT scene_id FROM topics WHERE id = $1) AND depth = 1 AND status = 'closed'`,
        [request.turnId],
      ),
    );
    await locked;
    const turn = await open;
    if (!turn) throw noOpenTurn('update');
    if (turn.id !== request.turnId) {
      throw new HedgehopError(
        'CONFLICT',
        `update: turn ${request.turnId} was closed by another caller while its keywords were distilled; turn ${turn.id} is open now`,
      );
    }
    await written;
    const row = await closed;
    if (!row) throw notFound(`no topic ${request.turnId} for this agent`);
    const topic = toTopic(row);
    const utterances = await texts;
    const surfaceCount = (await counted) ?? 0;
    const doc = topicIndexDoc(request.agentId, topic, utterances);
    if (doc === undefined) await this.#index.remove('topic', topic.id);
    else if (this.#index instanceof PgIndexRepo) await this.#index.upsertLast(doc);
    else await this.#index.upsert(doc);
    return { topic, surfaceCount };
  }

  /** See {@link ScenesRepo.pendingKeywordTopics}. */
  async pendingKeywordTopics(agentId: number, limit: number): Promise<Topic[]> {
    const rows = await all<RawTopic>(
      this.#db,
      `SELECT * FROM topics WHERE agent_id = $1 AND keywords_state = 'pending' AND status = 'closed'
       ORDER BY closed_at, id LIMIT $2`,
      [agentId, limit],
    );
    return rows.map(toTopic);
  }

  /** See {@link ScenesRepo.fillKeywords}. */
  async fillKeywords(agentId: number, topicId: string, keywords: readonly string[]): Promise<boolean> {
    await lockAgent(this.#db, agentId);
    const changes = await run(
      this.#db,
      `UPDATE topics SET keywords = $1, keywords_state = 'ready'
       WHERE id = $2 AND agent_id = $3 AND keywords_state = 'pending' AND status = 'closed'`,
      [JSON.stringify(keywords), topicId, agentId],
    );
    if (changes === 0) return false;
    await this.#reindexTopic(agentId, await this.#topicOrThrow(agentId, topicId));
    return true;
  }

  async #reindexTopic(agentId: number, topic: Topic): Promise<void> {
    const utterances = await topicUtterances(this.#db, topic.id);
    const doc = topicIndexDoc(agentId, topic, utterances);
    if (doc === undefined) await this.#index.remove('topic', topic.id);
    else await this.#index.upsert(doc);
  }

  /** See {@link ScenesRepo.getScene}. */
  async getScene(agentId: number, sceneId: string): Promise<Scene | undefined> {
    const row = await one<RawScene>(this.#db, 'SELECT * FROM scenes WHERE id = $1 AND agent_id = $2', [
      sceneId,
      agentId,
    ]);
    return row ? toScene(row) : undefined;
  }

  async #sceneOrThrow(agentId: number, sceneId: string): Promise<Scene> {
    const scene = await this.getScene(agentId, sceneId);
    if (!scene) throw notFound(`no scene ${sceneId} for this agent`);
    return scene;
  }

  /** See {@link ScenesRepo.getTopic}. */
  async getTopic(agentId: number, topicId: string): Promise<Topic | undefined> {
    const row = await one<RawTopic>(this.#db, 'SELECT * FROM topics WHERE id = $1 AND agent_id = $2', [
      topicId,
      agentId,
    ]);
    return row ? toTopic(row) : undefined;
  }

  async #topicOrThrow(agentId: number, topicId: string): Promise<Topic> {
    const topic = await this.getTopic(agentId, topicId);
    if (!topic) throw notFound(`no topic ${topicId} for this agent`);
    return topic;
  }

  /** See {@link ScenesRepo.listScenes}. */
  async listScenes(agentId: number, knowledgeId?: string): Promise<Scene[]> {
    const rows =
      knowledgeId === undefined
        ? await all<RawScene>(this.#db, 'SELECT * FROM scenes WHERE agent_id = $1 ORDER BY created_at, id', [
            agentId,
          ])
        : await all<RawScene>(
            this.#db,
            'SELECT * FROM scenes WHERE agent_id = $1 AND knowledge_id = $2 ORDER BY created_at, id',
            [agentId, knowledgeId],
          );
    return rows.map(toScene);
  }

  /** See {@link ScenesRepo.sceneTopics}. */
  async sceneTopics(sceneId: string): Promise<TopicMessages[]> {
    const topics = (
      await all<RawTopic>(
        this.#db,
        `SELECT * FROM topics WHERE scene_id = $1 AND depth <= 2 AND status = 'closed'
         ORDER BY user_ts NULLS FIRST, depth, id`,
        [sceneId],
      )
    ).map(toTopic);
    const messages = await all<{
      topic_id: string;
      seq: number;
      role: UtteranceRole;
      speaker: string | null;
      content_type: string;
      content: string;
      created_at: number;
    }>(
      this.#db,
      `SELECT a.topic_id, a.seq, a.role, a.speaker, a.content_type, a.content, a.created_at
       FROM archive a JOIN topics t ON t.id = a.topic_id
       WHERE t.scene_id = $1 AND t.depth <= 2 AND t.status = 'closed' AND a.kind = 'utterance'
       ORDER BY a.topic_id, a.seq`,
      [sceneId],
    );
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

  /** See {@link ScenesRepo.updateScene}. */
  async updateScene(agentId: number, sceneId: string, patch: ScenePatch): Promise<Scene> {
    await lockAgent(this.#db, agentId);
    const scene = await this.#sceneOrThrow(agentId, sceneId);
    let anchor = scene.knowledgeId;
    if (patch.knowledgeId === null) anchor = undefined;
    else if (patch.knowledgeId !== undefined) {
      await this.#requireKnowledge(patch.knowledgeId, 'updateScene');
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
    await run(this.#db, 'UPDATE scenes SET name = $1, knowledge_id = $2 WHERE id = $3', [
      name,
      anchor ?? null,
      sceneId,
    ]);
    return this.#sceneOrThrow(agentId, sceneId);
  }

  /** See {@link ScenesRepo.renameTopic}. */
  async renameTopic(agentId: number, topicId: string, name: string): Promise<Topic> {
    await lockAgent(this.#db, agentId);
    const topic = await this.#topicOrThrow(agentId, topicId);
    if (topic.name === name) return topic;
    await run(this.#db, 'UPDATE topics SET name = $1 WHERE id = $2', [name, topicId]);
    const renamed = await this.#topicOrThrow(agentId, topicId);
    await this.#reindexTopic(agentId, renamed);
    return renamed;
  }

  /**
   * See {@link ScenesRepo.mergeScenes}. The index rows follow their topics through the
   * `search_docs` table's `scene_id` column (the index part's table, as on SQLite).
   */
  async mergeScenes(agentId: number, sceneId: string, secondaryIds: readonly string[]): Promise<MergeReport> {
    await lockAgent(this.#db, agentId);
    const primary = await this.#sceneOrThrow(agentId, sceneId);
    const secondaries: Scene[] = [];
    for (const id of secondaryIds) secondaries.push(await this.#sceneOrThrow(agentId, id));
    const anchor = mergedAnchor(primary, secondaries);
    const ids = [...secondaryIds];
    const open = await readOpenTurn(this.#db, agentId);
    const topicsMoved = await run(
      this.#db,
      'UPDATE topics SET scene_id = $1 WHERE scene_id = ANY($2::text[])',
      [sceneId, ids],
    );
    const indexRowsMoved = await run(
      this.#db,
      'UPDATE search_docs SET scene_id = $1 WHERE agent_id = $2 AND scene_id = ANY($3::text[])',
      [sceneId, agentId, ids],
    );
    const engramNodesRemoved = await this.#removeEngram(agentId, ids);
    await run(this.#db, 'DELETE FROM scenes WHERE id = ANY($1::text[])', [ids]);
    const lastUsed = Math.max(primary.lastUsedAt, ...secondaries.map((s) => s.lastUsedAt));
    await run(this.#db, 'UPDATE scenes SET knowledge_id = $1, last_used_at = $2 WHERE id = $3', [
      anchor ?? null,
      lastUsed,
      sceneId,
    ]);
    const current = await scalar<string | null>(
      this.#db,
      'SELECT current_scene_id FROM agent_state WHERE agent_id = $1',
      [agentId],
    );
    if (current && secondaryIds.includes(current)) await this.#setCurrent(agentId, sceneId);
    return {
      sceneId,
      mergedSceneIds: [...secondaryIds],
      topicsMoved,
      indexRowsMoved,
      engramNodesRemoved,
      knowledgeId: anchor,
      openTurnMoved: open !== undefined && secondaryIds.includes(open.scene_id),
    };
  }

  // Engram rows are derived (Dream rebuilds them); removing those of deleted scenes keeps the
  // memory free of rows pointing at nothing.
  async #removeEngram(agentId: number, sceneIds: readonly string[]): Promise<number> {
    await run(
      this.#db,
      'DELETE FROM engram_edges WHERE agent_id = $1 AND (a = ANY($2::text[]) OR b = ANY($2::text[]))',
      [agentId, sceneIds],
    );
    return run(this.#db, 'DELETE FROM engram_nodes WHERE agent_id = $1 AND scene_id = ANY($2::text[])', [
      agentId,
      sceneIds,
    ]);
  }

  /** See {@link ScenesRepo.deleteScene}. */
  async deleteScene(agentId: number, sceneId: string): Promise<DeleteReport> {
    await lockAgent(this.#db, agentId);
    await this.#sceneOrThrow(agentId, sceneId);
    const topicIds = (
      await all<{ id: string }>(this.#db, 'SELECT id FROM topics WHERE scene_id = $1 ORDER BY id', [sceneId])
    ).map((row) => row.id);
    const removed = await this.#removeTopics(agentId, topicIds);
    const engramNodes = await this.#removeEngram(agentId, [sceneId]);
    await run(this.#db, 'DELETE FROM scenes WHERE id = $1', [sceneId]);
    await run(
      this.#db,
      'UPDATE agent_state SET current_scene_id = NULL WHERE agent_id = $1 AND current_scene_id = $2',
      [agentId, sceneId],
    );
    return { sceneIds: [sceneId], topicIds, ...removed, engramNodes };
  }

  /** See {@link ScenesRepo.deleteTopic}. */
  async deleteTopic(agentId: number, topicId: string): Promise<DeleteReport> {
    await lockAgent(this.#db, agentId);
    const topicIds = (
      await all<{ id: string }>(
        this.#db,
        `WITH RECURSIVE closure(id) AS (
           SELECT id FROM topics WHERE id = $1 AND agent_id = $2
           UNION SELECT t.id FROM topics t JOIN closure c ON t.parent_id = c.id)
         SELECT id FROM closure ORDER BY id`,
        [topicId, agentId],
      )
    ).map((row) => row.id);
    if (topicIds.length === 0) throw notFound(`deleteTopic: no topic ${topicId} for this agent`);
    return { sceneIds: [], topicIds, ...(await this.#removeTopics(agentId, topicIds)), engramNodes: 0 };
  }

  /**
   * Removes topics with their records, plan steps and index rows. The index rows go through the
   * index repository (one call per record and per topic), so whatever the index keeps beside a
   * row (its vector) goes with it.
   */
  async #removeTopics(
    agentId: number,
    topicIds: readonly string[],
  ): Promise<Pick<DeleteReport, 'archiveRecords' | 'planNodes' | 'indexRows' | 'openTurnDeleted'>> {
    const ids = [...topicIds];
    const open = await readOpenTurn(this.#db, agentId);
    const records = await all<{ id: string }>(
      this.#db,
      'SELECT id FROM archive WHERE agent_id = $1 AND topic_id = ANY($2::text[]) ORDER BY id',
      [agentId, ids],
    );
    let indexRows = 0;
    for (const record of records) indexRows += await this.#index.remove('archive', String(record.id));
    for (const id of ids) indexRows += await this.#index.remove('topic', id);
    const archiveRecords = await run(this.#db, 'DELETE FROM archive WHERE topic_id = ANY($1::text[])', [ids]);
    const planNodes = await run(this.#db, 'DELETE FROM plan_nodes WHERE topic_id = ANY($1::text[])', [ids]);
    // PostgreSQL checks the topics' own foreign key (parent_id) at the end of the statement.
    await run(this.#db, 'DELETE FROM topics WHERE id = ANY($1::text[])', [ids]);
    return {
      archiveRecords,
      planNodes,
      indexRows,
      openTurnDeleted: open !== undefined && topicIds.includes(open.id),
    };
  }

  /** See {@link ScenesRepo.topicKeywords}. */
  async topicKeywords(topicId: string): Promise<string[]> {
    const json = await scalar<string>(this.#db, 'SELECT keywords FROM topics WHERE id = $1', [topicId]);
    return json === undefined ? [] : parseStringList(json);
  }
}
