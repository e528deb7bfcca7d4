import { HedgehopError } from '../core/errors.js';
import type { ArchiveRepo } from './archive-repo.js';
import { parseStringList, topicIndexText, type RawTopic } from './conversation-rows.js';
import type { ConversationRepo } from './conversation-repo.js';
import type { EngramDiff, EngramEdgeRow, EngramNodeRow, EngramRepo } from './engram-repo.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import { readOpenTurn } from './open-turn.js';

/** Who started a pass. */
export type DreamStartedBy = 'explicit' | 'background';
/** A pass's state as stored. */
export type DreamRunStatus = 'running' | 'ok' | 'partial' | 'cancelled';

/** A row of `dream_runs`. `report` and `undo` are JSON text. */
export interface DreamRunRow {
  readonly id: string;
  readonly sceneId: string | undefined;
  readonly startedBy: DreamStartedBy;
  readonly status: DreamRunStatus;
  readonly owner: string;
  readonly startedAt: number;
  readonly finishedAt: number | undefined;
  readonly report: string;
  readonly undo: string;
  readonly undoneAt: number | undefined;
}

/** A surface topic as Dream's compression reads it. */
export interface SurfaceTopicRow {
  readonly id: string;
  readonly kind: 'turn' | 'fused';
  readonly keywords: readonly string[];
  readonly userTs: number;
  readonly agentTs: number;
  /** Everything compression depends on; compared again before a fusion is written. */
  readonly fingerprint: string;
  /** The topic's utterances, one `who: content` line each. */
  readonly text: string;
}

/** A scene whose surface is large enough to compress. */
export interface CompressCandidate {
  readonly sceneId: string;
  readonly surface: readonly SurfaceTopicRow[];
}

/** A radial node whose presented levels a stronger summariser may refresh. */
export interface RefreshCandidate {
  readonly nodeId: string;
  readonly lineId: string;
  readonly position: number;
  readonly taskLabel: string;
  readonly summaries: SummarySnapshot;
}

/** The four summary columns and the tier of a radial node. */
export interface SummarySnapshot {
  readonly origin: string | null;
  readonly brief: string | null;
  readonly summary: string | null;
  readonly detailed: string | null;
  readonly tier: number;
}

/** The library-owned part of a profile, as Dream reads and compares it (JSON text). */
export interface ProfileEstimateRow {
  readonly exists: boolean;
  readonly emotion: string;
  readonly mbti: string;
  /** `meta` value `dream.<agent id>.profile`, or undefined before any distillation. */
  readonly distilled: string | undefined;
}

/** A fusion to write: a new fused topic over adjacent surface topics. */
export interface FusionWrite {
  readonly sceneId: string;
  readonly fusedId: string;
  readonly members: readonly { readonly id: string; readonly fingerprint: string }[];
  readonly summary: string;
  /** `undefined`: distillation failed, the fused topic's keywords are left pending. */
  readonly keywords: readonly string[] | undefined;
  readonly userTs: number;
  readonly agentTs: number;
}

/** A radial node's summaries to replace, if they are still `before`. */
export interface RefreshWrite {
  readonly nodeId: string;
  readonly before: SummarySnapshot;
  readonly after: SummarySnapshot;
}

/** The engram changes of a pass and the stamps of the scenes they were computed from. */
export interface EngramWrite {
  readonly stamps: ReadonlyMap<string, string>;
  readonly diff: EngramDiff;
}

/** The profile estimate to write, if the stored one is still `expected`. */
export interface ProfileWrite {
  readonly expected: ProfileEstimateRow;
  readonly emotion: string;
  readonly mbti: string;
  readonly distilled: string;
}

