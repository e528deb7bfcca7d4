import { topicIndexText } from '../../core/index-text.js';
import type { RawTopic } from '../conversation-rows.js';
import type {
  CompressCandidate,
  DreamRepo,
  DreamRunRow,
  DreamRunStatus,
  DreamStartedBy,
  FusionWrite,
  ProfileEstimateRow,
  RefreshCandidate,
  SummarySnapshot,
  SurfacePlace,
  TopicState,
} from '../dream-repo.js';
import { fingerprintOf, profileKey, toRun, type RawRun } from '../dream-rows.js';
import { parseStringList } from '../conversation-rows.js';
import type { IndexRepository, Repository } from '../seam.js';
import type { PgArchiveRepo } from './archive-repo.js';
import type { PgConversationRepo } from './conversation-repo.js';
import type { PgQuery } from './pg-query.js';
import { all, lockAgent, one, run, scalar } from './rows.js';
import { derivedText } from './pg-values.js';

interface RawSummaries {
  s_origin: string | null;
  s_brief: string | null;
  s_summary: string | null;
  s_detailed: string | null;
  summaries_tier: number;
}

/**
 * Dream's rows in PostgreSQL: the same calls and results as {@link DreamRepo}. The rules of an
 * apply and an undo (memory/dream/dream-apply.ts) run these inside one write transaction; the
 * row operations and {@link PgDreamRepo.topicState} (the first read of every check) take the
 * agent's lock ({@link lockAgent}), so no conversation write of the agent, and no second pass,
 * interleaves between a check and the write it guards, as none can on SQLite's single writer.
 */
export class PgDreamRepo implements Repository<DreamRepo> {
  readonly #db: PgQuery;
  readonly #index: IndexRepository;
  readonly #archive: PgArchiveRepo;

  constructor(db: PgQuery, index: IndexRepository, conversation: PgConversationRepo) {
    this.#db = db;
    this.#index = index;
    this.#archive = conversation.archive;
  }

  // ---- runs ------------------------------------------------------------------------------

  /** See {@link DreamRepo.start}. */
  async start(pass: {
    id: string;
    agentId: number;
    sceneId: string | undefined;
    startedBy: DreamStartedBy;
    owner: string;
    startedAt: number;
  }): Promise<void> {
    await run(
      this.#db,
      `INSERT INTO dream_runs (id, agent_id, scene_id, started_by, status, owner, started_at)
       VALUES ($1, $2, $3, $4, 'running', $5, $6)`,
      [pass.id, pass.agentId, pass.sceneId ?? null, pass.startedBy, pass.owner, pass.startedAt],
    );
  }

  /** See {@link DreamRepo.finish}. */
  async finish(id: string, status: DreamRunStatus, report: string, finishedAt: number): Promise<void> {
    await run(
      this.#db,
      "UPDATE dream_runs SET status = $1, report = $2, finished_at = $3 WHERE id = $4 AND status = 'running'",
      [status, report, finishedAt, id],
    );
  }

