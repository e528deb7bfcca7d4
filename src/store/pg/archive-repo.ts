import { HedgehopError } from '../../core/errors.js';
import type { ArchiveRecord, ArchiveSlot } from '../../core/model/conversation.js';
import type { ArchiveFilter, ArchiveWrite, TurnUtteranceRow } from '../archive-repo.js';
import { archiveIndexText } from '../../core/index-text.js';
import { toArchive, type RawArchive, type RawTopic } from '../conversation-rows.js';
import type { IndexRepository, Repository } from '../seam.js';
import type { ArchiveRepo } from '../archive-repo.js';
import { requireOpenTurn } from './open-turn.js';
import type { PgQuery } from './pg-query.js';
import { all, lockAgent, scalar } from './rows.js';

const ARCHIVE_COLUMNS = `a.id, a.topic_id, t.scene_id, a.seq, a.kind, a.role, a.speaker, a.content_type,
  a.event_type, a.plan_step, a.content, a.created_at`;

/** How many rows a `contains` read takes per round trip while it walks newest first. */
const CONTAINS_PAGE = 500;

/**
 * Archive records in PostgreSQL: the same calls and results as {@link ArchiveRepo}. Slots are
 * numbered under the agent's lock ({@link lockAgent}), so concurrent writers on other
 * connections get slots 3, 4, … without gaps or duplicates.
 */
export class PgArchiveRepo implements Repository<ArchiveRepo> {
  readonly #db: PgQuery;
  readonly #index: IndexRepository;

  constructor(db: PgQuery, index: IndexRepository) {
    this.#db = db;
    this.#index = index;
  }

  /** See {@link ArchiveRepo.append}. */
  async append(agentId: number, records: readonly ArchiveWrite[], what: string): Promise<ArchiveSlot[]> {
    await lockAgent(this.#db, agentId);
    const turn = await requireOpenTurn(this.#db, agentId, what);
    await this.#checkPlanSteps(turn.id, records, what);
    return this.writeInto(turn, records);
  }

  /** See {@link ArchiveRepo.writeInto}; the caller holds the agent's lock. */
  async writeInto(turn: RawTopic, records: readonly ArchiveWrite[]): Promise<ArchiveSlot[]> {
    let highest = await this.#maxSeq(turn.id);
    const slots: ArchiveSlot[] = [];
    for (const record of records) {
      const seq = record.seq ?? Math.max(highest, 2) + 1;
      highest = Math.max(highest, seq);
      slots.push(await this.#upsert(turn, record, seq));
    }
    return slots;
  }

  async #upsert(turn: RawTopic, record: ArchiveWrite, seq: number): Promise<ArchiveSlot> {
    const isEvent = record.kind === 'event';
    const row = {
      role: isEvent ? null : (record.role ?? 'user'),
      speaker: isEvent ? null : (record.speaker ?? null),
      eventType: isEvent ? (record.eventType ?? '') : null,
      planStep: isEvent ? (record.planStep ?? null) : null,
    };
    const fields = [
      record.kind,
      row.role,
      row.speaker,
      record.contentType,
      row.eventType,
      row.planStep,
      record.content,
      record.createdAt,
    ];
    // Replace first, insert only when the slot is free: an INSERT … ON CONFLICT would take an id
    // from the sequence even when it updates, and ids would drift from SQLite's.
    let id = await scalar<string>(
      this.#db,
      `UPDATE archive SET kind = $3, role = $4, speaker = $5, content_type = $6, event_type = $7,
         plan_step = $8, content = $9, created_at = $10
       WHERE topic_id = $1 AND seq = $2 RETURNING id`,
      [turn.id, seq, ...fields],
    );
    id ??= await scalar<string>(
      this.#db,
      `INSERT INTO archive (topic_id, seq, kind, role, speaker, content_type, event_type, plan_step,
         content, created_at, agent_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
      [turn.id, seq, ...fields, turn.agent_id],
    );
    await this.#index.upsert({
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
    });
    return { id: String(id), topicId: turn.id, seq };
  }

  async #maxSeq(topicId: string): Promise<number> {
    return (
      (await scalar<number | null>(this.#db, 'SELECT max(seq) FROM archive WHERE topic_id = $1', [
        topicId,
      ])) ?? 0
    );
  }

  async #checkPlanSteps(topicId: string, records: readonly ArchiveWrite[], what: string): Promise<void> {
    for (const [i, record] of records.entries()) {
      if (record.planStep === undefined) continue;
      const live = await scalar(this.#db, 'SELECT 1 FROM plan_nodes WHERE topic_id = $1 AND seq = $2', [
        topicId,
        record.planStep,
      ]);
      if (live === undefined) {
        const field = records.length > 1 ? `${what}.${i}.planStep` : `${what}.planStep`;
        throw new HedgehopError(
          'INVALID_INPUT',
          `${field}: step ${record.planStep} is not a step of the open turn's plan (planNodeAdd creates steps)`,
          { field },
        );
      }
    }
  }

