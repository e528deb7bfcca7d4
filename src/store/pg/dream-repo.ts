import { topicIndexText, type RawTopic } from '../conversation-rows.js';
import type { DreamRepo } from '../dream-repo.js';
import {
  conflict,
  engramRestoreDiff,
  engramUndoOf,
  estimateOf,
  fingerprintOf,
  lostLease,
  profileKey,
  refreshCandidateOf,
  refreshStillApplied,
  refuseUndoOf,
  refuseUnfuse,
  sameEstimate,
  surfaceOf,
  toRun,
  undoBlobOf,
  type CompressCandidate,
  type DreamApplyRequest,
  type DreamApplyResult,
  type DreamRunRow,
  type DreamRunStatus,
  type DreamStartedBy,
  type DreamUndoResult,
  type EngramWrite,
  type FusionWrite,
  type ProfileEstimateRow,
  type ProfileWrite,
  type RawRefreshCandidate,
  type RawRun,
  type RawSummaries,
  type RefreshCandidate,
  type RefreshWrite,
  type UndoBlob,
} from '../dream-rows.js';
import type { IndexRepository, Repository } from '../seam.js';
import type { PgConversationRepo } from './conversation-repo.js';
import type { PgEngramRepo } from './engram-repo.js';
import { readOpenTurn } from './open-turn.js';
import type { PgQuery } from './pg-query.js';
import { all, lockAgent, one, run, scalar } from './rows.js';

/**
 * Dream's SQL in PostgreSQL: the same calls and results as {@link DreamRepo}. `apply` and `undo`
 * run inside the caller's one write transaction; they take the agent's lock first (so no
 * conversation write of the agent interleaves with them, as none can on SQLite's single writer)
 * and read the pass's lease row `FOR SHARE` (so a pass that takes the lease over waits until this
 * one has committed or rolled back: two passes never both apply).
 */
export class PgDreamRepo implements Repository<DreamRepo> {
  readonly #db: PgQuery;
  readonly #index: IndexRepository;
  readonly #conversation: PgConversationRepo;
  readonly #engram: PgEngramRepo;

  constructor(db: PgQuery, index: IndexRepository, conversation: PgConversationRepo, engram: PgEngramRepo) {
    this.#db = db;
    this.#index = index;
    this.#conversation = conversation;
    this.#engram = engram;
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
    return surfaceOf(sceneId, topics, lines);
  }

  /** See {@link DreamRepo.refreshCandidates}. */
  async refreshCandidates(agentId: number, belowTier: number, limit: number): Promise<RefreshCandidate[]> {
    if (belowTier <= 1) return [];
    const rows = await all<RawRefreshCandidate>(
      this.#db,
      `SELECT n.id, n.line_id, (l.next_seq - n.line_seq)::integer AS position, n.task_label, n.s_origin,
         n.s_brief, n.s_summary, n.s_detailed, n.summaries_tier
       FROM nodes n JOIN lines l ON l.agent_id = n.agent_id AND l.id = n.line_id
       WHERE n.agent_id = $1 AND n.summaries_state = 'ready' AND n.summaries_tier BETWEEN 1 AND $2
         AND l.next_seq - n.line_seq >= 2
       ORDER BY position, n.seq LIMIT $3`,
      [agentId, belowTier - 1, limit],
    );
    return rows.map(refreshCandidateOf);
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
    return estimateOf(row, distilled);
  }

  // ---- apply -----------------------------------------------------------------------------

