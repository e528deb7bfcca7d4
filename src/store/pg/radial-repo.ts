import { HedgehopError } from '../../core/errors.js';
import type { NodeIndexText } from '../../core/index-text.js';
import {
  extendsOf,
  nodeIdTaken,
  type CommittedNode,
  type ImportBatch,
  type LineOverview,
  type LineRecord,
  type NewLine,
  type NewNode,
  type NodeCommit,
  type NodeRecord,
  type SummaryColumns,
} from '../radial-repo.js';
import {
  LINE_COLUMNS,
  NODE_COLUMNS,
  NODE_FROM,
  toLine,
  toNode,
  toOverview,
  type RawLine,
  type RawNode,
  type RawOverview,
} from '../radial-rows.js';
import type { IndexRepository, RadialRepository } from '../seam.js';
import {
  derivedText,
  first,
  fromUtf8,
  lastFirst,
  int,
  intOrNull,
  sqlLimit,
  sqlState,
  utf8,
} from './pg-values.js';
import type { PgQuery } from './pg-query.js';
import { indexText } from './fts.js';
import { PgRecallRepo } from './recall-repo.js';
import type { NodeRowMatch } from '../radial-repo.js';

/** A line row from PostgreSQL with its numbers made numbers. */
function line(row: RawLine): LineRecord {
  return toLine({ ...row, created_at: int(row.created_at), ord: int(row.ord), next_seq: int(row.next_seq) });
}

function overview(row: RawOverview): LineOverview {
  return toOverview({
    ...row,
    created_at: int(row.created_at),
    ord: int(row.ord),
    next_seq: int(row.next_seq),
    n_created_at: intOrNull(row.n_created_at),
  });
}

function node(row: RawNode): NodeRecord {
  return toNode({
    ...row,
    seq: int(row.seq),
    line_seq: int(row.line_seq),
    position: int(row.position),
    created_at: int(row.created_at),
    summaries_tier: int(row.summaries_tier),
    full_bytes: int(row.full_bytes),
  });
}

function lineNotFound(lineId: string): HedgehopError {
  return new HedgehopError('NOT_FOUND', `lineId: no line '${lineId}'`, {
    field: 'lineId',
    remedy: 'create-line',
  });
}

function lineTaken(lineId: string): HedgehopError {
  return new HedgehopError('CONFLICT', `lineId: line '${lineId}' already exists (use getLine)`, {
    field: 'lineId',
  });
}

/**
 * Radial memory on PostgreSQL (SQLite: src/store/radial-repo.ts), with the same calls and
 * results. Where SQLite relies on there being one writer at a time, rows are locked instead:
 * a new node locks its line row (so positions stay 1..n under concurrent commits), and a new
 * line takes a transaction advisory lock per agent (so `ord` stays unique). Full contexts are
 * stored as their UTF-8 bytes (`bytea`), so any text SQLite's TEXT holds, NUL included,
 * reads back the same.
 */
export class PgRadialRepo implements RadialRepository {
  readonly #db: PgQuery;
  readonly #index: IndexRepository;

  constructor(db: PgQuery, index: IndexRepository) {
    this.#db = db;
    this.#index = index;
  }

  // ---- meta -------------------------------------------------------------------------------

