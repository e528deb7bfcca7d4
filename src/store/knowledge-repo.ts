import { HedgehopError, notFound } from '../core/errors.js';
import type {
  KnowledgeDeleteReport,
  KnowledgeEdge,
  KnowledgeEdgeKind,
  KnowledgeEdgesDeleteReport,
  KnowledgeGraphInfo,
  KnowledgeNode,
  KnowledgeNodesDeleteReport,
  KnowledgeObservationEdit,
  KnowledgeObservationsAdded,
  KnowledgeObservationsDeleteReport,
} from '../core/model/knowledge.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import { knowledgeIndexText } from '../core/index-text.js';
import {
  EDGE_COLUMNS,
  edgeFromSeqArray,
  GRAPH_COLUMNS,
  NODE_COLUMNS,
  nodeFromArray,
  sourceRefJson,
  toEdge,
  toGraph,
  toNode,
  type RawEdge,
  type RawGraph,
  type RawNode,
  type RawNodeArray,
  type RawSeqEdgeArray,
} from './knowledge-rows.js';

import type { KnowledgeNodeFields } from './knowledge-rows.js';
import {
  asciiNeedle,
  KNOWLEDGE_TEXT_TABLE,
  knowledgeTextColumns,
  knowledgeTextQuery,
  nodeHoldsAt,
  type NeedlePlace,
} from './knowledge-search-text.js';

export type { KnowledgeNodeFields };

/**
 * One node of an import chunk. `resolve` decides, from the stored node (if any), what to
 * write: new fields, or `undefined` to leave the node as it is.
 */
export interface KnowledgeNodeWrite {
  readonly id: string;
  readonly title: string;
  readonly resolve: (existing: KnowledgeNode | undefined) => KnowledgeNodeFields | undefined;
}

/** One edge of an import chunk; members are canonical node ids. `ref` names it in errors. */
export interface KnowledgeEdgeWrite {
  readonly id: string;
  readonly kind: KnowledgeEdgeKind;
  readonly label: string;
  readonly directed: boolean;
  readonly members: readonly string[];
  readonly ref: string;
}

/** One transaction's worth of an import. */
export interface KnowledgeImportChunk {
  readonly graphId: string;
  readonly label: string;
  /** When false, a missing graph is an error (it was deleted while the import ran). */
  readonly createGraph: boolean;
  readonly now: number;
  readonly nodes: readonly KnowledgeNodeWrite[];
  readonly edges: readonly KnowledgeEdgeWrite[];
}

/** What one chunk wrote (filled in as the chunk is written). */
export interface KnowledgeChunkResult {
  readonly graphCreated: boolean;
  readonly created: string[];
  readonly updated: string[];
  skipped: number;
  /** Ids of the edges created. */
  readonly createdEdges: string[];
  edgesExisting: number;
  readonly errors: string[];
}

/** Filters of {@link KnowledgeRepo.scanNodes}; each given one must hold. */
export interface KnowledgeNodeFilter {
  readonly graphId?: string | undefined;
  readonly type?: string | undefined;
  readonly ids?: readonly string[] | undefined;
  readonly titles?: readonly string[] | undefined;
  /**
   * A lower-cased needle: keeps the rows whose text (title, type, content, a keyword, an
   * observation), lower-cased by JavaScript, holds it at {@link KnowledgeNodeFilter.textPlace}
   * (exactly what {@link nodeHoldsAt} accepts). Read through the trigram index `kg_node_text`
   * when the needle has at least three characters; shorter ones are pre-filtered in SQL
   * (printable ASCII) or not at all, then tested in JavaScript.
   */
  readonly textContains?: string | undefined;
  /** Where the needle must be (default `anywhere`). */
  readonly textPlace?: NeedlePlace | undefined;
}

// A node's searchable text in SQL (fields joined by newlines; lists as their JSON text).
const NODE_TEXT =
  '(n.title || char(10) || n.type || char(10) || n.content || char(10) || n.keywords || char(10) || n.observations)';