  /** See {@link ArchiveRepo.utterances}. */
  async utterances(topicId: string): Promise<TurnUtteranceRow[]> {
    const rows = await all<{
      seq: number;
      role: TurnUtteranceRow['role'];
      speaker: string | null;
      content: string;
      created_at: number;
    }>(
      this.#db,
      `SELECT seq, role, speaker, content, created_at FROM archive
       WHERE topic_id = $1 AND kind = 'utterance' ORDER BY seq`,
      [topicId],
    );
    return rows.map((row) => ({
      seq: row.seq,
      role: row.role,
      speaker: row.speaker ?? undefined,
      content: row.content,
      createdAt: row.created_at,
    }));
  }

  /** See {@link ArchiveRepo.query}. */
  async query(filter: ArchiveFilter): Promise<ArchiveRecord[]> {
    const values: unknown[] = [filter.agentId];
    const where: string[] = ['a.agent_id = $1'];
    const add = (value: unknown, clause: (param: string) => string): void => {
      if (value === undefined) return;
      values.push(value);
      where.push(clause(`$${values.length}`));
    };
    add(filter.topicId, (p) => `a.topic_id = ${p}`);
    add(filter.sceneId, (p) => `t.scene_id = ${p}`);
    add(filter.from, (p) => `a.created_at >= ${p}`);
    add(filter.to, (p) => `a.created_at <= ${p}`);
    add(filter.kind, (p) => `a.kind = ${p}`);
    add(filter.contentType, (p) => `a.content_type = ${p}`);
    add(filter.role, (p) => `a.role = ${p}`);
    add(filter.speaker, (p) => `a.speaker = ${p}`);
    add(filter.planSteps, (p) => `a.plan_step = ANY(${p}::integer[])`);
    add(filter.ids, (p) => `a.id = ANY(${p}::bigint[])`);
    const byTopic = filter.topicId !== undefined;
    const order = byTopic ? 'a.seq DESC' : 'a.created_at DESC, a.id DESC';
    if (filter.contains !== undefined) return this.#queryContaining(where, values, byTopic, filter);
    values.push(filter.limit);
    const rows = await all<RawArchive>(
      this.#db,
      `SELECT ${ARCHIVE_COLUMNS} FROM archive a JOIN topics t ON t.id = a.topic_id
       WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $${values.length}`,
      values,
    );
    return rows.reverse().map(toArchive);
  }

  /**
   * The newest `limit` matching records whose content holds `contains`, compared in lower case in
   * JavaScript (as the SQLite side does, so both engines fold case alike): pages of rows are read
   * newest first, each after the last one seen, until `limit` have matched.
   */
  async #queryContaining(
    where: readonly string[],
    values: readonly unknown[],
    byTopic: boolean,
    filter: ArchiveFilter,
  ): Promise<ArchiveRecord[]> {
    const needle = (filter.contains ?? '').toLowerCase();
    const order = byTopic ? 'a.seq DESC' : 'a.created_at DESC, a.id DESC';
    const found: RawArchive[] = [];
    let last: RawArchive | undefined;
    for (;;) {
      const page: unknown[] = [...values];
      const clauses = [...where];
      if (last !== undefined) {
        if (byTopic) {
          page.push(last.seq);
          clauses.push(`a.seq < $${page.length}`);
        } else {
          page.push(last.created_at, last.id);
          clauses.push(`(a.created_at, a.id) < ($${page.length - 1}, $${page.length}::bigint)`);
        }
      }
      const rows = await all<RawArchive>(
        this.#db,
        `SELECT ${ARCHIVE_COLUMNS} FROM archive a JOIN topics t ON t.id = a.topic_id
         WHERE ${clauses.join(' AND ')} ORDER BY ${order} LIMIT ${CONTAINS_PAGE}`,
        page,
      );
      for (const row of rows) {
        if (!row.content.toLowerCase().includes(needle)) continue;
        found.push(row);
        if (found.length >= filter.limit) return found.reverse().map(toArchive);
      }
      if (rows.length < CONTAINS_PAGE) return found.reverse().map(toArchive);
      last = rows[rows.length - 1];
    }
  }

  /** See {@link ArchiveRepo.prune}. */
  async prune(agentId: number, cutoff: number, keepTopicId: string | undefined): Promise<number> {
    await lockAgent(this.#db, agentId);
    const ids = (
      await all<{ id: string }>(
        this.#db,
        `SELECT id FROM archive WHERE agent_id = $1 AND created_at < $2 AND topic_id IS DISTINCT FROM $3
         ORDER BY created_at, id`,
        [agentId, cutoff, keepTopicId ?? null],
      )
    ).map((row) => row.id);
    for (const id of ids) await this.#index.remove('archive', String(id));
    if (ids.length > 0) await this.#db.query('DELETE FROM archive WHERE id = ANY($1::bigint[])', [ids]);
    return ids.length;
  }
}
