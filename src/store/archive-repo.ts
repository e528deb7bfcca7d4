import { HedgehopError } from '../core/errors.js';
import { toArchive, type RawArchive, type RawTopic } from './conversation-rows.js';
import {
  type ArchiveKind,
  type ArchiveRecord,
  type ContentType,
  type UtteranceRole,
  type ArchiveSlot,
} from '../core/model/conversation.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import { requireOpenTurn } from './open-turn.js';
import { archiveIndexSpeaker, archiveIndexText } from '../core/index-text.js';

/** One validated archive record to write into a turn. */
export interface ArchiveWrite {
  readonly kind: ArchiveKind;
  readonly role?: UtteranceRole | undefined;
  readonly speaker?: string | undefined;
  readonly contentType: ContentType;
  readonly eventType?: string | undefined;
  readonly planStep?: number | undefined;
  readonly content: string;
  readonly createdAt: number;
  /** The slot to write; absent = the next free slot (3 or above). */
  readonly seq?: number | undefined;
}

/** Conditions of an archive read; every one is optional and they AND together. */
export interface ArchiveFilter {
  readonly agentId: number;
  readonly topicId?: string | undefined;
  readonly sceneId?: string | undefined;
  /** Inclusive. */
  readonly from?: number | undefined;
  /** Inclusive. */
  readonly to?: number | undefined;
  readonly kind?: ArchiveKind | undefined;
  readonly contentType?: ContentType | undefined;
  readonly role?: UtteranceRole | undefined;
  readonly speaker?: string | undefined;
  /** Events bound to any of these plan steps. */
  readonly planSteps?: readonly number[] | undefined;
  /** Only these record ids (given, or the text condition resolved through the recall index). */
  readonly ids?: readonly number[] | undefined;
  /** Only records whose content holds this text, case-insensitively (any script). */
  readonly contains?: string | undefined;
  /** Keep the last `limit` records of the order (the newest). */
  readonly limit: number;
}

/** One utterance of a turn, in slot order (what keyword distillation reads). */
export interface TurnUtteranceRow {
  readonly seq: number;
  readonly role: UtteranceRole;
  readonly speaker: string | undefined;
  readonly content: string;
  readonly createdAt: number;
}

const ARCHIVE_COLUMNS = `a.id, a.topic_id, t.scene_id, a.seq, a.kind, a.role, a.speaker, a.content_type,
  a.event_type, a.plan_step, a.content, a.created_at`;

/** Archive records (verbatim utterances and events of turns) and their recall-index rows. */
export class ArchiveRepo {
  readonly #engine: Engine;
  readonly #index: IndexRepo;

  constructor(engine: Engine, index: IndexRepo) {
    this.#engine = engine;
    this.#index = index;
  }