  /** See {@link DreamRepo.apply}: one transaction (the caller's), under the agent's lock. */
  async apply(
    request: DreamApplyRequest,
    finish: (result: DreamApplyResult) => { status: DreamRunStatus; report: string },
  ): Promise<DreamApplyResult> {
    await lockAgent(this.#db, request.agentId);
    await this.#checkLease(request.lease);
    const fusions: FusionWrite[] = [];
    const fusionConflicts: { sceneId: string; reason: string }[] = [];
    for (const fusion of request.fusions) {
      const problem = await this.#fusionProblem(request.agentId, fusion);
      if (problem !== undefined) fusionConflicts.push({ sceneId: fusion.sceneId, reason: problem });
      else {
        await this.#writeFusion(request, fusion);
        fusions.push(fusion);
      }
    }
    const refreshes: RefreshWrite[] = [];
    for (const refresh of request.refreshes)
      if (await this.#writeRefresh(request.agentId, refresh)) refreshes.push(refresh);
    const refreshConflicts = request.refreshes.filter((r) => !refreshes.includes(r)).map((r) => r.nodeId);
    const engram = await this.#applyEngram(request.agentId, request.engram);
    const profile = await this.#applyProfile(request.agentId, request.profile, request.now);
    const pruned = request.retentionCutoff === undefined ? undefined : await this.#prune(request);
    const result: DreamApplyResult = {
      fusions,
      fusionConflicts,
      refreshes,
      refreshConflicts,
      engram: engram.state,
      engramConflict: engram.conflict,
      profile: profile.state,
      pruned,
    };
    const undo = undoBlobOf(result, engram.undo, profile.undo);
    const { status, report } = finish(result);
    await run(
      this.#db,
      'UPDATE dream_runs SET status = $1, finished_at = $2, report = $3, undo = $4 WHERE id = $5 AND agent_id = $6',
      [status, request.now, report, JSON.stringify(undo), request.runId, request.agentId],
    );
    return result;
  }

  async #checkLease(lease: DreamApplyRequest['lease']): Promise<void> {
    const owner = await scalar<string>(
      this.#db,
      'SELECT owner FROM leases WHERE name = $1 AND expires_at > $2 FOR SHARE',
      [lease.name, lease.now],
    );
    if (owner !== lease.owner) throw lostLease(lease.name, owner);
  }

  async #fusionProblem(agentId: number, fusion: FusionWrite): Promise<string | undefined> {
    const rows: RawTopic[] = [];
    for (const member of fusion.members) {
      const row = await one<RawTopic>(this.#db, 'SELECT * FROM topics WHERE id = $1 AND agent_id = $2', [
        member.id,
        agentId,
      ]);
      if (!row) return `topic ${member.id} was deleted while Dream computed`;
      if (row.kind !== 'turn' || fingerprintOf(row) !== member.fingerprint)
        return `topic ${member.id} changed while Dream computed`;
      rows.push(row);
    }
    const first = rows[0] as RawTopic;
    const last = rows[rows.length - 1] as RawTopic;
    const between = (await scalar<number>(
      this.#db,
      `SELECT count(*)::integer FROM topics WHERE scene_id = $1 AND depth = 1 AND status = 'closed'
         AND (user_ts, id) > ($2::bigint, $3::text) AND (user_ts, id) < ($4::bigint, $5::text)`,
      [fusion.sceneId, first.user_ts, first.id, last.user_ts, last.id],
    )) as number;
    return between === rows.length - 2
      ? undefined
      : `topics ${fusion.members.map((m) => m.id).join(', ')} are no longer adjacent`;
  }

  async #writeFusion(request: DreamApplyRequest, fusion: FusionWrite): Promise<void> {
    const keywords = fusion.keywords ?? [];
    await run(
      this.#db,
      `INSERT INTO topics (id, agent_id, scene_id, turn_seq, kind, status, parent_id, depth, keywords,
         keywords_state, user_ts, agent_ts, opened_at, closed_at, dream_id)
       VALUES ($1, $2, $3, NULL, 'fused', 'closed', NULL, 1, $4, $5, $6, $7, $8, $8, $9)`,
      [
        fusion.fusedId,
        request.agentId,
        fusion.sceneId,
        JSON.stringify(keywords),
        fusion.keywords === undefined ? 'pending' : 'ready',
        fusion.userTs,
        fusion.agentTs,
        request.now,
        request.runId,
      ],
    );
    const fused = (await one<RawTopic>(this.#db, 'SELECT * FROM topics WHERE id = $1', [
      fusion.fusedId,
    ])) as RawTopic;
    await this.#conversation.archive.writeInto(fused, [
      {
        kind: 'utterance',
        role: 'dream',
        contentType: 'text',
        content: fusion.summary,
        createdAt: request.now,
        seq: 1,
      },
    ]);
    const text = topicIndexText({ name: undefined, keywords, outcome: undefined });
    if (text.length > 0) {
      await this.#index.upsert({
        layer: 'topic',
        ref: fusion.fusedId,
        agentId: request.agentId,
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

  async #writeRefresh(agentId: number, refresh: RefreshWrite): Promise<boolean> {
    const { before, after } = refresh;
    const changes = await run(
      this.#db,
      `UPDATE nodes SET s_origin = $1, s_brief = $2, s_summary = $3, s_detailed = $4, summaries_tier = $5
       WHERE id = $6 AND agent_id = $7 AND summaries_state = 'ready' AND summaries_tier = $8
         AND s_origin IS NOT DISTINCT FROM $9::text AND s_brief IS NOT DISTINCT FROM $10::text
         AND s_summary IS NOT DISTINCT FROM $11::text AND s_detailed IS NOT DISTINCT FROM $12::text`,
      [
        after.origin,
        after.brief,
        after.summary,
        after.detailed,
        after.tier,
        refresh.nodeId,
        agentId,
        before.tier,
        before.origin,
        before.brief,
        before.summary,
        before.detailed,
      ],
    );
    return changes === 1;
  }

  async #applyEngram(
    agentId: number,
    write: EngramWrite | undefined,
  ): Promise<{ state: DreamApplyResult['engram']; conflict?: string; undo?: UndoBlob['engram'] }> {
    if (!write) return { state: 'none' };
    for (const [sceneId, stamp] of write.stamps) {
      if ((await this.#engram.sceneStamp(sceneId)) !== stamp)
        return { state: 'conflict', conflict: `scene ${sceneId} changed while Dream computed the engram` };
    }
    const { diff } = write;
    const sceneIds = [...new Set([...diff.upsertNodes.map((n) => n.sceneId), ...diff.deleteNodes])];
    const pairs = [...diff.upsertEdges, ...diff.deleteEdges].map((e) => ({ a: e.a, b: e.b }));
    const before = await this.#engram.rowsOf(agentId, sceneIds, pairs);
    await this.#engram.write(agentId, diff);
    return { state: 'applied', ...engramUndoOf(sceneIds, pairs, before) };
  }

  async #applyProfile(
    agentId: number,
    write: ProfileWrite | undefined,
    now: number,
  ): Promise<{ state: DreamApplyResult['profile']; undo?: UndoBlob['profile'] }> {
    if (!write) return { state: 'none' };
    const current = await this.profileEstimate(agentId);
    if (!sameEstimate(current, write.expected)) return { state: 'conflict' };
    await this.#writeEstimate(agentId, write.emotion, write.mbti, write.distilled, now);
    return { state: 'applied', undo: { before: current, after: write } };
  }

  async #writeEstimate(
    agentId: number,
    emotion: string,
    mbti: string,
    distilled: string | undefined,
    now: number,
  ): Promise<void> {
    const current = await this.profileEstimate(agentId);
    if (current.emotion !== emotion || current.mbti !== mbti || !current.exists) {
      await run(
        this.#db,
        `INSERT INTO profiles (agent_id, emotion, mbti, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (agent_id) DO UPDATE SET emotion = excluded.emotion, mbti = excluded.mbti,
           updated_at = excluded.updated_at`,
        [agentId, emotion, mbti, now],
      );
    }
    if (distilled === undefined)
      await run(this.#db, 'DELETE FROM meta WHERE key = $1', [profileKey(agentId)]);
    else
      await run(
        this.#db,
        'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [profileKey(agentId), distilled],
      );
  }

  async #prune(request: DreamApplyRequest): Promise<{ archiveRecords: number; planNodes: number }> {
    const cutoff = request.retentionCutoff as number;
    const open = await readOpenTurn(this.#db, request.agentId);
    return {
      archiveRecords: await this.#conversation.archive.prune(request.agentId, cutoff, open?.id),
      planNodes: await this.#conversation.plans.prune(request.agentId, cutoff),
    };
  }

  // ---- undo ------------------------------------------------------------------------------

  /** See {@link DreamRepo.undo}: one transaction (the caller's), under the agent's lock. */
  async undo(
    agentId: number,
    id: string,
    now: number,
    lease: DreamApplyRequest['lease'],
  ): Promise<DreamUndoResult> {
    await lockAgent(this.#db, agentId);
    await this.#checkLease(lease);
    const blob = await this.#undoable(agentId, id);
    let topicsUnfused = 0;
    for (const fusion of blob.fusions ?? []) topicsUnfused += await this.#unfuse(fusion);
    for (const refresh of blob.radial ?? [])
      await this.#writeRefresh(agentId, {
        nodeId: refresh.nodeId,
        before: refresh.after,
        after: refresh.before,
      });
    const engramRowsRestored = blob.engram ? await this.#restoreEngram(agentId, blob.engram) : 0;
    if (blob.profile) {
      const before = blob.profile.before;
      await this.#writeEstimate(agentId, before.emotion, before.mbti, before.distilled, now);
    }
    await run(this.#db, 'UPDATE dream_runs SET undone_at = $1 WHERE id = $2', [now, id]);
    return {
      topicsUnfused,
      fusedTopicsRemoved: blob.fusions?.length ?? 0,
      radialNodesRestored: blob.radial?.length ?? 0,
      engramRowsRestored,
      profileRestored: blob.profile !== undefined,
      prunedNotRestored: blob.pruned ?? { archiveRecords: 0, planNodes: 0 },
    };
  }

  /** See {@link DreamRepo.checkUndo}. */
  async checkUndo(agentId: number, id: string): Promise<void> {
    await this.#undoable(agentId, id);
  }

  async #undoable(agentId: number, id: string): Promise<UndoBlob> {
    const pass = await this.get(agentId, id);
    refuseUndoOf(id, pass);
    await this.#refuseIfLaterRuns(agentId, pass);
    const blob = JSON.parse(pass.undo) as UndoBlob;
    for (const fusion of blob.fusions ?? []) await this.#checkUnfuse(agentId, fusion);
    for (const refresh of blob.radial ?? []) await this.#checkRefreshUndo(agentId, refresh);
    return blob;
  }

  async #refuseIfLaterRuns(agentId: number, pass: DreamRunRow): Promise<void> {
    const later = await scalar<string>(
      this.#db,
      `SELECT id FROM dream_runs WHERE agent_id = $1 AND id <> $2 AND undone_at IS NULL AND undo <> '{}'
         AND (started_at > $3 OR (started_at = $3 AND seq > (SELECT seq FROM dream_runs WHERE id = $2)))
       ORDER BY started_at DESC, seq DESC LIMIT 1`,
      [agentId, pass.id, pass.startedAt],
    );
    if (later !== undefined) {
      throw conflict(`undoDream: pass ${later} ran after ${pass.id} and changed memory; undo ${later} first`);
    }
  }

  async #checkUnfuse(agentId: number, fusion: NonNullable<UndoBlob['fusions']>[number]): Promise<void> {
    const fused = await one<RawTopic>(this.#db, 'SELECT * FROM topics WHERE id = $1 AND agent_id = $2', [
      fusion.fusedId,
      agentId,
    ]);
    const children = (
      await all<{ id: string }>(this.#db, 'SELECT id FROM topics WHERE parent_id = $1 ORDER BY id', [
        fusion.fusedId,
      ])
    ).map((row) => row.id);
    refuseUnfuse(fusion, fused, children);
  }

  async #checkRefreshUndo(agentId: number, refresh: RefreshWrite): Promise<void> {
    const row = await one<RawSummaries>(
      this.#db,
      'SELECT s_origin, s_brief, s_summary, s_detailed, summaries_tier FROM nodes WHERE id = $1 AND agent_id = $2',
      [refresh.nodeId, agentId],
    );
    if (!refreshStillApplied(row, refresh))
      throw conflict(`undoDream: the summaries of radial node ${refresh.nodeId} changed since`);
  }

  async #unfuse(fusion: NonNullable<UndoBlob['fusions']>[number]): Promise<number> {
    await run(this.#db, 'UPDATE topics SET depth = 1, parent_id = NULL WHERE id = ANY($1::text[])', [
      fusion.members,
    ]);
    const records = await all<{ id: string }>(
      this.#db,
      'SELECT id FROM archive WHERE topic_id = $1 ORDER BY id',
      [fusion.fusedId],
    );
    for (const record of records) await this.#index.remove('archive', String(record.id));
    await this.#index.remove('topic', fusion.fusedId);
    await run(this.#db, 'DELETE FROM archive WHERE topic_id = $1', [fusion.fusedId]);
    await run(this.#db, 'DELETE FROM plan_nodes WHERE topic_id = $1', [fusion.fusedId]);
    await run(this.#db, 'DELETE FROM topics WHERE id = $1', [fusion.fusedId]);
    return fusion.members.length;
  }

  async #restoreEngram(agentId: number, engram: NonNullable<UndoBlob['engram']>): Promise<number> {
    const existing = await this.#engram.existingScenes(agentId, [
      ...new Set([...engram.nodes.map((n) => n.sceneId), ...engram.edges.flatMap((e) => [e.a, e.b])]),
    ]);
    await this.#engram.write(agentId, engramRestoreDiff(engram, existing));
    return engram.nodes.length + engram.edges.length;
  }
}
