import { HedgehopError } from '../../core/errors.js';
import type { ArchiveRecord, ArchiveSlot } from '../../core/model/conversation.js';
import type { ArchiveFilter, ArchiveWrite, TurnUtteranceRow } from '../archive-repo.js';
import { archiveIndexSpeaker, archiveIndexText } from '../../core/index-text.js';
import { toArchive, type RawArchive, type RawTopic } from '../conversation-rows.js';
import type { IndexRepository, Repository } from '../seam.js';
import type { ArchiveRepo } from '../archive-repo.js';
import { noOpenTurn } from '../open-turn.js';
import { indexText } from './fts.js';
import { PgIndexRepo } from './index-repo.js';
import { lastStatement, type PgQuery } from './pg-query.js';
import { all, lockAgent } from './rows.js';

const ARCHIVE_COLUMNS = `a.id, a.topic_id, t.scene_id, a.seq, a.kind, a.role, a.speaker, a.content_type,
  a.event_type, a.plan_step, a.content, a.created_at`;

/** How many rows a `contains` read takes per round trip while it walks newest first. */
const CONTAINS_PAGE = 500;

/** One row of `hh_archive_write` (src/store/pg/schema/write-functions.ts). */
interface WrittenRow {
  readonly o_status: 'ok' | 'no-turn' | 'bad-step';
  readonly o_index: number | null;
  readonly o_id: unknown;
  readonly o_topic: string | null;
  readonly o_seq: number | null;
  readonly o_agent: unknown;
  readonly o_scene: string | null;
}

function toSlot(row: WrittenRow): ArchiveSlot {
  return { id: String(row.o_id), topicId: row.o_topic ?? '', seq: row.o_seq ?? 0 };
}

/**
 * Writes `records` into the turn `topicId` (or, when undefined, the agent's open turn, under
 * the agent's lock, plan steps checked) in one statement: the rows, their slots and their
 * recall-index rows, the index texts and lexemes computed here as the SQLite engine computes them.
 * `last`: the statement is its write's last (`append`, a write of this one call), so it may
 * carry COMMIT; `writeInto` is one step of a longer write and never does.
 */
async function writeRecords(
  db: PgQuery,
  agentId: number,
  topicId: string | undefined,
  records: readonly ArchiveWrite[],
  index: IndexRepository,
  last: boolean,
): Promise<WrittenRow[]> {
  const inline = index instanceof PgIndexRepo;
  const texts: string[] = [];
  const columns = {
    seqs: [] as (number | null)[],
    kinds: [] as string[],
    roles: [] as (string | null)[],
    speakers: [] as (string | null)[],
    contentTypes: [] as string[],
    eventTypes: [] as (string | null)[],
    planSteps: [] as (number | null)[],
    contents: [] as string[],
    created: [] as number[],
    bodies: [] as string[],
    lengths: [] as number[],
    heavy: [] as (string | null)[],
  };
  for (const record of records) {
    const isEvent = record.kind === 'event';
    const role = isEvent ? null : (record.role ?? 'user');
    const speaker = isEvent ? null : (record.speaker ?? null);
    const eventType = isEvent ? (record.eventType ?? '') : null;
    const source = archiveIndexText({
      kind: record.kind,
      role: role ?? undefined,
      speaker: speaker ?? undefined,
      eventType: eventType ?? undefined,
      content: record.content,
    });
    texts.push(source);
    const text = inline ? indexText(source) : { vector: '', length: 0, heavy: null };
    columns.seqs.push(record.seq ?? null);
    columns.kinds.push(record.kind);
    columns.roles.push(role);
    columns.speakers.push(speaker);
    columns.contentTypes.push(record.contentType);
    columns.eventTypes.push(eventType);
    columns.planSteps.push(record.planStep ?? null);
    columns.contents.push(record.content);
    columns.created.push(record.createdAt);
    columns.bodies.push(text.vector);
    columns.lengths.push(text.length);
    columns.heavy.push(text.heavy);
  }
  // With the engine's own index the statement is the whole write, and may carry its COMMIT
  // (its refusals, no open turn or a step not in the plan, write nothing).
  const statement = `SELECT * FROM hh_archive_write($1, $2, $3::integer[], $4::text[], $5::text[], $6::text[], $7::text[],
       $8::text[], $9::integer[], $10::text[], $11::bigint[], $12::text[], $13::integer[], $14::text[])`;
  const values = [
    agentId,
    topicId ?? null,
    columns.seqs,
    columns.kinds,
    columns.roles,
    columns.speakers,
    columns.contentTypes,
    columns.eventTypes,
    columns.planSteps,
    columns.contents,
    columns.created,
    inline ? columns.bodies : null,
    inline ? columns.lengths : null,
    inline ? columns.heavy : null,
  ];
  const { rows } =
    inline && last
      ? await lastStatement<WrittenRow>(db, statement, values)
      : await db.query<WrittenRow>(statement, values);
  if (!inline) await indexThrough(index, rows, records, texts);
  return rows;
}