  /** A radial meta value of one agent (`radial.<agentId>.<name>`). */
  async getMeta(agentId: number, name: string): Promise<string | undefined> {
    const row = await first<{ value: string }>(this.#db, 'SELECT value FROM meta WHERE key = $1', [
      `radial.${agentId}.${name}`,
    ]);
    return row?.value;
  }

  /** Sets a radial meta value; with `overwrite` false an existing value is kept. Returns the stored value. */
  async setMeta(agentId: number, name: string, value: string, overwrite: boolean): Promise<string> {
    const key = `radial.${agentId}.${name}`;
    const row = await first<{ value: string }>(
      this.#db,
      overwrite
        ? `INSERT INTO meta (key, value) VALUES ($1, $2)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value RETURNING value`
        : `WITH ins AS (INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value)
           SELECT value FROM ins UNION ALL SELECT value FROM meta WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
      [key, value],
    );
    return row?.value ?? value;
  }

  // ---- lines ------------------------------------------------------------------------------

  /** Creates a line; `CONFLICT` when the agent already has one with that id. */
  async createLine(agentId: number, newLine: NewLine): Promise<LineRecord> {
    await this.#lockLines(agentId);
    if (await this.#line(agentId, newLine.id)) throw lineTaken(newLine.id);
    await this.#insertLine(agentId, newLine);
    return (await this.#line(agentId, newLine.id)) as LineRecord;
  }

  /** The line, created when absent; an existing line keeps its name and description. */
  async getOrCreateLine(agentId: number, newLine: NewLine): Promise<{ line: LineRecord; created: boolean }> {
    const existing = await this.#line(agentId, newLine.id);
    if (existing) return { line: existing, created: false };
    await this.#lockLines(agentId);
    const raced = await this.#line(agentId, newLine.id);
    if (raced) return { line: raced, created: false };
    await this.#insertLine(agentId, newLine);
    return { line: (await this.#line(agentId, newLine.id)) as LineRecord, created: true };
  }

  /** Orders line creation per agent (the next `ord` is read, then written), until commit. */
  async #lockLines(agentId: number): Promise<void> {
    await this.#db.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.lines'), $1::int)", [
      agentId,
    ]);
  }

  async #insertLine(agentId: number, newLine: NewLine): Promise<void> {
    try {
      await this.#db.query(
        `INSERT INTO lines (agent_id, id, name, description, created_at, ord, next_seq, extra)
         VALUES ($1, $2, $3, $4, $5, (SELECT coalesce(max(ord), 0) + 1 FROM lines WHERE agent_id = $1), 1, $6)`,
        [agentId, newLine.id, newLine.name, newLine.description, newLine.createdAt, newLine.extra],
      );
    } catch (error) {
      if (sqlState(error) === '23505') throw lineTaken(newLine.id);
      throw error;
    }
  }

  async getLine(agentId: number, lineId: string): Promise<LineRecord | undefined> {
    return this.#line(agentId, lineId);
  }

  async #line(agentId: number, lineId: string, lock = false): Promise<LineRecord | undefined> {
    const row = await first<RawLine>(
      this.#db,
      `SELECT ${LINE_COLUMNS} FROM lines l WHERE l.agent_id = $1 AND l.id = $2${lock ? ' FOR UPDATE' : ''}`,
      [agentId, lineId],
    );
    return row ? line(row) : undefined;
  }

  /** Every line of the agent in creation order, each with its newest node. */
  async listLines(agentId: number): Promise<LineOverview[]> {
    const { rows } = await this.#db.query<RawOverview>(
      `SELECT ${LINE_COLUMNS}, n.id AS n_id, n.task_label AS n_label, n.created_at AS n_created_at,
              n.s_origin AS n_origin, n.s_brief AS n_brief, n.conversation_summary AS n_conversation
       FROM lines l LEFT JOIN nodes n
         ON n.agent_id = l.agent_id AND n.line_id = l.id AND n.line_seq = l.next_seq - 1
       WHERE l.agent_id = $1 ORDER BY l.ord`,
      [agentId],
    );
    return rows.map(overview);
  }

  /** Number of lines and nodes of the agent. */
  async counts(agentId: number): Promise<{ lines: number; nodes: number }> {
    const row = await first<{ lines: unknown; nodes: unknown }>(
      this.#db,
      'SELECT count(*) AS lines, coalesce(sum(next_seq - 1), 0) AS nodes FROM lines WHERE agent_id = $1',
      [agentId],
    );
    return { lines: int(row?.lines ?? 0), nodes: int(row?.nodes ?? 0) };
  }

  // ---- nodes ------------------------------------------------------------------------------

  /**
   * Commits one node in one statement (`hh_node_commit`, src/store/pg/schema/node-commit.ts): the
   * line's row locked and its tip read, the node inserted at position 1 without touching older
   * rows, the line advanced and the node's index rows written, all on the server. Keyed by the
   * node's id: a node already on the line with that id is returned (`existed`) and nothing is
   * written, so the commit may be run again after a lost reply. The statement ends the call
   * and may carry the transaction's COMMIT. `NOT_FOUND` (field `lineId`) when the line does not
   * exist; `CONFLICT` when the id is another line's node. Must run inside a write.
   */
  async insertNode(agentId: number, lineId: string, commit: NodeCommit): Promise<CommittedNode> {
    const { node: newNode, index } = commit;
    const row = await lastFirst<{
      o_status: string;
      o_seq: unknown;
      o_line_seq: unknown;
      o_extra: string | null;
    }>(
      this.#db,
      `SELECT * FROM hh_node_commit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
         $18, $19, $20::text[], $21::text[], $22::integer[], $23::text[])`,
      [
        newNode.id,
        agentId,
        lineId,
        commit.extend,
        ...nodeColumns(newNode),
        ...contentColumns(newNode, index),
      ],
    );
    if (row?.o_status === 'no-line') throw lineNotFound(lineId);
    if (row?.o_status === 'taken') throw nodeIdTaken(newNode.id);
    return {
      seq: int(row?.o_seq),
      lineSeq: int(row?.o_line_seq),
      extendsNodeId: extendsOf(row?.o_extra ?? '{}'),
      existed: row?.o_status === 'existed',
    };
  }

  /**
   * An imported node row, the line advanced past it and its index rows, in one statement
   * (`hh_node_write`, src/store/pg/schema/write-functions.ts); the caller holds the agent's line lock.
   */
  async #insertNodeRow(
    agentId: number,
    lineId: string,
    lineSeq: number,
    newNode: NewNode,
    index: readonly NodeIndexText[],
  ): Promise<number> {
    const inserted = await first<{ seq: unknown }>(
      this.#db,
      `SELECT hh_node_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
         $19, $20, $21::text[], $22::text[], $23::integer[], $24::text[]) AS seq`,
      [
        newNode.id,
        agentId,
        lineId,
        lineSeq,
        ...nodeColumns(newNode),
        newNode.extra,
        ...contentColumns(newNode, index),
      ],
    );
    return int(inserted?.seq);
  }

  /** The node at `position` of a line (1 = newest), or undefined. */
  async nodeAt(agentId: number, lineId: string, position: number): Promise<NodeRecord | undefined> {
    const row = await first<RawNode>(
      this.#db,
      `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM}
       WHERE n.agent_id = $1 AND n.line_id = $2
         AND n.line_seq = (SELECT next_seq FROM lines WHERE agent_id = $1 AND id = $2) - $3`,
      [agentId, lineId, position],
    );
    return row ? node(row) : undefined;
  }

  /** A node of the agent by id, or undefined. */
  async nodeById(agentId: number, nodeId: string): Promise<NodeRecord | undefined> {
    const row = await first<RawNode>(
      this.#db,
      `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.id = $1 AND n.agent_id = $2`,
      [nodeId, agentId],
    );
    return row ? node(row) : undefined;
  }

  /**
   * The agent's radial recall-index rows matching `match`, best BM25 first, at most `limit`
   * (the SQLite twin's contract): the recall index's ranked match with the radial filter.
   */
  async matchNodeRows(
    agentId: number,
    match: string,
    options: { readonly lineId: string | undefined; readonly limit: number },
  ): Promise<NodeRowMatch[]> {
    const rows = await new PgRecallRepo(this.#db).match(
      match,
      { agentId, layers: ['radial'], lineId: options.lineId },
      Math.max(1, Math.floor(options.limit)),
    );
    return rows.map((row) => ({ ref: row.ref, part: row.part, bm25: row.bm25 }));
  }

  /** Nodes of the agent by id (ids not found are skipped), in no particular order. */
  async nodesByIds(agentId: number, nodeIds: readonly string[]): Promise<NodeRecord[]> {
    if (nodeIds.length === 0) return [];
    const { rows } = await this.#db.query<RawNode>(
      `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.id = ANY($1::text[]) AND n.agent_id = $2`,
      [nodeIds, agentId],
    );
    return rows.map(node);
  }

  /**
   * Nodes of a line newest first, starting below `beforeLineSeq` (exclusive; omit to start at the
   * newest), at most `limit`. Keyed on `line_seq`, so paging is stable while others commit.
   */
  async lineNodes(
    agentId: number,
    lineId: string,
    options: { beforeLineSeq?: number; limit: number },
  ): Promise<NodeRecord[]> {
    const { rows } = await this.#db.query<RawNode>(
      `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM}
       WHERE n.agent_id = $1 AND n.line_id = $2 AND n.line_seq < $3
       ORDER BY n.line_seq DESC LIMIT $4`,
      [agentId, lineId, options.beforeLineSeq ?? Number.MAX_SAFE_INTEGER, sqlLimit(options.limit)],
    );
    return rows.map(node);
  }

  /** The verbatim full context of a node, or undefined when the node is not the agent's. */
  async fullContext(agentId: number, nodeId: string): Promise<string | undefined> {
    const row = await first<{ full_context: unknown }>(
      this.#db,
      'SELECT full_context FROM nodes WHERE id = $1 AND agent_id = $2',
      [nodeId, agentId],
    );
    return row ? fromUtf8(row.full_context) : undefined;
  }

  // ---- pending summaries ----------------------------------------------------------------

  /** Nodes whose summaries are pending, oldest first, with their full context. */
  async pendingNodes(agentId: number, limit: number): Promise<{ node: NodeRecord; fullContext: string }[]> {
    const { rows } = await this.#db.query<RawNode & { full_context: unknown }>(
      `SELECT ${NODE_COLUMNS}, n.full_context FROM ${NODE_FROM}
       WHERE n.agent_id = $1 AND n.summaries_state = 'pending' ORDER BY n.seq LIMIT $2`,
      [agentId, sqlLimit(limit)],
    );
    return rows.map((row) => ({ node: node(row), fullContext: fromUtf8(row.full_context) }));
  }

  /** Number of nodes of the agent whose summaries are pending. */
  async pendingCount(agentId: number): Promise<number> {
    const row = await first<{ count: unknown }>(
      this.#db,
      "SELECT count(*) AS count FROM nodes WHERE agent_id = $1 AND summaries_state = 'pending'",
      [agentId],
    );
    return int(row?.count ?? 0);
  }

  /**
   * Stores computed summaries of a node that is still pending (a node filled meanwhile by
   * another process is left alone: its row is locked, then checked) and refreshes its `summary`
   * index row. Returns false when there was nothing to do.
   */
  async fillSummaries(
    agentId: number,
    nodeId: string,
    summaries: SummaryColumns,
    state: 'ready' | 'pending',
    tier: number,
    summaryIndexText: string | undefined,
  ): Promise<boolean> {
    const row = await first<{ line_id: string; created_at: unknown }>(
      this.#db,
      `SELECT n.line_id, n.created_at FROM nodes n
       WHERE n.id = $1 AND n.agent_id = $2 AND n.summaries_state = 'pending' FOR UPDATE`,
      [nodeId, agentId],
    );
    if (!row) return false;
    await this.#db.query(
      `UPDATE nodes SET s_origin = $1, s_brief = $2, s_summary = $3, s_detailed = $4, summaries_state = $5,
         summaries_tier = $6 WHERE id = $7`,
      [
        derivedText(summaries.origin),
        derivedText(summaries.brief),
        derivedText(summaries.summary),
        derivedText(summaries.detailed),
        state,
        tier,
        nodeId,
      ],
    );
    if (summaryIndexText !== undefined && summaryIndexText.length > 0) {
      await this.#index.upsert({
        layer: 'radial',
        ref: nodeId,
        part: 'summary',
        agentId,
        lineId: row.line_id,
        createdAt: int(row.created_at),
        text: summaryIndexText,
      });
    }
    return true;
  }

  // ---- import / export -------------------------------------------------------------------

  /**
   * Writes a whole import. `CONFLICT` (nothing written) when a line id is already used by the
   * agent or a node id anywhere in the memory. Must run inside a write.
   */
  async importBatch(agentId: number, batch: ImportBatch): Promise<{ lines: number; nodes: number }> {
    await this.#lockLines(agentId);
    await this.#assertNoImportConflict(agentId, batch);
    for (const entry of batch.meta) await this.setMeta(agentId, entry.key, entry.value, entry.overwrite);
    let nodes = 0;
    for (const { line: newLine, nodes: lineNodes } of batch.lines) {
      await this.#insertLine(agentId, newLine);
      for (const [i, { node: newNode, index }] of lineNodes.entries()) {
        await this.#insertNodeRow(agentId, newLine.id, i + 1, newNode, index);
      }
      nodes += lineNodes.length;
    }
    return { lines: batch.lines.length, nodes };
  }

  async #assertNoImportConflict(agentId: number, batch: ImportBatch): Promise<void> {
    const lineIds = batch.lines.map((entry) => entry.line.id);
    const takenLine = await first<{ id: string }>(
      this.#db,
      'SELECT id FROM lines WHERE agent_id = $1 AND id = ANY($2::text[]) LIMIT 1',
      [agentId, lineIds],
    );
    if (takenLine !== undefined) {
      throw new HedgehopError(
        'CONFLICT',
        `lines.${takenLine.id}: this agent already has a line '${takenLine.id}'`,
        { field: `lines.${takenLine.id}` },
      );
    }
    const nodeIds = batch.lines.flatMap((entry) => entry.nodes.map((n) => n.node.id));
    const takenNode = await first<{ id: string }>(
      this.#db,
      'SELECT id FROM nodes WHERE id = ANY($1::text[]) LIMIT 1',
      [nodeIds],
    );
    if (takenNode !== undefined) {
      throw new HedgehopError('CONFLICT', `node id ${takenNode.id} already exists in this file`, {
        field: 'nodes.id',
      });
    }
  }

  /**
   * Every line of the agent with its nodes newest first, each with its full context (for
   * export; the engine's read transaction gives one snapshot).
   */
  async snapshot(
    agentId: number,
  ): Promise<{ line: LineRecord; nodes: { node: NodeRecord; fullContext: string }[] }[]> {
    const { rows: lineRows } = await this.#db.query<RawLine>(
      `SELECT ${LINE_COLUMNS} FROM lines l WHERE l.agent_id = $1 ORDER BY l.ord`,
      [agentId],
    );
    const out: { line: LineRecord; nodes: { node: NodeRecord; fullContext: string }[] }[] = [];
    for (const lineRow of lineRows.map(line)) {
      const { rows } = await this.#db.query<RawNode & { full_context: unknown }>(
        `SELECT ${NODE_COLUMNS}, n.full_context FROM ${NODE_FROM}
         WHERE n.agent_id = $1 AND n.line_id = $2 ORDER BY n.line_seq DESC`,
        [agentId, lineRow.id],
      );
      out.push({
        line: lineRow,
        nodes: rows.map((row) => ({ node: node(row), fullContext: fromUtf8(row.full_context) })),
      });
    }
    return out;
  }
}

/** A node's own columns as `hh_node_commit` and `hh_node_write` take them: label to summaries' tier. */
function nodeColumns(newNode: Omit<NewNode, 'extra'>): unknown[] {
  return [
    newNode.taskLabel,
    newNode.createdAt,
    newNode.conversationSummary,
    newNode.fileChanges,
    newNode.todos,
    newNode.envSnapshot,
    newNode.history,
    derivedText(newNode.summaries.origin),
    derivedText(newNode.summaries.brief),
    derivedText(newNode.summaries.summary),
    derivedText(newNode.summaries.detailed),
    newNode.summariesState,
    newNode.summariesTier,
  ];
}

/** A node's verbatim context and its index rows (parts, lexeme vectors, lengths, heavy flags), as both functions take them last. */
function contentColumns(newNode: Omit<NewNode, 'extra'>, index: readonly NodeIndexText[]): unknown[] {
  const parts = index.filter((doc) => doc.text.length > 0);
  const texts = parts.map((doc) => indexText(doc.text));
  return [
    newNode.fullBytes,
    utf8(newNode.fullContext),
    parts.map((doc) => doc.part),
    texts.map((text) => text.vector),
    texts.map((text) => text.length),
    texts.map((text) => text.heavy),
  ];
}
