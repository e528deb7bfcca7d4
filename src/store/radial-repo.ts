import { HedgehopError } from '../core/errors.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import type { NodeIndexText } from '../core/index-text.js';
import { NODES_INDEXED_KEY } from './index-catch-up.js';
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
} from './radial-rows.js';

import type { LineRecord, LineOverview, NodeRecord } from './radial-rows.js';

export type { LineRecord, LineOverview, NodeRecord };

/** The four summary columns; `null` = not computed (yet). */
export interface SummaryColumns {
  readonly origin: string | null;
  readonly brief: string | null;
  readonly summary: string | null;
  readonly detailed: string | null;
}

/** A radial recall-index row matched by a navigation (see {@link RadialRepo.matchNodeRows}). */
export interface NodeRowMatch {
  /** The node id. */
  readonly ref: string;
  /** `label`, `conversation`, `summary` or `full`. */
  readonly part: string;
  /** BM25 score, higher is better. */
  readonly bm25: number;
}

/** A node to insert. */
export interface NewNode {
  readonly id: string;
  readonly taskLabel: string;
  readonly createdAt: number;
  readonly conversationSummary: string;
  readonly fileChanges: string;
  readonly todos: string;
  readonly envSnapshot: string;
  readonly history: string;
  readonly summaries: SummaryColumns;
  readonly summariesState: 'ready' | 'pending';
  readonly summariesTier: number;
  readonly extra: string;
  readonly fullContext: string;
  readonly fullBytes: number;
}

/**
 * A node to commit as the new position 1 of its line. Its `extra` column is the engine's to
 * write: `{}`, or `{"extendsNodeId":…}` naming the line's newest node before it when `extend` is
 * set and the line has one (read under the line's lock, in the same transaction).
 */
export interface NodeCommit {
  readonly node: Omit<NewNode, 'extra'>;
  /**
   * The node's recall-index texts. The SQLite engine does not write them with the node: it
   * makes the same texts from the node's row when the index catches up (`IndexCatchUp`, once
   * the committing handle's event loop turns, or before its next read).
   */
  readonly index: readonly NodeIndexText[];
  readonly extend: boolean;
}

/**
 * What {@link RadialRepo.insertNode} wrote, or found written: a node with the same id already on
 * the line (an earlier run of the same commit, whose reply was lost) is returned as it stands,
 * with `existed` true, and nothing is written.
 */
export interface CommittedNode {
  readonly seq: number;
  readonly lineSeq: number;
  readonly extendsNodeId: string | undefined;
  readonly existed: boolean;
}

/** A committed node's `extra` column (the same text on both engines). */
export const commitExtra = (extendsNodeId: string | undefined): string =>
  extendsNodeId === undefined ? '{}' : JSON.stringify({ extendsNodeId });

/** The `extendsNodeId` a committed node's `extra` column names, if any. */
export function extendsOf(extra: string): string | undefined {
  try {
    const parsed = JSON.parse(extra) as { extendsNodeId?: unknown } | null;
    return typeof parsed?.extendsNodeId === 'string' ? parsed.extendsNodeId : undefined;
  } catch {
    return undefined;
  }
}

/** `CONFLICT`: a commit's node id is already another line's (or agent's) node. */
export function nodeIdTaken(nodeId: string): HedgehopError {
  return new HedgehopError('CONFLICT', `id: node id ${nodeId} already exists in this file, on another line`, {
    field: 'id',
  });
}

/** A line to insert during an import. */
export interface NewLine {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly createdAt: number;
  readonly extra: string;
}

/** What an import writes in one transaction. Nodes of a line are given oldest first. */
export interface ImportBatch {
  readonly meta: readonly { readonly key: string; readonly value: string; readonly overwrite: boolean }[];
  readonly lines: readonly {
    readonly line: NewLine;
    readonly nodes: readonly { readonly node: NewNode; readonly index: readonly NodeIndexText[] }[];
  }[];
}

/**
 * All SQL of radial memory: lines, nodes (positions derived from `line_seq`), the radial rows of
 * the recall index (written just after the commit: `IndexCatchUp`) and the radial keys of `meta`.
 */
