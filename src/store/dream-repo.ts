import type { ArchiveRepo } from './archive-repo.js';
import { parseStringList, type RawTopic } from './conversation-rows.js';
import type { ConversationRepo } from './conversation-repo.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import { topicIndexText } from '../core/index-text.js';
import {
  fingerprintOf,
  profileKey,
  toRun,
  type DreamRunRow,
  type DreamRunStatus,
  type DreamStartedBy,
  type RawRun,
} from './dream-rows.js';

export type { DreamRunRow, DreamRunStatus, DreamStartedBy } from './dream-rows.js';

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

/** What Dream's checks read of a topic before fusing or unfolding it. */
export interface TopicState {
  readonly id: string;
  readonly sceneId: string;
  readonly kind: 'turn' | 'fused';
  readonly name: string | undefined;
  readonly depth: number;
  readonly parentId: string | undefined;
  /** Everything a fusion relies on (compare with {@link SurfaceTopicRow.fingerprint}). */
  readonly fingerprint: string;
}

/** A surface topic's place in its scene's order: `(userTs, id)`. */
export interface SurfacePlace {
  readonly userTs: number | null;
  readonly id: string;
}

/**
 * Dream's rows: the record of passes (`dream_runs`), the snapshot reads of a pass, and the row
 * operations its apply and undo are made of (a fused topic in, a fused topic out, summaries
 * replaced if unchanged, the profile estimate). The rules (what is checked, in which order,
 * what an undo may revert) live in `memory/dream/dream-apply.ts`, which runs these inside one
 * write transaction.
 */
export class DreamRepo {
  readonly #engine: Engine;
  readonly #index: IndexRepo;
  readonly #archive: ArchiveRepo;