  /**
   * Writes `records` into the agent's open turn, all in one transaction (refused as a whole when
   * no turn is open or a record names a plan step the turn does not hold).
   */
  append(agentId: number, records: readonly ArchiveWrite[], what: string): ArchiveSlot[] {
    return this.#engine.write(what, () => {
      const turn = requireOpenTurn(this.#engine, agentId, what);
      this.#checkPlanSteps(turn.id, records, what);
      return this.writeInto(turn, records);
    });
  }

  /** Writes records into `turn` (must run inside a write; the caller checked the turn is open). */
  writeInto(turn: RawTopic, records: readonly ArchiveWrite[]): ArchiveSlot[] {
    let highest = this.#maxSeq(turn.id);
    const slots: ArchiveSlot[] = [];
    for (const record of records) {
      const seq = record.seq ?? Math.max(highest, 2) + 1;
      highest = Math.max(highest, seq);
      slots.push(this.#upsert(turn, record, seq));
    }
    return slots;
  }

  #upsert(turn: RawTopic, record: ArchiveWrite, seq: number): ArchiveSlot {
    const isEvent = record.kind === 'event';
    const row = {
      role: isEvent ? null : (record.role ?? 'user'),
      speaker: isEvent ? null : (record.speaker ?? null),
      eventType: isEvent ? (record.eventType ?? '') : null,
      planStep: isEvent ? (record.planStep ?? null) : null,
    };
    // Not `… RETURNING id`: a statement with RETURNING opens a statement savepoint, and at every
    // savepoint FTS5 writes the index rows it holds so far to a new segment, so each record of a
    // turn but the last would leave a segment of its own. The id is read by the unique slot.
    this.#engine
      .statement(
        `INSERT INTO archive (agent_id, topic_id, seq, kind, role, speaker, content_type, event_type, plan_step,
           content, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (topic_id, seq) DO UPDATE SET kind = excluded.kind, role = excluded.role,
           speaker = excluded.speaker, content_type = excluded.content_type, event_type = excluded.event_type,
           plan_step = excluded.plan_step, content = excluded.content, created_at = excluded.created_at`,
      )
      .run(
        turn.agent_id,
        turn.id,
        seq,
        record.kind,
        row.role,
        row.speaker,
        record.contentType,
        row.eventType,
        row.planStep,
        record.content,
        record.createdAt,
      );
    const id = this.#engine
      .statement('SELECT id FROM archive WHERE topic_id = ? AND seq = ?')
      .pluck(true)
      .get(turn.id, seq) as number;
    this.#index.upsert({
      layer: 'archive',
      ref: String(id),
      agentId: turn.agent_id,
      sceneId: turn.scene_id,
      topicId: turn.id,
      createdAt: record.createdAt,
      text: archiveIndexText({
        kind: record.kind,
        role: row.role ?? undefined,
        speaker: row.speaker ?? undefined,
        eventType: row.eventType ?? undefined,
        content: record.content,
      }),
      speaker: archiveIndexSpeaker({ speaker: row.speaker ?? undefined, content: record.content }),
    });
    return { id: String(id), topicId: turn.id, seq };
  }

  #maxSeq(topicId: string): number {
    return (
      (this.#engine.statement('SELECT max(seq) FROM archive WHERE topic_id = ?').pluck(true).get(topicId) as
        | number
        | null) ?? 0
    );
  }

  #checkPlanSteps(topicId: string, records: readonly ArchiveWrite[], what: string): void {
    records.forEach((record, i) => {
      if (record.planStep === undefined) return;
      const live = this.#engine
        .statement('SELECT 1 FROM plan_nodes WHERE topic_id = ? AND seq = ?')
        .pluck(true)
        .get(topicId, record.planStep);
      if (live === undefined) {
        const field = records.length > 1 ? `${what}.${i}.planStep` : `${what}.planStep`;
        throw new HedgehopError(
          'INVALID_INPUT',
          `${field}: step ${record.planStep} is not a step of the open turn's plan (planNodeAdd creates steps)`,
          { field },
        );
      }
    });
  }

  /** The utterances of a turn in slot order. */
  utterances(topicId: string): TurnUtteranceRow[] {
    return this.#utteranceRows(
      `SELECT seq, role, speaker, content, created_at FROM archive
       WHERE topic_id = ? AND kind = 'utterance' ORDER BY seq`,
      topicId,
    );
  }

  /**
   * The utterances of the agent's open turn in slot order (none when no turn is open): what
   * closing a turn reads, in the same snapshot as the open turn ({@link ScenesRepo.openTurnOf}).
   */
  openTurnUtterances(agentId: number): TurnUtteranceRow[] {
    return this.#utteranceRows(
      `SELECT a.seq, a.role, a.speaker, a.content, a.created_at FROM archive a
       WHERE a.topic_id = (SELECT t.id FROM topics t WHERE t.agent_id = ? AND t.status = 'open')
         AND a.kind = 'utterance' ORDER BY a.seq`,
      agentId,
    );
  }

  #utteranceRows(sql: string, key: string | number): TurnUtteranceRow[] {
    const rows = this.#engine.statement(sql).pluck(false).all(key) as {
      seq: number;
      role: UtteranceRole;
      speaker: string | null;
      content: string;
      created_at: number;
    }[];
    return rows.map((row) => ({
      seq: row.seq,
      role: row.role,
      speaker: row.speaker ?? undefined,
      content: row.content,
      createdAt: row.created_at,
    }));
  }

  /**
   * Records matching every condition of `filter`: with a topic, in slot order; otherwise in
   * record-time order (ties by id). The newest `limit` are kept.
   */
  query(filter: ArchiveFilter): ArchiveRecord[] {
    const where: string[] = ['a.agent_id = :agent'];
    const params: Record<string, unknown> = { agent: filter.agentId, limit: filter.limit };
    const add = (key: string, value: unknown, clause: string): void => {
      if (value === undefined) return;
      where.push(clause);
      params[key] = value;
    };
    add('topic', filter.topicId, 'a.topic_id = :topic');
    add('scene', filter.sceneId, 't.scene_id = :scene');
    add('from', filter.from, 'a.created_at >= :from');
    add('to', filter.to, 'a.created_at <= :to');
    add('kind', filter.kind, 'a.kind = :kind');
    add('ctype', filter.contentType, 'a.content_type = :ctype');
    add('role', filter.role, 'a.role = :role');
    add('speaker', filter.speaker, 'a.speaker = :speaker');
    if (filter.planSteps)
      add('steps', JSON.stringify(filter.planSteps), 'a.plan_step IN (SELECT value FROM json_each(:steps))');
    if (filter.ids) {
      add('ids', JSON.stringify(filter.ids), 'a.id IN (SELECT value FROM json_each(:ids))');
      // Records by id are looked up by their primary key: `+` keeps the planner off the
      // (agent, time) index, which would walk every record of the agent to find a few ids.
      where[0] = '+a.agent_id = :agent';
    }
    const order = filter.topicId !== undefined ? 'a.seq DESC' : 'a.created_at DESC, a.id DESC';
    if (filter.contains !== undefined) return this.#queryContaining(where, order, params, filter);
    const rows = this.#engine
      .statement(
        `SELECT ${ARCHIVE_COLUMNS} FROM archive a JOIN topics t ON t.id = a.topic_id
         WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT :limit`,
      )
      .pluck(false)
      .all(params) as RawArchive[];
    return rows.reverse().map(toArchive);
  }

  /**
   * The newest `limit` matching records whose content holds `contains`, compared in lower case
   * in JavaScript (SQLite's lower() folds only ASCII); rows are read newest first and the walk
   * stops once `limit` have matched.
   */
  #queryContaining(
    where: readonly string[],
    order: string,
    params: Record<string, unknown>,
    filter: ArchiveFilter,
  ): ArchiveRecord[] {
    const needle = (filter.contains ?? '').toLowerCase();
    const { limit: _limit, ...rest } = params;
    const rows: RawArchive[] = [];
    const statement = this.#engine
      .statement(
        `SELECT ${ARCHIVE_COLUMNS} FROM archive a JOIN topics t ON t.id = a.topic_id
         WHERE ${where.join(' AND ')} ORDER BY ${order}`,
      )
      .pluck(false);
    for (const row of statement.iterate(rest) as Iterable<RawArchive>) {
      if (!row.content.toLowerCase().includes(needle)) continue;
      rows.push(row);
      if (rows.length >= filter.limit) break;
    }
    return rows.reverse().map(toArchive);
  }

  /**
   * Deletes the agent's records older than `cutoff` (host time) and their index rows, except
   * those of `keepTopicId` (the open turn). Slot numbers of survivors never change.
   */
  prune(agentId: number, cutoff: number, keepTopicId: string | undefined): number {
    return this.#engine.write('prune archive', () => {
      const ids = this.#engine
        .statement('SELECT id FROM archive WHERE agent_id = ? AND created_at < ? AND topic_id IS NOT ?')
        .pluck(true)
        .all(agentId, cutoff, keepTopicId ?? null) as number[];
      for (const id of ids) {
        this.#index.remove('archive', String(id));
        this.#engine.statement('DELETE FROM archive WHERE id = ?').run(id);
      }
      return ids.length;
    });
  }
}