export class RadialRepo {
  readonly #engine: Engine;
  readonly #index: IndexRepo;
  readonly #indexDeferred: () => void;

  /** `indexDeferred` is told of every node committed without its recall-index rows. */
  constructor(engine: Engine, index: IndexRepo, indexDeferred: () => void = () => undefined) {
    this.#engine = engine;
    this.#index = index;
    this.#indexDeferred = indexDeferred;
  }

  // ---- meta -------------------------------------------------------------------------------

  /** A radial meta value of one agent (`radial.<agentId>.<name>`). */
  getMeta(agentId: number, name: string): string | undefined {
    return this.#engine.read('radial meta', () => this.#readMeta(agentId, name));
  }

  /** Sets a radial meta value; with `overwrite` false an existing value is kept. Returns the stored value. */
  setMeta(agentId: number, name: string, value: string, overwrite: boolean): string {
    return this.#engine.write('radial meta', () => this.#writeMeta(agentId, name, value, overwrite));
  }

  #readMeta(agentId: number, name: string): string | undefined {
    return this.#engine
      .statement('SELECT value FROM meta WHERE key = ?')
      .pluck()
      .get(`radial.${agentId}.${name}`) as string | undefined;
  }

  #writeMeta(agentId: number, name: string, value: string, overwrite: boolean): string {
    const existing = this.#readMeta(agentId, name);
    if (existing !== undefined && !overwrite) return existing;
    this.#engine
      .statement(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      )
      .run(`radial.${agentId}.${name}`, value);
    return value;
  }

  // ---- lines ------------------------------------------------------------------------------

  /** Creates a line; `CONFLICT` when the agent already has one with that id. */
  createLine(agentId: number, line: NewLine): LineRecord {
    return this.#engine.write('createLine', () => {
      if (this.#line(agentId, line.id)) {
        throw new HedgehopError('CONFLICT', `lineId: line '${line.id}' already exists (use getLine)`, {
          field: 'lineId',
        });
      }
      this.#insertLine(agentId, line);
      return this.#line(agentId, line.id) as LineRecord;
    });
  }

  /** The line, created when absent; an existing line keeps its name and description. */
  getOrCreateLine(agentId: number, line: NewLine): { line: LineRecord; created: boolean } {
    return this.#engine.write('getOrCreateLine', () => {
      const existing = this.#line(agentId, line.id);
      if (existing) return { line: existing, created: false };
      this.#insertLine(agentId, line);
      return { line: this.#line(agentId, line.id) as LineRecord, created: true };
    });
  }

  #insertLine(agentId: number, line: NewLine): void {
    this.#engine
      .statement(
        `INSERT INTO lines (agent_id, id, name, description, created_at, ord, next_seq, extra)
         VALUES (?, ?, ?, ?, ?, (SELECT coalesce(max(ord), 0) + 1 FROM lines WHERE agent_id = ?), 1, ?)`,
      )
      .run(agentId, line.id, line.name, line.description, line.createdAt, agentId, line.extra);
  }

  getLine(agentId: number, lineId: string): LineRecord | undefined {
    return this.#engine.read('getLine', () => this.#line(agentId, lineId));
  }

  #line(agentId: number, lineId: string): LineRecord | undefined {
    const row = this.#engine
      .statement(`SELECT ${LINE_COLUMNS} FROM lines l WHERE l.agent_id = ? AND l.id = ?`)
      .get(agentId, lineId) as RawLine | undefined;
    return row ? toLine(row) : undefined;
  }

  /** Every line of the agent in creation order, each with its newest node. */
  listLines(agentId: number): LineOverview[] {
    return this.#engine.read('listLines', () =>
      (
        this.#engine
          .statement(
            `SELECT ${LINE_COLUMNS}, n.id AS n_id, n.task_label AS n_label, n.created_at AS n_created_at,
                    n.s_origin AS n_origin, n.s_brief AS n_brief, n.conversation_summary AS n_conversation
             FROM lines l LEFT JOIN nodes n
               ON n.agent_id = l.agent_id AND n.line_id = l.id AND n.line_seq = l.next_seq - 1
             WHERE l.agent_id = ? ORDER BY l.ord`,
          )
          .all(agentId) as RawOverview[]
      ).map(toOverview),
    );
  }

  /** Number of lines and nodes of the agent. */
  counts(agentId: number): { lines: number; nodes: number } {
    return this.#engine.read('radial counts', () => {
      const row = this.#engine
        .statement(
          'SELECT count(*) AS lines, coalesce(sum(next_seq - 1), 0) AS nodes FROM lines WHERE agent_id = ?',
        )
        .get(agentId) as { lines: number; nodes: number };
      return { lines: row.lines, nodes: row.nodes };
    });
  }

  // ---- nodes ------------------------------------------------------------------------------

  /**
   * Commits one node in one transaction: reads the line's tip, inserts the node at position 1
   * without touching older rows and advances the line; the node's recall-index rows are left
   * to `IndexCatchUp` (the store schedules it when told through `indexDeferred`).
   * Keyed by the node's id: when the line already holds a node with that id, returns it
   * (`existed`) and writes nothing. `NOT_FOUND` (field `lineId`) when the line does not exist;
   * `CONFLICT` when the id is another line's or agent's node.
   */
  insertNode(agentId: number, lineId: string, commit: NodeCommit): CommittedNode {
    return this.#engine.write('completeTask', () => {
      const line = this.#line(agentId, lineId);
      if (!line) throw lineNotFound(lineId);
      const found = this.#engine
        .statement('SELECT seq, agent_id, line_id, line_seq, extra FROM nodes WHERE id = ?')
        .get(commit.node.id) as
        | { seq: number; agent_id: number; line_id: string; line_seq: number; extra: string }
        | undefined;
      if (found) {
        if (found.agent_id !== agentId || found.line_id !== lineId) throw nodeIdTaken(commit.node.id);
        return {
          seq: found.seq,
          lineSeq: found.line_seq,
          extendsNodeId: extendsOf(found.extra),
          existed: true,
        };
      }
      const nextSeq = line.nodeCount + 1;
      const extendsNodeId = commit.extend ? this.#idAtSeq(agentId, lineId, nextSeq - 1) : undefined;
      const node: NewNode = { ...commit.node, extra: commitExtra(extendsNodeId) };
      // Before the first node committed without its index rows, every node has them (a no-op
      // lookup on every later commit).
      this.#engine
        .statement(
          `INSERT OR IGNORE INTO meta (key, value) SELECT ?, CAST(coalesce(max(seq), 0) AS TEXT) FROM nodes`,
        )
        .run(NODES_INDEXED_KEY);
      const seq = this.#insertNodeRow(agentId, lineId, nextSeq, node, undefined);
      this.#indexDeferred();
      return { seq, lineSeq: nextSeq, extendsNodeId, existed: false };
    });
  }

  #idAtSeq(agentId: number, lineId: string, lineSeq: number): string | undefined {
    if (lineSeq < 1) return undefined;
    return this.#engine
      .statement('SELECT id FROM nodes WHERE agent_id = ? AND line_id = ? AND line_seq = ?')
      .pluck()
      .get(agentId, lineId, lineSeq) as string | undefined;
  }

  #insertNodeRow(
    agentId: number,
    lineId: string,
    lineSeq: number,
    node: NewNode,
    index: readonly NodeIndexText[] | undefined,
  ): number {
    const info = this.#engine
      .statement(
        `INSERT INTO nodes (id, agent_id, line_id, line_seq, task_label, created_at, conversation_summary,
           file_changes, todos, env_snapshot, history, s_origin, s_brief, s_summary, s_detailed,
           summaries_state, summaries_tier, extra, full_bytes, full_context)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        node.id,
        agentId,
        lineId,
        lineSeq,
        node.taskLabel,
        node.createdAt,
        node.conversationSummary,
        node.fileChanges,
        node.todos,
        node.envSnapshot,
        node.history,
        node.summaries.origin,
        node.summaries.brief,
        node.summaries.summary,
        node.summaries.detailed,
        node.summariesState,
        node.summariesTier,
        node.extra,
        node.fullBytes,
        node.fullContext,
      );
    this.#engine
      .statement('UPDATE lines SET next_seq = ? WHERE agent_id = ? AND id = ?')
      .run(lineSeq + 1, agentId, lineId);
    const seq = Number(info.lastInsertRowid);
    if (index === undefined) return seq;
    // The node id is new (a fresh id, or one an import checked is not taken): no rows to replace.
    for (const doc of index) {
      if (doc.text.length === 0) continue;
      this.#index.upsert(
        {
          layer: 'radial',
          ref: node.id,
          part: doc.part,
          agentId,
          lineId,
          createdAt: node.createdAt,
          text: doc.text,
        },
        { fresh: true },
      );
    }
    // Indexed with its node: the mark moves past it when nothing before it is pending.
    this.#engine
      .statement(`UPDATE meta SET value = CAST(? AS TEXT) WHERE key = ? AND CAST(value AS INTEGER) = ? - 1`)
      .run(seq, NODES_INDEXED_KEY, seq);
    return seq;
  }

  /** The node at `position` of a line (1 = newest), or undefined. */
  nodeAt(agentId: number, lineId: string, position: number): NodeRecord | undefined {
    return this.#engine.read('getNode', () => {
      const row = this.#engine
        .statement(
          `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM}
           WHERE n.agent_id = :agent AND n.line_id = :line
             AND n.line_seq = (SELECT next_seq FROM lines WHERE agent_id = :agent AND id = :line) - :position`,
        )
        .get({ agent: agentId, line: lineId, position }) as RawNode | undefined;
      return row ? toNode(row) : undefined;
    });
  }

  /** A node of the agent by id, or undefined. */
  nodeById(agentId: number, nodeId: string): NodeRecord | undefined {
    return this.#engine.read('getNode', () => {
      const row = this.#engine
        .statement(`SELECT ${NODE_COLUMNS} FROM ${NODE_FROM} WHERE n.id = ? AND n.agent_id = ?`)
        .get(nodeId, agentId) as RawNode | undefined;
      return row ? toNode(row) : undefined;
    });
  }

  /**
   * The agent's radial recall-index rows matching the FTS5 expression `match` (built by
   * src/recall/query.ts, never user text), best BM25 first, at most `limit`: for navigation.
   * FTS5 picks its best rows first (`bm25()` ordered with a limit, a top-N sort, not a sort of
   * every match), and only those are joined with their provenance and filtered; when fewer than
   * `limit` of them are the agent's radial rows (a memory holding other agents or conversation
   * rows) and FTS5 had more, every match is read. FTS5 scores every match on each read (only the
   * sort is bounded), so a second read goes straight to all of them: a wider window would cost a
   * third scoring when it fell short too (a 1,000-character query of common words over a
   * conversation-heavy file cost three times its index lookup).
   */
  matchNodeRows(
    agentId: number,
    match: string,
    options: { readonly lineId: string | undefined; readonly limit: number },
  ): NodeRowMatch[] {
    const statement = this.#engine.statement(
      `SELECT d.ref, d.part, -f.score AS bm25
       FROM (SELECT rowid, bm25(search_fts) AS score FROM search_fts WHERE search_fts MATCH :match
             ORDER BY score LIMIT :window) f
       CROSS JOIN search_docs d ON d.rowid = f.rowid
       WHERE d.layer = 'radial' AND d.agent_id = :agent AND (:line IS NULL OR d.line_id = :line)
       ORDER BY f.score LIMIT :limit`,
    );
    const matched = this.#engine.statement(
      'SELECT count(*) FROM (SELECT rowid FROM search_fts WHERE search_fts MATCH :match LIMIT :window)',
    );
    return this.#engine.read('navigate', () => {
      const limit = Math.max(1, Math.floor(options.limit));
      const read = (window: number): NodeRowMatch[] =>
        statement.all({
          match,
          window,
          agent: agentId,
          line: options.lineId ?? null,
          limit,
        }) as NodeRowMatch[];
      const window = limit * 2;
      const rows = read(window);
      if (rows.length >= limit) return rows;
      // Fewer than asked for: final only when FTS5 has no more matches beyond the window.
      if ((matched.pluck().get({ match, window }) as number) < window) return rows;
      return read(-1);
    });
  }

  /** Nodes of the agent by id (ids not found are skipped), in no particular order. */
  nodesByIds(agentId: number, nodeIds: readonly string[]): NodeRecord[] {
    if (nodeIds.length === 0) return [];
    return this.#engine.read('getNode', () =>
      (
        this.#engine
          .statement(
            // `+n.agent_id` keeps SQLite on the id index (the agent prefix would scan every node).
            `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM}
             WHERE n.id IN (SELECT value FROM json_each(?)) AND +n.agent_id = ?`,
          )
          .all(JSON.stringify(nodeIds), agentId) as RawNode[]
      ).map(toNode),
    );
  }

  /**
   * Nodes of a line newest first, starting below `beforeLineSeq` (exclusive; omit to start at the
   * newest), at most `limit`. Keyed on `line_seq`, so paging is stable while others commit.
   */
  lineNodes(
    agentId: number,
    lineId: string,
    options: { beforeLineSeq?: number; limit: number },
  ): NodeRecord[] {
    return this.#engine.read('line nodes', () =>
      (
        this.#engine
          .statement(
            `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM}
             WHERE n.agent_id = ? AND n.line_id = ? AND n.line_seq < ?
             ORDER BY n.line_seq DESC LIMIT ?`,
          )
          .all(agentId, lineId, options.beforeLineSeq ?? Number.MAX_SAFE_INTEGER, options.limit) as RawNode[]
      ).map(toNode),
    );
  }

  /** The verbatim full context of a node, or undefined when the node is not the agent's. */
  fullContext(agentId: number, nodeId: string): string | undefined {
    return this.#engine.read('loadFullState', () => this.#fullContext(agentId, nodeId));
  }

  #fullContext(agentId: number, nodeId: string): string | undefined {
    return this.#engine
      .statement('SELECT full_context FROM nodes WHERE id = ? AND agent_id = ?')
      .pluck()
      .get(nodeId, agentId) as string | undefined;
  }

  // ---- pending summaries ----------------------------------------------------------------

  /** Nodes whose summaries are pending, oldest first, with their full context. */
  pendingNodes(agentId: number, limit: number): { node: NodeRecord; fullContext: string }[] {
    return this.#engine.read('pending summaries', () => {
      const rows = this.#engine
        .statement(
          `SELECT ${NODE_COLUMNS} FROM ${NODE_FROM}
           WHERE n.agent_id = ? AND n.summaries_state = 'pending' ORDER BY n.seq LIMIT ?`,
        )
        .all(agentId, limit) as RawNode[];
      return rows.map((row) => ({
        node: toNode(row),
        fullContext: this.#fullContext(agentId, row.id) ?? '',
      }));
    });
  }

  /** Number of nodes of the agent whose summaries are pending. */
  pendingCount(agentId: number): number {
    return this.#engine.read(
      'pending summaries',
      () =>
        this.#engine
          .statement("SELECT count(*) FROM nodes WHERE agent_id = ? AND summaries_state = 'pending'")
          .pluck()
          .get(agentId) as number,
    );
  }

  /**
   * Stores computed summaries of a node that is still pending (a node filled meanwhile by
   * another process is left alone) and refreshes its `summary` index row. Returns false when
   * there was nothing to do.
   */
  fillSummaries(
    agentId: number,
    nodeId: string,
    summaries: SummaryColumns,
    state: 'ready' | 'pending',
    tier: number,
    summaryIndexText: string | undefined,
  ): boolean {
    return this.#engine.write('fillPendingSummaries', () => {
      const row = this.#engine
        .statement(
          `SELECT n.line_id, n.created_at FROM nodes n
           WHERE n.id = ? AND n.agent_id = ? AND n.summaries_state = 'pending'`,
        )
        .get(nodeId, agentId) as { line_id: string; created_at: number } | undefined;
      if (!row) return false;
      this.#engine
        .statement(
          `UPDATE nodes SET s_origin = ?, s_brief = ?, s_summary = ?, s_detailed = ?, summaries_state = ?,
             summaries_tier = ? WHERE id = ?`,
        )
        .run(summaries.origin, summaries.brief, summaries.summary, summaries.detailed, state, tier, nodeId);
      if (summaryIndexText !== undefined && summaryIndexText.length > 0) {
        this.#index.upsert({
          layer: 'radial',
          ref: nodeId,
          part: 'summary',
          agentId,
          lineId: row.line_id,
          createdAt: row.created_at,
          text: summaryIndexText,
        });
      }
      return true;
    });
  }

  // ---- import / export -------------------------------------------------------------------

  /**
   * Writes a whole import in one transaction. `CONFLICT` (nothing written) when a line id is
   * already used by the agent or a node id anywhere in the file.
   */
  importBatch(agentId: number, batch: ImportBatch): { lines: number; nodes: number } {
    return this.#engine.write('import', () => {
      this.#assertNoImportConflict(agentId, batch);
      for (const entry of batch.meta) this.#writeMeta(agentId, entry.key, entry.value, entry.overwrite);
      let nodes = 0;
      for (const { line, nodes: lineNodes } of batch.lines) {
        this.#insertLine(agentId, line);
        lineNodes.forEach(({ node, index }, i) => this.#insertNodeRow(agentId, line.id, i + 1, node, index));
        nodes += lineNodes.length;
      }
      return { lines: batch.lines.length, nodes };
    });
  }

  #assertNoImportConflict(agentId: number, batch: ImportBatch): void {
    const lineIds = batch.lines.map((entry) => entry.line.id);
    const takenLine = this.#engine
      .statement('SELECT id FROM lines WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?)) LIMIT 1')
      .pluck()
      .get(agentId, JSON.stringify(lineIds)) as string | undefined;
    if (takenLine !== undefined) {
      throw new HedgehopError(
        'CONFLICT',
        `lines.${takenLine}: this agent already has a line '${takenLine}'`,
        {
          field: `lines.${takenLine}`,
        },
      );
    }
    const nodeIds = batch.lines.flatMap((entry) => entry.nodes.map((n) => n.node.id));
    const takenNode = this.#engine
      .statement('SELECT id FROM nodes WHERE id IN (SELECT value FROM json_each(?)) LIMIT 1')
      .pluck()
      .get(JSON.stringify(nodeIds)) as string | undefined;
    if (takenNode !== undefined) {
      throw new HedgehopError('CONFLICT', `node id ${takenNode} already exists in this file`, {
        field: 'nodes.id',
      });
    }
  }

  /**
   * Every line of the agent with its nodes newest first, each with its full context, read in one
   * snapshot (for export).
   */
  snapshot(agentId: number): { line: LineRecord; nodes: { node: NodeRecord; fullContext: string }[] }[] {
    return this.#engine.read('export', () => {
      const lines = (
        this.#engine
          .statement(`SELECT ${LINE_COLUMNS} FROM lines l WHERE l.agent_id = ? ORDER BY l.ord`)
          .all(agentId) as RawLine[]
      ).map(toLine);
      return lines.map((line) => ({
        line,
        nodes: (
          this.#engine
            .statement(
              `SELECT ${NODE_COLUMNS}, n.full_context FROM ${NODE_FROM}
               WHERE n.agent_id = ? AND n.line_id = ? ORDER BY n.line_seq DESC`,
            )
            .all(agentId, line.id) as (RawNode & { full_context: string })[]
        ).map((row) => ({ node: toNode(row), fullContext: row.full_context })),
      }));
    });
  }
}

function lineNotFound(lineId: string): HedgehopError {
  return new HedgehopError('NOT_FOUND', `lineId: no line '${lineId}'`, {
    field: 'lineId',
    remedy: 'create-line',
  });
}