  constructor(engine: Engine, index: IndexRepo, conversation: ConversationRepo) {
    this.#engine = engine;
    this.#index = index;
    this.#archive = conversation.archive;
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

  // ---- the parts of an apply and an undo ------------------------------------------------

  /** Writes a finished pass's status, report and undo record (JSON text). */
  record(
    agentId: number,
    runId: string,
    outcome: { status: DreamRunStatus; finishedAt: number; report: string; undo: string },
  ): void {
    this.#engine
      .statement(
        'UPDATE dream_runs SET status = ?, finished_at = ?, report = ?, undo = ? WHERE id = ? AND agent_id = ?',
      )
      .run(outcome.status, outcome.finishedAt, outcome.report, outcome.undo, runId, agentId);
  }

  /** Marks run `id` undone. */
  markUndone(id: string, now: number): void {
    this.#engine.statement('UPDATE dream_runs SET undone_at = ? WHERE id = ?').run(now, id);
  }

  /** The newest run after `run` that changed something and is not undone, if any. */
  laterChangingRun(agentId: number, run: DreamRunRow): string | undefined {
    return this.#engine
      .statement(
        `SELECT id FROM dream_runs WHERE agent_id = ? AND id <> ? AND undone_at IS NULL AND undo <> '{}'
           AND (started_at > ? OR (started_at = ? AND rowid > (SELECT rowid FROM dream_runs WHERE id = ?)))
         ORDER BY started_at DESC, rowid DESC LIMIT 1`,
      )
      .pluck(true)
      .get(agentId, run.id, run.startedAt, run.startedAt, run.id) as string | undefined;
  }

  /** A topic of the agent as Dream's checks read it. */
  topicState(agentId: number, topicId: string): (TopicState & SurfacePlace) | undefined {
    const row = this.#engine
      .statement('SELECT * FROM topics WHERE id = ? AND agent_id = ?')
      .pluck(false)
      .get(topicId, agentId) as RawTopic | undefined;
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

  /** Surface topics of a scene strictly between two places of its `(userTs, id)` order. */
  surfaceBetween(sceneId: string, first: SurfacePlace, last: SurfacePlace): number {
    return this.#engine
      .statement(
        `SELECT count(*) FROM topics WHERE scene_id = ? AND depth = 1 AND status = 'closed'
           AND (user_ts, id) > (?, ?) AND (user_ts, id) < (?, ?)`,
      )
      .pluck(true)
      .get(sceneId, first.userTs, first.id, last.userTs, last.id) as number;
  }

  /** Ids of the topics folded under `topicId`, sorted. */
  childrenOf(topicId: string): string[] {
    return this.#engine
      .statement('SELECT id FROM topics WHERE parent_id = ? ORDER BY id')
      .pluck(true)
      .all(topicId) as string[];
  }

  /** A radial node's summary columns and tier. */
  nodeSummaries(agentId: number, nodeId: string): SummarySnapshot | undefined {
    const row = this.#engine
      .statement(
        'SELECT s_origin, s_brief, s_summary, s_detailed, summaries_tier FROM nodes WHERE id = ? AND agent_id = ?',
      )
      .pluck(false)
      .get(nodeId, agentId) as
      | {
          s_origin: string | null;
          s_brief: string | null;
          s_summary: string | null;
          s_detailed: string | null;
          summaries_tier: number;
        }
      | undefined;
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

  /**
   * Writes a fused topic over `fusion.members` (which must be unchanged, adjacent surface turns:
   * the caller checks): the topic, its reconstruction as a verbatim archive record, its index
   * row, and the members folded under it.
   */
  insertFusion(runId: string, agentId: number, now: number, fusion: FusionWrite): void {
    const keywords = fusion.keywords ?? [];
    this.#engine
      .statement(
        `INSERT INTO topics (id, agent_id, scene_id, turn_seq, kind, status, parent_id, depth, keywords,
           keywords_state, user_ts, agent_ts, opened_at, closed_at, dream_id)
         VALUES (?, ?, ?, NULL, 'fused', 'closed', NULL, 1, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        fusion.fusedId,
        agentId,
        fusion.sceneId,
        JSON.stringify(keywords),
        fusion.keywords === undefined ? 'pending' : 'ready',
        fusion.userTs,
        fusion.agentTs,
        now,
        now,
        runId,
      );
    const fused = this.#engine
      .statement('SELECT * FROM topics WHERE id = ?')
      .pluck(false)
      .get(fusion.fusedId) as RawTopic;
    this.#archive.writeInto(fused, [
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
      this.#index.upsert({
        layer: 'topic',
        ref: fusion.fusedId,
        agentId,
        sceneId: fusion.sceneId,
        topicId: fusion.fusedId,
        createdAt: fusion.userTs,
        text,
      });
    }
    this.#engine
      .statement('UPDATE topics SET depth = 2, parent_id = ? WHERE id IN (SELECT value FROM json_each(?))')
      .run(fusion.fusedId, JSON.stringify(fusion.members.map((m) => m.id)));
  }

  /**
   * Removes a fused topic (its archive records, index rows and plan) and puts `members` back on
   * the surface. Returns how many members were unfolded.
   */
  removeFusion(fusedId: string, members: readonly string[]): number {
    this.#engine
      .statement('UPDATE topics SET depth = 1, parent_id = NULL WHERE id IN (SELECT value FROM json_each(?))')
      .run(JSON.stringify(members));
    const records = this.#engine
      .statement('SELECT id FROM archive WHERE topic_id = ?')
      .pluck(true)
      .all(fusedId) as number[];
    for (const record of records) this.#index.remove('archive', String(record));
    this.#index.remove('topic', fusedId);
    this.#engine.statement('DELETE FROM archive WHERE topic_id = ?').run(fusedId);
    this.#engine.statement('DELETE FROM plan_nodes WHERE topic_id = ?').run(fusedId);
    this.#engine.statement('DELETE FROM topics WHERE id = ?').run(fusedId);
    return members.length;
  }

  /**
   * Replaces a ready radial node's summaries with `after` if they are still `before` (compare
   * and set); true when it did.
   */
  replaceSummaries(
    agentId: number,
    nodeId: string,
    before: SummarySnapshot,
    after: SummarySnapshot,
  ): boolean {
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
        nodeId,
        agentId,
        before.tier,
        before.origin,
        before.brief,
        before.summary,
        before.detailed,
      ).changes;
    return changes === 1;
  }

  /** Writes the library-owned profile fields and Dream's distilled record (none: removed). */
  writeEstimate(
    agentId: number,
    estimate: { emotion: string; mbti: string; distilled: string | undefined },
    now: number,
  ): void {
    const current = this.profileEstimate(agentId);
    if (current.emotion !== estimate.emotion || current.mbti !== estimate.mbti || !current.exists) {
      this.#engine
        .statement(
          `INSERT INTO profiles (agent_id, emotion, mbti, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (agent_id) DO UPDATE SET emotion = excluded.emotion, mbti = excluded.mbti,
             updated_at = excluded.updated_at`,
        )
        .run(agentId, estimate.emotion, estimate.mbti, now);
    }
    if (estimate.distilled === undefined)
      this.#engine.statement('DELETE FROM meta WHERE key = ?').run(profileKey(agentId));
    else
      this.#engine
        .statement(
          'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        )
        .run(profileKey(agentId), estimate.distilled);
  }
}