  /** See {@link DreamRepo.get}. */
  async get(agentId: number, id: string): Promise<DreamRunRow | undefined> {
    const row = await one<RawRun>(this.#db, 'SELECT * FROM dream_runs WHERE id = $1 AND agent_id = $2', [
      id,
      agentId,
    ]);
    return row ? toRun(row) : undefined;
  }

  /** See {@link DreamRepo.list}; `seq` keeps SQLite's rowid order for passes of one millisecond. */
  async list(agentId: number, limit: number): Promise<DreamRunRow[]> {
    const rows = await all<RawRun>(
      this.#db,
      'SELECT * FROM dream_runs WHERE agent_id = $1 ORDER BY started_at DESC, seq DESC LIMIT $2',
      [agentId, limit],
    );
    return rows.map(toRun);
  }

  // ---- snapshot reads --------------------------------------------------------------------

  /** See {@link DreamRepo.surfaceCount}. */
  async surfaceCount(sceneId: string): Promise<number> {
    return (await scalar<number>(
      this.#db,
      "SELECT count(*)::integer FROM topics WHERE scene_id = $1 AND depth = 1 AND status = 'closed'",
      [sceneId],
    )) as number;
  }

  /** See {@link DreamRepo.hasScene}. */
  async hasScene(agentId: number, sceneId: string): Promise<boolean> {
    return (
      (await scalar(this.#db, 'SELECT 1 FROM scenes WHERE id = $1 AND agent_id = $2', [sceneId, agentId])) !==
      undefined
    );
  }

  /** See {@link DreamRepo.compressibleScenes}. */
  async compressibleScenes(
    agentId: number,
    sceneId: string | undefined,
    minTopics: number,
  ): Promise<string[]> {
    const rows = await all<{ scene_id: string }>(
      this.#db,
      `SELECT scene_id FROM topics WHERE agent_id = $1 AND depth = 1 AND status = 'closed'
         AND ($2::text IS NULL OR scene_id = $2::text)
       GROUP BY scene_id HAVING count(*) >= $3 ORDER BY scene_id`,
      [agentId, sceneId ?? null, minTopics],
    );
    return rows.map((row) => row.scene_id);
  }

  /** See {@link DreamRepo.surface}. */
  async surface(sceneId: string): Promise<CompressCandidate> {
    const topics = await all<RawTopic>(
      this.#db,
      `SELECT * FROM topics WHERE scene_id = $1 AND depth = 1 AND status = 'closed'
       ORDER BY user_ts NULLS FIRST, id`,
      [sceneId],
    );
    const lines = await all<{ topic_id: string; who: string; content: string }>(
      this.#db,
      `SELECT a.topic_id, coalesce(a.speaker, a.role) AS who, a.content FROM archive a
       JOIN topics t ON t.id = a.topic_id
       WHERE t.scene_id = $1 AND t.depth = 1 AND t.status = 'closed' AND a.kind = 'utterance'
       ORDER BY a.topic_id, a.seq`,
      [sceneId],
    );
    const text = new Map<string, string[]>();
    for (const line of lines) {
      let list = text.get(line.topic_id);
      if (!list) text.set(line.topic_id, (list = []));
      list.push(`${line.who}: ${line.content}`);
    }
    return {
      sceneId,
      surface: topics.map((row) => ({
        id: row.id,
        kind: row.kind,
        keywords: parseStringList(row.keywords),
        userTs: row.user_ts ?? row.opened_at,
        agentTs: row.agent_ts ?? row.opened_at,
        fingerprint: fingerprintOf(row),
        text: (text.get(row.id) ?? []).join('\n'),
      })),
    };
  }

  /** See {@link DreamRepo.refreshCandidates}. */
  async refreshCandidates(agentId: number, belowTier: number, limit: number): Promise<RefreshCandidate[]> {
    if (belowTier <= 1) return [];
    const rows = await all<
      RawSummaries & { id: string; line_id: string; position: number; task_label: string }
    >(
      this.#db,
      `SELECT n.id, n.line_id, (l.next_seq - n.line_seq)::integer AS position, n.task_label, n.s_origin,
         n.s_brief, n.s_summary, n.s_detailed, n.summaries_tier
       FROM nodes n JOIN lines l ON l.agent_id = n.agent_id AND l.id = n.line_id
       WHERE n.agent_id = $1 AND n.summaries_state = 'ready' AND n.summaries_tier BETWEEN 1 AND $2
         AND l.next_seq - n.line_seq >= 2
       ORDER BY position, n.seq LIMIT $3`,
      [agentId, belowTier - 1, limit],
    );
    return rows.map((row) => ({
      nodeId: row.id,
      lineId: row.line_id,
      position: row.position,
      taskLabel: row.task_label,
      summaries: {
        origin: row.s_origin,
        brief: row.s_brief,
        summary: row.s_summary,
        detailed: row.s_detailed,
        tier: row.summaries_tier,
      },
    }));
  }

  /** See {@link DreamRepo.profileEstimate}. */
  async profileEstimate(agentId: number): Promise<ProfileEstimateRow> {
    const row = await one<{ emotion: string; mbti: string }>(
      this.#db,
      'SELECT emotion, mbti FROM profiles WHERE agent_id = $1',
      [agentId],
    );
    const distilled = await scalar<string>(this.#db, 'SELECT value FROM meta WHERE key = $1', [
      profileKey(agentId),
    ]);
    return {
      exists: row !== undefined,
      emotion: row?.emotion ?? '{"valence":0,"arousal":0,"dominance":0}',
      mbti: row?.mbti ?? '{"i_e":0,"n_s":0,"t_f":0,"j_p":0}',
      distilled,
    };
  }

  // ---- the parts of an apply and an undo ------------------------------------------------

  /** See {@link DreamRepo.record}. */
  async record(
    agentId: number,
    runId: string,
    outcome: { status: DreamRunStatus; finishedAt: number; report: string; undo: string },
  ): Promise<void> {
    await lockAgent(this.#db, agentId);
    await run(
      this.#db,
      'UPDATE dream_runs SET status = $1, finished_at = $2, report = $3, undo = $4 WHERE id = $5 AND agent_id = $6',
      [outcome.status, outcome.finishedAt, outcome.report, outcome.undo, runId, agentId],
    );
  }

  /** See {@link DreamRepo.markUndone}. */
  async markUndone(id: string, now: number): Promise<void> {
    await run(this.#db, 'UPDATE dream_runs SET undone_at = $1 WHERE id = $2', [now, id]);
  }

  /** See {@link DreamRepo.laterChangingRun}; `seq` stands for SQLite's rowid (insertion order). */
  async laterChangingRun(agentId: number, pass: DreamRunRow): Promise<string | undefined> {
    return scalar<string>(
      this.#db,
      `SELECT id FROM dream_runs WHERE agent_id = $1 AND id <> $2 AND undone_at IS NULL AND undo <> '{}'
         AND (started_at > $3 OR (started_at = $3 AND seq > (SELECT seq FROM dream_runs WHERE id = $2)))
       ORDER BY started_at DESC, seq DESC LIMIT 1`,
      [agentId, pass.id, pass.startedAt],
    );
  }

  /** See {@link DreamRepo.topicState}; takes the agent's lock first (see the class comment). */
  async topicState(agentId: number, topicId: string): Promise<(TopicState & SurfacePlace) | undefined> {
    await lockAgent(this.#db, agentId);
    const row = await one<RawTopic>(this.#db, 'SELECT * FROM topics WHERE id = $1 AND agent_id = $2', [
      topicId,
      agentId,
    ]);
    if (!row) return undefined;
    return {
      id: row.id,
      sceneId: row.scene_id,
      kind: row.kind,
      name: row.name ?? undefined,
      depth: row.depth,
      parentId: row.parent_id ?? undefined,
      fingerprint: fingerprintOf(row),
      userTs: row.user_ts,
    };
  }

  /** See {@link DreamRepo.surfaceBetween}. */
  async surfaceBetween(sceneId: string, first: SurfacePlace, last: SurfacePlace): Promise<number> {
    return (await scalar<number>(
      this.#db,
      `SELECT count(*)::integer FROM topics WHERE scene_id = $1 AND depth = 1 AND status = 'closed'
         AND (user_ts, id) > ($2::bigint, $3::text) AND (user_ts, id) < ($4::bigint, $5::text)`,
      [sceneId, first.userTs, first.id, last.userTs, last.id],
    )) as number;
  }

  /** See {@link DreamRepo.childrenOf}. */
  async childrenOf(topicId: string): Promise<string[]> {
    const rows = await all<{ id: string }>(
      this.#db,
      'SELECT id FROM topics WHERE parent_id = $1 ORDER BY id',
      [topicId],
    );
    return rows.map((row) => row.id);
  }

  /** See {@link DreamRepo.nodeSummaries}. */
  async nodeSummaries(agentId: number, nodeId: string): Promise<SummarySnapshot | undefined> {
    const row = await one<RawSummaries>(
      this.#db,
      'SELECT s_origin, s_brief, s_summary, s_detailed, summaries_tier FROM nodes WHERE id = $1 AND agent_id = $2',
      [nodeId, agentId],
    );
    return row
      ? {
          origin: row.s_origin,
          brief: row.s_brief,
          summary: row.s_summary,
          detailed: row.s_detailed,
          tier: row.summaries_tier,
        }
      : undefined;
  }

  /** See {@link DreamRepo.insertFusion}. */
  async insertFusion(runId: string, agentId: number, now: number, fusion: FusionWrite): Promise<void> {
    await lockAgent(this.#db, agentId);
    const keywords = fusion.keywords ?? [];
    await run(
      this.#db,
      `INSERT INTO topics (id, agent_id, scene_id, turn_seq, kind, status, parent_id, depth, keywords,
         keywords_state, user_ts, agent_ts, opened_at, closed_at, dream_id)
       VALUES ($1, $2, $3, NULL, 'fused', 'closed', NULL, 1, $4, $5, $6, $7, $8, $8, $9)`,
      [
        fusion.fusedId,
        agentId,
        fusion.sceneId,
        JSON.stringify(keywords),
        fusion.keywords === undefined ? 'pending' : 'ready',
        fusion.userTs,
        fusion.agentTs,
        now,
        runId,
      ],
    );
    const fused = (await one<RawTopic>(this.#db, 'SELECT * FROM topics WHERE id = $1', [
      fusion.fusedId,
    ])) as RawTopic;
    await this.#archive.writeInto(fused, [
      {
        kind: 'utterance',
        role: 'dream',
        contentType: 'text',
        content: fusion.summary,
        createdAt: now,
        seq: 1,
      },
    ]);
    const text = topicIndexText({ name: undefined, keywords, outcome: undefined });
    if (text.length > 0) {
      await this.#index.upsert({
        layer: 'topic',
        ref: fusion.fusedId,
        agentId,
        sceneId: fusion.sceneId,
        topicId: fusion.fusedId,
        createdAt: fusion.userTs,
        text,
      });
    }
    await run(this.#db, 'UPDATE topics SET depth = 2, parent_id = $1 WHERE id = ANY($2::text[])', [
      fusion.fusedId,
      fusion.members.map((m) => m.id),
    ]);
  }

  /** See {@link DreamRepo.removeFusion}. */
  async removeFusion(fusedId: string, members: readonly string[]): Promise<number> {
    const agentId = await scalar<number | string>(this.#db, 'SELECT agent_id FROM topics WHERE id = $1', [
      fusedId,
    ]);
    if (agentId !== undefined) await lockAgent(this.#db, Number(agentId));
    await run(this.#db, 'UPDATE topics SET depth = 1, parent_id = NULL WHERE id = ANY($1::text[])', [
      [...members],
    ]);
    const records = await all<{ id: string }>(
      this.#db,
      'SELECT id FROM archive WHERE topic_id = $1 ORDER BY id',
      [fusedId],
    );
    for (const record of records) await this.#index.remove('archive', String(record.id));
    await this.#index.remove('topic', fusedId);
    await run(this.#db, 'DELETE FROM archive WHERE topic_id = $1', [fusedId]);
    await run(this.#db, 'DELETE FROM plan_nodes WHERE topic_id = $1', [fusedId]);
    await run(this.#db, 'DELETE FROM topics WHERE id = $1', [fusedId]);
    return members.length;
  }

  /** See {@link DreamRepo.replaceSummaries}. */
  async replaceSummaries(
    agentId: number,
    nodeId: string,
    before: SummarySnapshot,
    after: SummarySnapshot,
  ): Promise<boolean> {
    const changes = await run(
      this.#db,
      `UPDATE nodes SET s_origin = $1, s_brief = $2, s_summary = $3, s_detailed = $4, summaries_tier = $5
       WHERE id = $6 AND agent_id = $7 AND summaries_state = 'ready' AND summaries_tier = $8
         AND s_origin IS NOT DISTINCT FROM $9::text AND s_brief IS NOT DISTINCT FROM $10::text
         AND s_summary IS NOT DISTINCT FROM $11::text AND s_detailed IS NOT DISTINCT FROM $12::text`,
      [
        derivedText(after.origin),
        derivedText(after.brief),
        derivedText(after.summary),
        derivedText(after.detailed),
        after.tier,
        nodeId,
        agentId,
        before.tier,
        derivedText(before.origin),
        derivedText(before.brief),
        derivedText(before.summary),
        derivedText(before.detailed),
      ],
    );
    return changes === 1;
  }

  /** See {@link DreamRepo.writeEstimate}. */
  async writeEstimate(
    agentId: number,
    estimate: { emotion: string; mbti: string; distilled: string | undefined },
    now: number,
  ): Promise<void> {
    await lockAgent(this.#db, agentId);
    const current = await this.profileEstimate(agentId);
    if (current.emotion !== estimate.emotion || current.mbti !== estimate.mbti || !current.exists) {
      await run(
        this.#db,
        `INSERT INTO profiles (agent_id, emotion, mbti, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (agent_id) DO UPDATE SET emotion = excluded.emotion, mbti = excluded.mbti,
           updated_at = excluded.updated_at`,
        [agentId, estimate.emotion, estimate.mbti, now],
      );
    }
    if (estimate.distilled === undefined)
      await run(this.#db, 'DELETE FROM meta WHERE key = $1', [profileKey(agentId)]);
    else
      await run(
        this.#db,
        'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [profileKey(agentId), estimate.distilled],
      );
  }
}