/**
 * The index rows of written records through an index repository other than the engine's own
 * (the comparison tests' recording stand-in), one call per record as the SQLite engine makes them.
 */
async function indexThrough(
  index: IndexRepository,
  rows: readonly WrittenRow[],
  records: readonly ArchiveWrite[],
  texts: readonly string[],
): Promise<void> {
  for (const row of rows) {
    if (row.o_status !== 'ok' || row.o_index === null) continue;
    const record = records[row.o_index];
    await index.upsert({
      layer: 'archive',
      ref: String(row.o_id),
      agentId: Number(row.o_agent),
      sceneId: row.o_scene,
      topicId: row.o_topic,
      createdAt: record?.createdAt ?? 0,
      text: texts[row.o_index] ?? '',
      // What the SQLite engine keeps beside the row; PostgreSQL's own index does not keep it.
      speaker: archiveIndexSpeaker({
        speaker: record?.kind === 'event' ? undefined : record?.speaker,
        content: record?.content ?? '',
      }),
    });
  }
}

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

  /**
   * See {@link ArchiveRepo.append}: one statement ({@link writeRecords} with no turn named),
   * which takes the agent's lock, reads its open turn and checks the plan steps on the server.
   */
  async append(agentId: number, records: readonly ArchiveWrite[], what: string): Promise<ArchiveSlot[]> {
    const rows = await writeRecords(this.#db, agentId, undefined, records, this.#index, true);
    const refusal = rows[0];
    if (refusal?.o_status === 'no-turn') throw noOpenTurn(what);
    if (refusal?.o_status === 'bad-step') {
      const index = refusal.o_index ?? 0;
      const field = records.length > 1 ? `${what}.${index}.planStep` : `${what}.planStep`;
      throw new HedgehopError(
        'INVALID_INPUT',
        `${field}: step ${records[index]?.planStep} is not a step of the open turn's plan (planNodeAdd creates steps)`,
        { field },
      );
    }
    return rows.map(toSlot);
  }

  /** See {@link ArchiveRepo.writeInto}; the caller holds the agent's lock. One statement. */
  async writeInto(turn: RawTopic, records: readonly ArchiveWrite[]): Promise<ArchiveSlot[]> {
    return this.writeIntoTurn(turn.agent_id, turn.id, records);
  }

  /**
   * {@link PgArchiveRepo.writeInto} by the turn's id (the caller holds the agent's lock): sent at
   * once, so that statements sent after it share its round trip.
   */
  async writeIntoTurn(
    agentId: number,
    topicId: string,
    records: readonly ArchiveWrite[],
  ): Promise<ArchiveSlot[]> {
    return (await writeRecords(this.#db, agentId, topicId, records, this.#index, false)).map(toSlot);
  }

  /** See {@link ArchiveRepo.utterances}. */
  utterances(topicId: string): Promise<TurnUtteranceRow[]> {
    return this.#utteranceRows(
      `SELECT seq, role, speaker, content, created_at FROM archive
       WHERE topic_id = $1 AND kind = 'utterance' ORDER BY seq`,
      topicId,
    );
  }

  /**
   * See {@link ArchiveRepo.openTurnUtterances}: one statement that needs no earlier reply, so it
   * travels beside the open turn's read (`update` reads both in one round trip).
   */
  openTurnUtterances(agentId: number): Promise<TurnUtteranceRow[]> {
    return this.#utteranceRows(
      `SELECT a.seq, a.role, a.speaker, a.content, a.created_at FROM archive a
       WHERE a.topic_id = (SELECT t.id FROM topics t WHERE t.agent_id = $1 AND t.status = 'open')
         AND a.kind = 'utterance' ORDER BY a.seq`,
      agentId,
    );
  }

  async #utteranceRows(sql: string, key: string | number): Promise<TurnUtteranceRow[]> {
    const rows = await all<{
      seq: number;
      role: TurnUtteranceRow['role'];
      speaker: string | null;
      content: string;
      created_at: number;
    }>(this.#db, sql, [key]);
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