/** Everything one Dream pass writes, applied in one transaction. */
export interface DreamApplyRequest {
  readonly runId: string;
  readonly agentId: number;
  readonly lease: { readonly name: string; readonly owner: string; readonly now: number };
  readonly now: number;
  readonly fusions: readonly FusionWrite[];
  readonly refreshes: readonly RefreshWrite[];
  readonly engram: EngramWrite | undefined;
  readonly profile: ProfileWrite | undefined;
  /** Retention cutoff (host time); undefined = retention is off. */
  readonly retentionCutoff: number | undefined;
}

/** What the apply transaction did. */
export interface DreamApplyResult {
  readonly fusions: readonly FusionWrite[];
  readonly fusionConflicts: readonly { readonly sceneId: string; readonly reason: string }[];
  readonly refreshes: readonly RefreshWrite[];
  readonly refreshConflicts: readonly string[];
  readonly engram: 'applied' | 'conflict' | 'none';
  readonly engramConflict: string | undefined;
  readonly profile: 'applied' | 'conflict' | 'none';
  readonly pruned: { readonly archiveRecords: number; readonly planNodes: number } | undefined;
}

/** What `undo` put back. */
export interface DreamUndoResult {
  readonly topicsUnfused: number;
  readonly fusedTopicsRemoved: number;
  readonly radialNodesRestored: number;
  readonly engramRowsRestored: number;
  readonly profileRestored: boolean;
  /** Records retention deleted in that pass: never restored. */
  readonly prunedNotRestored: { readonly archiveRecords: number; readonly planNodes: number };
}

/** The `undo` JSON of a run: exactly what its apply changed, with the state before. */
interface UndoBlob {
  readonly fusions?: { readonly fusedId: string; readonly sceneId: string; readonly members: string[] }[];
  readonly radial?: RefreshWrite[];
  readonly engram?: {
    readonly nodes: { readonly sceneId: string; readonly before: EngramNodeRow | null }[];
    readonly edges: { readonly a: string; readonly b: string; readonly before: EngramEdgeRow | null }[];
  };
  readonly profile?: { readonly before: ProfileEstimateRow; readonly after: ProfileWrite };
  readonly pruned?: { readonly archiveRecords: number; readonly planNodes: number };
}

interface RawRun {
  id: string;
  scene_id: string | null;
  started_by: DreamStartedBy;
  status: DreamRunStatus;
  owner: string;
  started_at: number;
  finished_at: number | null;
  report: string;
  undo: string;
  undone_at: number | null;
}

const toRun = (row: RawRun): DreamRunRow => ({
  id: row.id,
  sceneId: row.scene_id ?? undefined,
  startedBy: row.started_by,
  status: row.status,
  owner: row.owner,
  startedAt: row.started_at,
  finishedAt: row.finished_at ?? undefined,
  report: row.report,
  undo: row.undo,
  undoneAt: row.undone_at ?? undefined,
});

/** The fingerprint compression compares: everything about a surface topic a fusion relies on. */
function fingerprintOf(row: RawTopic): string {
  return JSON.stringify([
    row.scene_id,
    row.depth,
    row.parent_id,
    row.status,
    row.keywords,
    row.keywords_state,
    row.user_ts,
    row.agent_ts,
  ]);
}

const profileKey = (agentId: number): string => `dream.${agentId}.profile`;

const conflict = (message: string): HedgehopError => new HedgehopError('CONFLICT', message);

/**
 * Dream's SQL: the record of passes (`dream_runs`), the snapshot reads of a pass, its one apply
 * transaction (fusions, radial refreshes, engram, profile estimate, retention, and the run's
 * report and undo record together) and undo.
 */
export class DreamRepo {
  readonly #engine: Engine;
  readonly #index: IndexRepo;
  readonly #archive: ArchiveRepo;
  readonly #conversation: ConversationRepo;
  readonly #engram: EngramRepo;

  constructor(engine: Engine, index: IndexRepo, conversation: ConversationRepo, engram: EngramRepo) {
    this.#engine = engine;
    this.#index = index;
    this.#archive = conversation.archive;
    this.#conversation = conversation;
    this.#engram = engram;
  }

  // ---- runs ------------------------------------------------------------------------------