function isForeignKeyFailure(error: unknown): boolean {
  if (!HedgehopError.isInstance(error) || error.code !== 'CONFLICT') return false;
  const cause = error.cause as { code?: unknown } | undefined;
  return cause?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** SQLite binds at most this many values per statement; id lists are passed as JSON instead. */
const ID_BATCH = 5000;

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Knowledge graphs: graphs, nodes, relation edges and their membership, plus the nodes' rows
 * in the recall index (written in the same transactions). File-wide: no agent column.
 */
export class KnowledgeRepo {
  readonly #engine: Engine;
  readonly #index: IndexRepo;

  constructor(engine: Engine, index: IndexRepo) {
    this.#engine = engine;
    this.#index = index;
  }

  // ---- reads -------------------------------------------------------------------------------

  /** One graph with its counts. */
  graph(graphId: string): KnowledgeGraphInfo | undefined {
    const row = this.#engine
      .statement(`SELECT ${GRAPH_COLUMNS} FROM kg_graphs g WHERE g.id = ?`)
      .get(graphId) as RawGraph | undefined;
    return row ? toGraph(row) : undefined;
  }

  /** The graph currently labelled `label`. */
  graphByLabel(label: string): KnowledgeGraphInfo | undefined {
    const row = this.#engine
      .statement(`SELECT ${GRAPH_COLUMNS} FROM kg_graphs g WHERE g.label = ?`)
      .get(label) as RawGraph | undefined;
    return row ? toGraph(row) : undefined;
  }

  /** The id of the graph labelled `label` (no counts: cheaper than {@link KnowledgeRepo.graphByLabel}). */
  graphIdByLabel(label: string): string | undefined {
    return this.#engine.statement('SELECT id FROM kg_graphs WHERE label = ?').pluck().get(label) as
      | string
      | undefined;
  }

  /** True when some graph holds this id. */
  graphIdTaken(graphId: string): boolean {
    return this.#engine.statement('SELECT 1 FROM kg_graphs WHERE id = ?').get(graphId) !== undefined;
  }

  /** Every graph, oldest first. */
  listGraphs(): KnowledgeGraphInfo[] {
    return (
      this.#engine
        .statement(`SELECT ${GRAPH_COLUMNS} FROM kg_graphs g ORDER BY g.created_at, g.id`)
        .all() as RawGraph[]
    ).map(toGraph);
  }

  /** A graph's nodes in insertion order. */
  nodesOfGraph(graphId: string): KnowledgeNode[] {
    // Rows as arrays, as scanNodes reads them: its statement for a graph alone has this same
    // text, so it is the same cached statement.
    return (
      this.#engine
        .statement(`SELECT ${NODE_COLUMNS} FROM kg_nodes n WHERE n.graph_id = ? ORDER BY n.seq`)
        .raw(true)
        .all(graphId) as RawNodeArray[]
    ).map(nodeFromArray);
  }

  /** A graph's edges in insertion order. */
  edgesOfGraph(graphId: string): KnowledgeEdge[] {
    return (
      this.#engine
        .statement(`SELECT ${EDGE_COLUMNS} FROM kg_edges e WHERE e.graph_id = ? ORDER BY e.seq`)
        .all(graphId) as RawEdge[]
    ).map(toEdge);
  }

  /** Which of `titles` name nodes of the graph. */
  existingTitles(graphId: string, titles: readonly string[]): Set<string> {
    const found = new Set<string>();
    const statement = this.#engine
      .statement(
        'SELECT title FROM kg_nodes WHERE graph_id = ? AND title IN (SELECT value FROM json_each(?))',
      )
      .pluck();
    for (const part of chunked(titles, ID_BATCH)) {
      for (const title of statement.all(graphId, JSON.stringify(part)) as string[]) found.add(title);
    }
    return found;
  }

  /** The nodes with these ids (those that exist), in insertion order. */
  nodesByIds(ids: readonly string[]): KnowledgeNode[] {
    const rows: (RawNode & { seq: number })[] = [];
    const statement = this.#engine.statement(
      `SELECT n.seq, ${NODE_COLUMNS} FROM kg_nodes n WHERE n.id IN (SELECT value FROM json_each(?))`,
    );
    for (const part of chunked(ids, ID_BATCH)) {
      rows.push(...(statement.all(JSON.stringify(part)) as (RawNode & { seq: number })[]));
    }
    return rows.sort((a, b) => a.seq - b.seq).map(toNode);
  }

  /**
   * The titles of the nodes with these ids (those that exist), by id: what naming an edge's
   * members needs, without reading and parsing whole nodes.
   */
  nodeTitles(ids: readonly string[]): Map<string, string> {
    const titles = new Map<string, string>();
    const statement = this.#engine
      .statement('SELECT n.id, n.title FROM json_each(?) j CROSS JOIN kg_nodes n ON n.id = j.value')
      .raw();
    for (const part of chunked(ids, ID_BATCH)) {
      for (const [id, title] of statement.all(JSON.stringify(part)) as [string, string][])
        titles.set(id, title);
    }
    return titles;
  }

  /**
   * Nodes matching `filter`, in insertion order, for which `accept` holds; stops after `limit`.
   * The SQL is built from fixed fragments only (values are bound).
   */
  scanNodes(
    filter: KnowledgeNodeFilter,
    accept: (node: KnowledgeNode) => boolean,
    limit: number,
  ): KnowledgeNode[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.graphId !== undefined) {
      where.push('n.graph_id = ?');
      params.push(filter.graphId);
    }
    if (filter.type !== undefined) {
      where.push('n.type = ?');
      params.push(filter.type);
    }
    if (filter.ids !== undefined) {
      where.push('n.id IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(filter.ids));
    }
    if (filter.titles !== undefined) {
      where.push('n.title IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(filter.titles));
    }
    const needle = filter.textContains;
    const place = filter.textPlace ?? 'anywhere';
    const indexed = needle === undefined ? undefined : knowledgeTextQuery(needle, place);
    if (indexed !== undefined) {
      where.push(`${KNOWLEDGE_TEXT_TABLE} MATCH ?`);
      params.push(indexed);
    } else if (needle !== undefined && asciiNeedle(needle) !== undefined) {
      // U+0130 lower-cases to "i" + a combining dot and U+212A to "k": a row holding one can only
      // match a needle that holds that letter, so the (costly) extra scans are skipped otherwise.
      const alternatives = [`instr(lower(${NODE_TEXT}), ?) > 0`];
      if (needle.includes('i')) alternatives.push(`instr(${NODE_TEXT}, char(304)) > 0`);
      if (needle.includes('k')) alternatives.push(`instr(${NODE_TEXT}, char(8490)) > 0`);
      where.push(`(${alternatives.join(' OR ')})`);
      params.push(needle);
    }
    // With the trigram index the matches drive the read (FTS5 hands them over in rowid order, so
    // a limited scan stops early); otherwise the nodes are read in order and filtered.
    const from =
      indexed === undefined
        ? 'kg_nodes n'
        : `${KNOWLEDGE_TEXT_TABLE} CROSS JOIN kg_nodes n ON n.seq = ${KNOWLEDGE_TEXT_TABLE}.rowid`;
    const order = indexed === undefined ? 'n.seq' : `${KNOWLEDGE_TEXT_TABLE}.rowid`;
    const sql = `SELECT ${NODE_COLUMNS} FROM ${from} ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order}`;
    const out: KnowledgeNode[] = [];
    if (limit <= 0) return out;
    const rows = this.#engine
      .statement(sql)
      .raw(true)
      .iterate(...params) as IterableIterator<RawNodeArray>;
    for (const row of rows) {
      const node = nodeFromArray(row);
      if (needle !== undefined && !nodeHoldsAt(node, needle, place)) continue;
      if (!accept(node)) continue;
      out.push(node);
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * Edges with at least one member among `nodeIds`, optionally only of `kinds`, each with its
   * insertion rank (`seq`) for ordering results.
   */
  edgesTouching(
    nodeIds: readonly string[],
    kinds: readonly KnowledgeEdgeKind[] | undefined,
  ): { edge: KnowledgeEdge; seq: number }[] {
    const kindSql = kinds === undefined ? '' : ' AND e.kind IN (SELECT value FROM json_each(?))';
    const statement = this.#engine
      .statement(
        `SELECT e.seq, ${EDGE_COLUMNS} FROM json_each(?) j
         CROSS JOIN kg_edge_members m ON m.node_id = j.value
         CROSS JOIN kg_edges e ON e.id = m.edge_id
       WHERE 1${kindSql}`,
      )
      .raw();
    // An edge is read once per member among `nodeIds`; it is built once.
    const seen = new Set<number>();
    const out: { edge: KnowledgeEdge; seq: number }[] = [];
    for (const part of chunked(nodeIds, ID_BATCH)) {
      const params: unknown[] = [JSON.stringify(part)];
      if (kinds !== undefined) params.push(JSON.stringify(kinds));
      for (const row of statement.all(...params) as RawSeqEdgeArray[]) {
        const seq = row[0];
        if (seen.has(seq)) continue;
        seen.add(seq);
        out.push({ edge: edgeFromSeqArray(row), seq });
      }
    }
    return out;
  }

  /** Edges holding both nodes (in any position). */
  edgesBetween(a: string, b: string): KnowledgeEdge[] {
    return (
      this.#engine
        .statement(
          `SELECT ${EDGE_COLUMNS} FROM kg_edges e
           WHERE e.id IN (SELECT edge_id FROM kg_edge_members WHERE node_id = ?)
             AND e.id IN (SELECT edge_id FROM kg_edge_members WHERE node_id = ?)
           ORDER BY e.seq`,
        )
        .all(a, b) as RawEdge[]
    ).map(toEdge);
  }

  // ---- writes (each one transaction) --------------------------------------------------------

  /**
   * Writes one chunk of an import in one transaction. Edge members are checked by the foreign
   * keys; if one is missing (deleted by another writer since validation), the chunk is rolled
   * back and redone checking each edge, so the bad edges are reported and the rest written.
   */
  importChunk(chunk: KnowledgeImportChunk): KnowledgeChunkResult {
    try {
      return this.#engine.write('knowledge import', () => this.#writeChunk(chunk, false));
    } catch (error) {
      if (!isForeignKeyFailure(error)) throw error;
      return this.#engine.write('knowledge import', () => this.#writeChunk(chunk, true));
    }
  }

  #writeChunk(chunk: KnowledgeImportChunk, checkMembers: boolean): KnowledgeChunkResult {
    const graphCreated = this.#ensureGraph(chunk);
    const result: KnowledgeChunkResult = {
      graphCreated,
      created: [],
      updated: [],
      skipped: 0,
      createdEdges: [],
      edgesExisting: 0,
      errors: [],
    };
    for (const node of chunk.nodes) this.#writeNode(chunk, node, result);
    for (const edge of chunk.edges) this.#writeEdge(chunk, edge, checkMembers, result);
    if (
      result.created.length > 0 ||
      result.updated.length > 0 ||
      result.createdEdges.length > 0 ||
      graphCreated
    ) {
      this.#touchGraph(chunk.graphId, chunk.now);
    }
    return result;
  }

  #ensureGraph(chunk: KnowledgeImportChunk): boolean {
    const row = this.#engine.statement('SELECT label FROM kg_graphs WHERE id = ?').get(chunk.graphId) as
      | { label: string }
      | undefined;
    if (row) return false;
    if (!chunk.createGraph) {
      throw new HedgehopError(
        'CONFLICT',
        `knowledge graph ${chunk.graphId} was deleted while the import ran`,
      );
    }
    const holder = this.graphByLabel(chunk.label);
    if (holder) {
      throw new HedgehopError(
        'CONFLICT',
        `knowledge graph label '${chunk.label}' was taken by graph ${holder.id} while the import ran`,
      );
    }
    this.#engine
      .statement('INSERT INTO kg_graphs (id, label, created_at, updated_at) VALUES (?, ?, ?, ?)')
      .run(chunk.graphId, chunk.label, chunk.now, chunk.now);
    return true;
  }

  #touchGraph(graphId: string, now: number): void {
    this.#engine
      .statement('UPDATE kg_graphs SET updated_at = max(updated_at, ?) WHERE id = ?')
      .run(now, graphId);
  }

  #node(id: string): KnowledgeNode | undefined {
    const row = this.#engine.statement(`SELECT ${NODE_COLUMNS} FROM kg_nodes n WHERE n.id = ?`).get(id) as
      | RawNode
      | undefined;
    return row ? toNode(row) : undefined;
  }

  #writeNode(chunk: KnowledgeImportChunk, node: KnowledgeNodeWrite, result: KnowledgeChunkResult): void {
    const existing = this.#node(node.id);
    const fields = node.resolve(existing);
    if (fields === undefined) {
      if (existing) result.skipped++;
      return;
    }
    if (existing) {
      this.#updateNodeFields(existing, fields, chunk.now);
      result.updated.push(node.id);
      return;
    }
    const inserted = this.#engine
      .statement(
        `INSERT INTO kg_nodes (id, graph_id, title, type, content, keywords, observations, source_ref, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        node.id,
        chunk.graphId,
        node.title,
        fields.type,
        fields.content,
        JSON.stringify(fields.keywords),
        JSON.stringify(fields.observations),
        sourceRefJson(fields.sourceRef),
        chunk.now,
        chunk.now,
      );
    this.#indexNode(Number(inserted.lastInsertRowid), node.id, node.title, fields, chunk.now, false);
    result.created.push(node.id);
  }

  #updateNodeFields(existing: KnowledgeNode, fields: KnowledgeNodeFields, now: number): void {
    // Not `UPDATE … RETURNING seq`: that statement opens a statement savepoint too (see #indexText).
    this.#engine
      .statement(
        `UPDATE kg_nodes SET type = ?, content = ?, keywords = ?, observations = ?, source_ref = ?, updated_at = ?
         WHERE id = ?`,
      )
      .run(
        fields.type,
        fields.content,
        JSON.stringify(fields.keywords),
        JSON.stringify(fields.observations),
        sourceRefJson(fields.sourceRef),
        now,
        existing.id,
      );
    const seq = this.#seqOf(existing.id);
    if (seq !== undefined)
      this.#indexNode(seq, existing.id, existing.title, fields, existing.createdAt, true);
  }

  /** The node's insertion rank, which is also its rowid in the substring index. */
  #seqOf(id: string): number | undefined {
    return this.#engine.statement('SELECT seq FROM kg_nodes WHERE id = ?').pluck().get(id) as
      | number
      | undefined;
  }

  /**
   * Writes the node's row of the substring index, replacing the one it had. The rowid is bound
   * as a value, never read by an `INSERT … SELECT`: such a statement opens a statement
   * savepoint, and FTS5 writes every row it holds in memory for any of the transaction's FTS5
   * tables to a new segment at each savepoint, so a chunk of ten nodes left ten one-row
   * segments in both indexes, and every later query looked each term up in every segment.
   */
  #indexText(seq: number, title: string, fields: KnowledgeNodeFields, replacing: boolean): void {
    if (replacing) this.#unindexSeq(seq);
    this.#engine
      .statement(
        `INSERT INTO ${KNOWLEDGE_TEXT_TABLE} (rowid, title, type, content, keywords, observations)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(seq, ...knowledgeTextColumns(title, fields));
  }

  /** Removes the node's row of the substring index (before the node row goes). */
  #unindexText(id: string): void {
    const seq = this.#seqOf(id);
    if (seq !== undefined) this.#unindexSeq(seq);
  }

  #unindexSeq(seq: number): void {
    this.#engine.statement(`DELETE FROM ${KNOWLEDGE_TEXT_TABLE} WHERE rowid = ?`).run(seq);
  }

  #indexNode(
    seq: number,
    id: string,
    title: string,
    fields: KnowledgeNodeFields,
    createdAt: number,
    replacing: boolean,
  ): void {
    this.#indexText(seq, title, fields, replacing);
    this.#index.upsert({
      layer: 'knowledge',
      ref: id,
      agentId: null,
      createdAt,
      text: knowledgeIndexText(title, fields),
    });
  }

  #writeEdge(
    chunk: KnowledgeImportChunk,
    edge: KnowledgeEdgeWrite,
    checkMembers: boolean,
    result: KnowledgeChunkResult,
  ): void {
    if (checkMembers) {
      const missing = edge.members.filter((id) => !this.#nodeInGraph(id, chunk.graphId));
      if (missing.length > 0) {
        result.errors.push(
          `${edge.ref}: member node ${missing.join(', ')} no longer exists; edge not written`,
        );
        return;
      }
    }
    const info = this.#engine
      .statement(
        `INSERT INTO kg_edges (id, graph_id, kind, label, directed, members, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      )
      .run(
        edge.id,
        chunk.graphId,
        edge.kind,
        edge.label,
        edge.directed ? 1 : 0,
        JSON.stringify(edge.members),
        chunk.now,
      );
    if (info.changes === 0) {
      result.edgesExisting++;
      return;
    }
    const member = this.#engine.statement(
      'INSERT INTO kg_edge_members (node_id, edge_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
    );
    for (const nodeId of edge.members) member.run(nodeId, edge.id);
    result.createdEdges.push(edge.id);
  }

  #nodeInGraph(nodeId: string, graphId: string): boolean {
    return (
      this.#engine.statement('SELECT 1 FROM kg_nodes WHERE id = ? AND graph_id = ?').get(nodeId, graphId) !==
      undefined
    );
  }

  /**
   * Renames a graph. Same label: nothing is written. Throws `NOT_FOUND` for an unknown graph and
   * `CONFLICT` when another graph holds the label.
   */
  relabel(graphId: string, label: string, now: number): KnowledgeGraphInfo {
    return this.#engine.write('knowledge update', () => {
      const current = this.graph(graphId);
      if (!current) throw notFound(`no knowledge graph with id ${graphId}`);
      if (current.label === label) return current;
      const holder = this.graphByLabel(label);
      if (holder) {
        throw new HedgehopError(
          'CONFLICT',
          `label: knowledge graph ${holder.id} is already labelled '${label}'`,
        );
      }
      this.#engine
        .statement('UPDATE kg_graphs SET label = ?, updated_at = max(updated_at, ?) WHERE id = ?')
        .run(label, now, graphId);
      return this.graph(graphId) as KnowledgeGraphInfo;
    });
  }

  /**
   * Deletes a graph with its nodes, edges and index rows, and clears the anchor of every scene
   * (of any agent) that named it. Throws `NOT_FOUND` for an unknown graph.
   */
  deleteGraph(graphId: string): KnowledgeDeleteReport {
    return this.#engine.write('knowledge delete', () => {
      const current = this.graph(graphId);
      if (!current) throw notFound(`no knowledge graph with id ${graphId}`);
      this.#engine
        .statement(
          'DELETE FROM kg_edge_members WHERE edge_id IN (SELECT id FROM kg_edges WHERE graph_id = ?)',
        )
        .run(graphId);
      const edges = this.#engine.statement('DELETE FROM kg_edges WHERE graph_id = ?').run(graphId).changes;
      const nodeIds = this.#engine
        .statement('SELECT id FROM kg_nodes WHERE graph_id = ?')
        .pluck()
        .all(graphId) as string[];
      for (const id of nodeIds) this.#index.remove('knowledge', id);
      this.#engine
        .statement(
          `DELETE FROM ${KNOWLEDGE_TEXT_TABLE} WHERE rowid IN (SELECT seq FROM kg_nodes WHERE graph_id = ?)`,
        )
        .run(graphId);
      const nodes = this.#engine.statement('DELETE FROM kg_nodes WHERE graph_id = ?').run(graphId).changes;
      const scenes = this.#engine
        .statement('UPDATE scenes SET knowledge_id = NULL WHERE knowledge_id = ?')
        .run(graphId).changes;
      this.#engine.statement('DELETE FROM kg_graphs WHERE id = ?').run(graphId);
      return {
        graphId,
        label: current.label,
        nodesDeleted: nodes,
        edgesDeleted: edges,
        scenesUnanchored: scenes,
      };
    });
  }

  /** Deletes nodes, every edge they belong to, and their index rows. */
  deleteNodes(nodeIds: readonly string[], now: number): KnowledgeNodesDeleteReport {
    return this.#engine.write('knowledge delete nodes', () => {
      const deleted: string[] = [];
      const missing: string[] = [];
      let edgesDeleted = 0;
      for (const id of new Set(nodeIds)) {
        const node = this.#node(id);
        if (!node) {
          missing.push(id);
          continue;
        }
        const edgeIds = this.#engine
          .statement('SELECT edge_id FROM kg_edge_members WHERE node_id = ?')
          .pluck()
          .all(id) as string[];
        for (const edgeId of edgeIds) edgesDeleted += this.#deleteEdge(edgeId);
        this.#index.remove('knowledge', id);
        this.#unindexText(id);
        this.#engine.statement('DELETE FROM kg_nodes WHERE id = ?').run(id);
        this.#touchGraph(node.graphId, now);
        deleted.push(id);
      }
      return { deleted, notFound: missing, edgesDeleted };
    });
  }

  #deleteEdge(edgeId: string): number {
    this.#engine.statement('DELETE FROM kg_edge_members WHERE edge_id = ?').run(edgeId);
    return this.#engine.statement('DELETE FROM kg_edges WHERE id = ?').run(edgeId).changes;
  }

  /** Deletes edges by id. */
  deleteEdges(edgeIds: readonly string[], now: number): KnowledgeEdgesDeleteReport {
    return this.#engine.write('knowledge delete edges', () => {
      const deleted: string[] = [];
      const missing: string[] = [];
      for (const id of new Set(edgeIds)) {
        const graphId = this.#engine
          .statement('SELECT graph_id FROM kg_edges WHERE id = ?')
          .pluck()
          .get(id) as string | undefined;
        if (graphId === undefined) {
          missing.push(id);
          continue;
        }
        this.#deleteEdge(id);
        this.#touchGraph(graphId, now);
        deleted.push(id);
      }
      return { deleted, notFound: missing };
    });
  }

  /**
   * Appends observations a node does not hold yet. Every node must exist: otherwise nothing is
   * written and `NOT_FOUND` names the first missing one.
   */
  addObservations(edits: readonly KnowledgeObservationEdit[], now: number): KnowledgeObservationsAdded[] {
    return this.#engine.write('knowledge add observations', () => {
      const results: KnowledgeObservationsAdded[] = [];
      for (const edit of edits) {
        const node = this.#node(edit.nodeId);
        if (!node) throw notFound(`no knowledge node with id ${edit.nodeId}`);
        const held = new Set(node.observations);
        const added: string[] = [];
        for (const text of edit.observations) {
          if (held.has(text)) continue;
          held.add(text);
          added.push(text);
        }
        if (added.length > 0) this.#setObservations(node, [...node.observations, ...added], now);
        results.push({ nodeId: node.id, added });
      }
      return results;
    });
  }

  /** Removes the given observations from nodes; missing nodes are reported, not refused. */
  deleteObservations(
    edits: readonly KnowledgeObservationEdit[],
    now: number,
  ): KnowledgeObservationsDeleteReport {
    return this.#engine.write('knowledge delete observations', () => {
      let deleted = 0;
      const missing: string[] = [];
      for (const edit of edits) {
        const node = this.#node(edit.nodeId);
        if (!node) {
          missing.push(edit.nodeId);
          continue;
        }
        const drop = new Set(edit.observations);
        const kept = node.observations.filter((text) => !drop.has(text));
        if (kept.length === node.observations.length) continue;
        deleted += node.observations.length - kept.length;
        this.#setObservations(node, kept, now);
      }
      return { deleted, notFound: missing };
    });
  }

  #setObservations(node: KnowledgeNode, observations: readonly string[], now: number): void {
    this.#updateNodeFields(
      node,
      {
        type: node.type,
        content: node.content,
        keywords: node.keywords,
        observations,
        sourceRef: node.sourceRef,
      },
      now,
    );
    this.#touchGraph(node.graphId, now);
  }
}