  /** Records a pass as running. */
  start(run: {
    id: string;
    agentId: number;
    sceneId: string | undefined;
    startedBy: DreamStartedBy;
    owner: string;
    startedAt: number;
  }): void {
    this.#engine.write('dream', () => {
      this.#engine
        .statement(
          `INSERT INTO dream_runs (id, agent_id, scene_id, started_by, status, owner, started_at)
           VALUES (?, ?, ?, ?, 'running', ?, ?)`,
        )
        .run(run.id, run.agentId, run.sceneId ?? null, run.startedBy, run.owner, run.startedAt);
    });
  }

  /** Finishes a pass that applied nothing (cancelled, or its apply failed). */
  finish(id: string, status: DreamRunStatus, report: string, finishedAt: number): void {
    this.#engine.write('dream', () => {
      this.#engine
        .statement(
          "UPDATE dream_runs SET status = ?, report = ?, finished_at = ? WHERE id = ? AND status = 'running'",
        )
        .run(status, report, finishedAt, id);
    });
  }

  /** One run of the agent. */
  get(agentId: number, id: string): DreamRunRow | undefined {
    const row = this.#engine
      .statement('SELECT * FROM dream_runs WHERE id = ? AND agent_id = ?')
      .pluck(false)
      .get(id, agentId) as RawRun | undefined;
    return row ? toRun(row) : undefined;
  }

  /** The agent's runs, newest first. */
  list(agentId: number, limit: number): DreamRunRow[] {
    return (
      this.#engine
        .statement('SELECT * FROM dream_runs WHERE agent_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?')
        .pluck(false)
        .all(agentId, limit) as RawRun[]
    ).map(toRun);
  }

  // ---- snapshot reads --------------------------------------------------------------------

  /** Closed depth-1 topics of a scene (the trigger's measure). */
  surfaceCount(sceneId: string): number {
    return this.#engine
      .statement("SELECT count(*) FROM topics WHERE scene_id = ? AND depth = 1 AND status = 'closed'")
      .pluck(true)
      .get(sceneId) as number;
  }

  /** True when the agent has this scene. */
  hasScene(agentId: number, sceneId: string): boolean {
    return (
      this.#engine
        .statement('SELECT 1 FROM scenes WHERE id = ? AND agent_id = ?')
        .pluck(true)
        .get(sceneId, agentId) !== undefined
    );
  }

  /** Ids of the agent's scenes (or just `sceneId`) with at least `minTopics` surface topics. */
  compressibleScenes(agentId: number, sceneId: string | undefined, minTopics: number): string[] {
    const rows = this.#engine
      .statement(
        `SELECT scene_id FROM topics WHERE agent_id = :agent AND depth = 1 AND status = 'closed'
           AND (:scene IS NULL OR scene_id = :scene)
         GROUP BY scene_id HAVING count(*) >= :min ORDER BY scene_id`,
      )
      .pluck(true)
      .all({ agent: agentId, scene: sceneId ?? null, min: minTopics }) as string[];
    return rows;
  }

  /** A scene's surface with each topic's dialogue, in one snapshot. */
  surface(sceneId: string): CompressCandidate {
    return this.#engine.read('dream compress', () => {
      const topics = this.#engine
        .statement(
          "SELECT * FROM topics WHERE scene_id = ? AND depth = 1 AND status = 'closed' ORDER BY user_ts, id",
        )
        .pluck(false)
        .all(sceneId) as RawTopic[];
      const lines = this.#engine
        .statement(
          `SELECT a.topic_id, coalesce(a.speaker, a.role) AS who, a.content FROM archive a
           JOIN topics t ON t.id = a.topic_id
           WHERE t.scene_id = ? AND t.depth = 1 AND t.status = 'closed' AND a.kind = 'utterance'
           ORDER BY a.topic_id, a.seq`,
        )
        .pluck(false)
        .all(sceneId) as { topic_id: string; who: string; content: string }[];
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
    });
  }

  /**
   * Ready radial nodes away from position 1 whose summaries were written by a summariser of a
   * tier below `belowTier` (and above none), nearest position first.
   */
  refreshCandidates(agentId: number, belowTier: number, limit: number): RefreshCandidate[] {
    if (belowTier <= 1) return [];
    const rows = this.#engine
      .statement(
        `SELECT n.id, n.line_id, l.next_seq - n.line_seq AS position, n.task_label, n.s_origin, n.s_brief,
           n.s_summary, n.s_detailed, n.summaries_tier
         FROM nodes n JOIN lines l ON l.agent_id = n.agent_id AND l.id = n.line_id
         WHERE n.agent_id = ? AND n.summaries_state = 'ready' AND n.summaries_tier BETWEEN 1 AND ?
           AND l.next_seq - n.line_seq >= 2
         ORDER BY position, n.seq LIMIT ?`,
      )
      .pluck(false)
      .all(agentId, belowTier - 1, limit) as {
      id: string;
      line_id: string;
      position: number;
      task_label: string;
      s_origin: string | null;
      s_brief: string | null;
      s_summary: string | null;
      s_detailed: string | null;
      summaries_tier: number;
    }[];
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

  /** The library-owned profile fields and Dream's distilled record. */
  profileEstimate(agentId: number): ProfileEstimateRow {
    const row = this.#engine
      .statement('SELECT emotion, mbti FROM profiles WHERE agent_id = ?')
      .pluck(false)
      .get(agentId) as { emotion: string; mbti: string } | undefined;
    const distilled = this.#engine
      .statement('SELECT value FROM meta WHERE key = ?')
      .pluck(true)
      .get(profileKey(agentId)) as string | undefined;
    return {
      exists: row !== undefined,
      emotion: row?.emotion ?? '{"valence":0,"arousal":0,"dominance":0}',
      mbti: row?.mbti ?? '{"i_e":0,"n_s":0,"t_f":0,"j_p":0}',
      distilled,
    };
  }

  // ---- apply -----------------------------------------------------------------------------

  /**
   * Applies a pass in ONE write transaction: checks the pass still holds its lease (else `BUSY`,
   * nothing written), then writes each part whose inputs are unchanged since they were read
   * (a changed part is skipped and reported), then the run's report and undo record.
   * `finish` builds the report from what was applied and the profile estimate as it now stands
   * (it runs inside the transaction, synchronously: a pure function of its arguments).
   */
  apply(
    request: DreamApplyRequest,
    finish: (
      result: DreamApplyResult,
      estimate: ProfileEstimateRow,
    ) => { status: DreamRunStatus; report: string },
  ): DreamApplyResult {
    return this.#engine.write('dream', () => {
      this.#checkLease(request.lease);
      const fusions: FusionWrite[] = [];
      const fusionConflicts: { sceneId: string; reason: string }[] = [];
      for (const fusion of request.fusions) {
        const problem = this.#fusionProblem(request.agentId, fusion);
        if (problem !== undefined) fusionConflicts.push({ sceneId: fusion.sceneId, reason: problem });
        else {
          this.#writeFusion(request, fusion);
          fusions.push(fusion);
        }
      }
      const refreshes = request.refreshes.filter((refresh) => this.#writeRefresh(request.agentId, refresh));
      const refreshConflicts = request.refreshes.filter((r) => !refreshes.includes(r)).map((r) => r.nodeId);
      const engram = this.#applyEngram(request.agentId, request.engram);
      const profile = this.#applyProfile(request.agentId, request.profile, request.now);
      const pruned = request.retentionCutoff === undefined ? undefined : this.#prune(request);
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
      const undo: UndoBlob = {
        ...(fusions.length > 0
          ? {
              fusions: fusions.map((f) => ({
                fusedId: f.fusedId,
                sceneId: f.sceneId,
                members: f.members.map((m) => m.id),
              })),
            }
          : {}),
        ...(refreshes.length > 0 ? { radial: refreshes } : {}),
        ...(engram.undo ? { engram: engram.undo } : {}),
        ...(profile.undo ? { profile: profile.undo } : {}),
        ...(pruned && pruned.archiveRecords + pruned.planNodes > 0 ? { pruned } : {}),
      };
      const { status, report } = finish(result, this.profileEstimate(request.agentId));
      this.#engine
        .statement(
          'UPDATE dream_runs SET status = ?, finished_at = ?, report = ?, undo = ? WHERE id = ? AND agent_id = ?',
        )
        .run(status, request.now, report, JSON.stringify(undo), request.runId, request.agentId);
      return result;
    });
  }

  #checkLease(lease: DreamApplyRequest['lease']): void {
    const owner = this.#engine
      .statement('SELECT owner FROM leases WHERE name = ? AND expires_at > ?')
      .pluck(true)
      .get(lease.name, lease.now) as string | undefined;
    if (owner !== lease.owner) {
      throw new HedgehopError(
        'BUSY',
        `dream: this pass lost its lease ${lease.name} (now held by ${owner ?? 'nobody'}); nothing was applied`,
      );
    }
  }

  #fusionProblem(agentId: number, fusion: FusionWrite): string | undefined {
    const rows: RawTopic[] = [];
    for (const member of fusion.members) {
      const row = this.#engine
        .statement('SELECT * FROM topics WHERE id = ? AND agent_id = ?')
        .pluck(false)
        .get(member.id, agentId) as RawTopic | undefined;
      if (!row) return `topic ${member.id} was deleted while Dream computed`;
      if (row.kind !== 'turn' || fingerprintOf(row) !== member.fingerprint)
        return `topic ${member.id} changed while Dream computed`;
      rows.push(row);
    }
    // The members are unchanged surface turns in (user_ts, id) order; they are still adjacent when
    // no other surface topic lies between the first and the last.
    const first = rows[0] as RawTopic;
    const last = rows[rows.length - 1] as RawTopic;
    const between = this.#engine
      .statement(
        `SELECT count(*) FROM topics WHERE scene_id = ? AND depth = 1 AND status = 'closed'
           AND (user_ts, id) > (?, ?) AND (user_ts, id) < (?, ?)`,
      )
      .pluck(true)
      .get(fusion.sceneId, first.user_ts, first.id, last.user_ts, last.id) as number;
    return between === rows.length - 2
      ? undefined
      : `topics ${fusion.members.map((m) => m.id).join(', ')} are no longer adjacent`;
  }

  #writeFusion(request: DreamApplyRequest, fusion: FusionWrite): void {
    const keywords = fusion.keywords ?? [];
    this.#engine
      .statement(
        `INSERT INTO topics (id, agent_id, scene_id, turn_seq, kind, status, parent_id, depth, keywords,
           keywords_state, user_ts, agent_ts, opened_at, closed_at, dream_id)
         VALUES (?, ?, ?, NULL, 'fused', 'closed', NULL, 1, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        fusion.fusedId,
        request.agentId,
        fusion.sceneId,
        JSON.stringify(keywords),
        fusion.keywords === undefined ? 'pending' : 'ready',
        fusion.userTs,
        fusion.agentTs,
        request.now,
        request.now,
        request.runId,
      );
    const fused = this.#engine
      .statement('SELECT * FROM topics WHERE id = ?')
      .pluck(false)
      .get(fusion.fusedId) as RawTopic;
    // The reconstruction is verbatim text of the fused topic: an archive record with its index row.
    this.#archive.writeInto(fused, [
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
      this.#index.upsert({
        layer: 'topic',
        ref: fusion.fusedId,
        agentId: request.agentId,
        sceneId: fusion.sceneId,
        topicId: fusion.fusedId,
        createdAt: fusion.userTs,
        text,
      });
    }
    // Members are turns (checked above), and only fused topics have children: nothing lies under them.
    this.#engine
      .statement('UPDATE topics SET depth = 2, parent_id = ? WHERE id IN (SELECT value FROM json_each(?))')
      .run(fusion.fusedId, JSON.stringify(fusion.members.map((m) => m.id)));
  }

  #writeRefresh(agentId: number, refresh: RefreshWrite): boolean {
    const { before, after } = refresh;
    const changes = this.#engine
      .statement(
        `UPDATE nodes SET s_origin = ?, s_brief = ?, s_summary = ?, s_detailed = ?, summaries_tier = ?
         WHERE id = ? AND agent_id = ? AND summaries_state = 'ready' AND summaries_tier = ?
           AND s_origin IS ? AND s_brief IS ? AND s_summary IS ? AND s_detailed IS ?`,
      )
      .run(
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
      ).changes;
    return changes === 1;
  }

  #applyEngram(
    agentId: number,
    write: EngramWrite | undefined,
  ): { state: DreamApplyResult['engram']; conflict?: string; undo?: UndoBlob['engram'] } {
    if (!write) return { state: 'none' };
    for (const [sceneId, stamp] of write.stamps) {
      if (this.#engram.sceneStamp(sceneId) !== stamp)
        return { state: 'conflict', conflict: `scene ${sceneId} changed while Dream computed the engram` };
    }
    const { diff } = write;
    const sceneIds = [...new Set([...diff.upsertNodes.map((n) => n.sceneId), ...diff.deleteNodes])];
    const pairs = [...diff.upsertEdges, ...diff.deleteEdges].map((e) => ({ a: e.a, b: e.b }));
    const before = this.#engram.rowsOf(agentId, sceneIds, pairs);
    this.#engram.write(agentId, diff);
    if (sceneIds.length + pairs.length === 0) return { state: 'applied' };
    return {
      state: 'applied',
      undo: {
        nodes: sceneIds.map((sceneId) => ({ sceneId, before: before.nodes.get(sceneId) ?? null })),
        edges: pairs.map((p) => ({ ...p, before: before.edges.get(`${p.a}\u0000${p.b}`) ?? null })),
      },
    };
  }

  #applyProfile(
    agentId: number,
    write: ProfileWrite | undefined,
    now: number,
  ): { state: DreamApplyResult['profile']; undo?: UndoBlob['profile'] } {
    if (!write) return { state: 'none' };
    const current = this.profileEstimate(agentId);
    const same =
      current.emotion === write.expected.emotion &&
      current.mbti === write.expected.mbti &&
      current.distilled === write.expected.distilled;
    if (!same) return { state: 'conflict' };
    this.#writeEstimate(agentId, write.emotion, write.mbti, write.distilled, now);
    return { state: 'applied', undo: { before: current, after: write } };
  }

  #writeEstimate(
    agentId: number,
    emotion: string,
    mbti: string,
    distilled: string | undefined,
    now: number,
  ): void {
    const current = this.profileEstimate(agentId);
    if (current.emotion !== emotion || current.mbti !== mbti || !current.exists) {
      this.#engine
        .statement(
          `INSERT INTO profiles (agent_id, emotion, mbti, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (agent_id) DO UPDATE SET emotion = excluded.emotion, mbti = excluded.mbti,
             updated_at = excluded.updated_at`,
        )
        .run(agentId, emotion, mbti, now);
    }
    if (distilled === undefined)
      this.#engine.statement('DELETE FROM meta WHERE key = ?').run(profileKey(agentId));
    else
      this.#engine
        .statement(
          'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        )
        .run(profileKey(agentId), distilled);
  }

  #prune(request: DreamApplyRequest): { archiveRecords: number; planNodes: number } {
    const cutoff = request.retentionCutoff as number;
    const open = readOpenTurn(this.#engine, request.agentId);
    return {
      archiveRecords: this.#archive.prune(request.agentId, cutoff, open?.id),
      planNodes: this.#conversation.plans.prune(request.agentId, cutoff),
    };
  }

  // ---- undo ------------------------------------------------------------------------------

  /**
   * Reverts what run `id` applied, in one transaction, or refuses (`CONFLICT`, nothing written)
   * when it cannot be done safely: the run was undone already or is still running, a later run
   * that changed something has not been undone, a fused topic was deleted, renamed or had its
   * members moved, or a refreshed radial node changed since.
   */
  undo(agentId: number, id: string, now: number, lease: DreamApplyRequest['lease']): DreamUndoResult {
    return this.#engine.write('undoDream', () => {
      this.#checkLease(lease);
      const blob = this.#undoable(agentId, id);
      let topicsUnfused = 0;
      for (const fusion of blob.fusions ?? []) topicsUnfused += this.#unfuse(fusion);
      for (const refresh of blob.radial ?? [])
        this.#writeRefresh(agentId, { nodeId: refresh.nodeId, before: refresh.after, after: refresh.before });
      const engramRowsRestored = blob.engram ? this.#restoreEngram(agentId, blob.engram) : 0;
      if (blob.profile) {
        const before = blob.profile.before;
        this.#writeEstimate(agentId, before.emotion, before.mbti, before.distilled, now);
      }
      this.#engine.statement('UPDATE dream_runs SET undone_at = ? WHERE id = ?').run(now, id);
      return {
        topicsUnfused,
        fusedTopicsRemoved: blob.fusions?.length ?? 0,
        radialNodesRestored: blob.radial?.length ?? 0,
        engramRowsRestored,
        profileRestored: blob.profile !== undefined,
        prunedNotRestored: blob.pruned ?? { archiveRecords: 0, planNodes: 0 },
      };
    });
  }

  /**
   * Throws the refusal `undo` would give (`NOT_FOUND`, `CONFLICT`), writing nothing, so a caller
   * can refuse before it takes any lock.
   */
  checkUndo(agentId: number, id: string): void {
    this.#engine.read('undoDream', () => this.#undoable(agentId, id));
  }

  #undoable(agentId: number, id: string): UndoBlob {
    const run = this.get(agentId, id);
    if (!run) throw new HedgehopError('NOT_FOUND', `undoDream: no Dream pass ${id} for this agent`);
    if (run.undoneAt !== undefined) throw conflict(`undoDream: pass ${id} was already undone`);
    if (run.status === 'running')
      throw conflict(`undoDream: pass ${id} has not finished (an interrupted pass applied nothing to undo)`);
    this.#refuseIfLaterRuns(agentId, run);
    const blob = JSON.parse(run.undo) as UndoBlob;
    for (const fusion of blob.fusions ?? []) this.#checkUnfuse(agentId, fusion);
    for (const refresh of blob.radial ?? []) this.#checkRefreshUndo(agentId, refresh);
    return blob;
  }

  #refuseIfLaterRuns(agentId: number, run: DreamRunRow): void {
    const later = this.#engine
      .statement(
        `SELECT id FROM dream_runs WHERE agent_id = ? AND id <> ? AND undone_at IS NULL AND undo <> '{}'
           AND (started_at > ? OR (started_at = ? AND rowid > (SELECT rowid FROM dream_runs WHERE id = ?)))
         ORDER BY started_at DESC, rowid DESC LIMIT 1`,
      )
      .pluck(true)
      .get(agentId, run.id, run.startedAt, run.startedAt, run.id) as string | undefined;
    if (later !== undefined) {
      throw conflict(`undoDream: pass ${later} ran after ${run.id} and changed memory; undo ${later} first`);
    }
  }

  #checkUnfuse(agentId: number, fusion: NonNullable<UndoBlob['fusions']>[number]): void {
    const fused = this.#engine
      .statement('SELECT * FROM topics WHERE id = ? AND agent_id = ?')
      .pluck(false)
      .get(fusion.fusedId, agentId) as RawTopic | undefined;
    if (!fused)
      throw conflict(`undoDream: fused topic ${fusion.fusedId} was deleted since (with its members)`);
    if (fused.name !== null)
      throw conflict(
        `undoDream: fused topic ${fusion.fusedId} was named '${fused.name}' since; undoing would lose the name`,
      );
    if (fused.depth !== 1 || fused.parent_id !== null)
      throw conflict(
        `undoDream: fused topic ${fusion.fusedId} was folded under ${fused.parent_id ?? '?'} since`,
      );
    const children = this.#engine
      .statement('SELECT id FROM topics WHERE parent_id = ? ORDER BY id')
      .pluck(true)
      .all(fusion.fusedId) as string[];
    const expected = [...fusion.members].sort();
    if (children.length !== expected.length || children.some((child, i) => child !== expected[i])) {
      throw conflict(
        `undoDream: the topics under ${fusion.fusedId} changed since; cannot unfold them safely`,
      );
    }
  }

  #checkRefreshUndo(agentId: number, refresh: RefreshWrite): void {
    const row = this.#engine
      .statement(
        'SELECT s_origin, s_brief, s_summary, s_detailed, summaries_tier FROM nodes WHERE id = ? AND agent_id = ?',
      )
      .pluck(false)
      .get(refresh.nodeId, agentId) as
      | {
          s_origin: string | null;
          s_brief: string | null;
          s_summary: string | null;
          s_detailed: string | null;
          summaries_tier: number;
        }
      | undefined;
    const same =
      row !== undefined &&
      row.s_origin === refresh.after.origin &&
      row.s_brief === refresh.after.brief &&
      row.s_summary === refresh.after.summary &&
      row.s_detailed === refresh.after.detailed &&
      row.summaries_tier === refresh.after.tier;
    if (!same) throw conflict(`undoDream: the summaries of radial node ${refresh.nodeId} changed since`);
  }

  #unfuse(fusion: NonNullable<UndoBlob['fusions']>[number]): number {
    this.#engine
      .statement('UPDATE topics SET depth = 1, parent_id = NULL WHERE id IN (SELECT value FROM json_each(?))')
      .run(JSON.stringify(fusion.members));
    const records = this.#engine
      .statement('SELECT id FROM archive WHERE topic_id = ?')
      .pluck(true)
      .all(fusion.fusedId) as number[];
    for (const record of records) this.#index.remove('archive', String(record));
    this.#index.remove('topic', fusion.fusedId);
    this.#engine.statement('DELETE FROM archive WHERE topic_id = ?').run(fusion.fusedId);
    this.#engine.statement('DELETE FROM plan_nodes WHERE topic_id = ?').run(fusion.fusedId);
    this.#engine.statement('DELETE FROM topics WHERE id = ?').run(fusion.fusedId);
    return fusion.members.length;
  }

  // Only Dream writes the engram and later passes were undone first, so the recorded before-state
  // is what to put back; rows of scenes deleted since stay gone.
  #restoreEngram(agentId: number, engram: NonNullable<UndoBlob['engram']>): number {
    const existing = this.#engram.existingScenes(agentId, [
      ...new Set([...engram.nodes.map((n) => n.sceneId), ...engram.edges.flatMap((e) => [e.a, e.b])]),
    ]);
    const upsertNodes = engram.nodes.flatMap((n) => (n.before && existing.has(n.sceneId) ? [n.before] : []));
    const upsertEdges = engram.edges.flatMap((e) =>
      e.before && existing.has(e.a) && existing.has(e.b) ? [e.before] : [],
    );
    this.#engram.write(agentId, {
      deleteNodes: engram.nodes.map((n) => n.sceneId),
      deleteEdges: engram.edges.map((e) => ({ a: e.a, b: e.b })),
      upsertNodes,
      upsertEdges,
    });
    return engram.nodes.length + engram.edges.length;
  }
}
