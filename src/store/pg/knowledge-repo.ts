import { HedgehopError, notFound } from '../../core/errors.js';
import { knowledgeIndexText } from '../../core/index-text.js';
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
} from '../../core/model/knowledge.js';
import type {
  KnowledgeChunkResult,
  KnowledgeEdgeWrite,
  KnowledgeImportChunk,
  KnowledgeNodeFields,
  KnowledgeNodeFilter,
  KnowledgeNodeWrite,
} from '../knowledge-repo.js';
import {
  EDGE_COLUMNS,
  GRAPH_COLUMNS,
  NODE_COLUMNS,
  sourceRefJson,
  toEdge,
  toGraph,
  toNode,
  type RawEdge,
  type RawGraph,
  type RawNode,
} from '../knowledge-rows.js';
import { asciiNeedle, nodeHoldsAt } from '../knowledge-search-text.js';
import type { IndexRepository, KnowledgeRepository } from '../seam.js';
import { first, int, sqlState, withSavepoint } from './pg-values.js';
import type { PgQuery } from './pg-query.js';

// A node's searchable text in SQL (fields joined by newlines; lists as their JSON text).
const NODE_TEXT =
  '(n.title || chr(10) || n.type || chr(10) || n.content || chr(10) || n.keywords || chr(10) || n.observations)';

/** Rows scanned per statement by {@link PgKnowledgeRepo.scanNodes}. */
const SCAN_PAGE = 500;

const graph = (row: RawGraph): KnowledgeGraphInfo =>
  toGraph({
    ...row,
    created_at: int(row.created_at),
    updated_at: int(row.updated_at),
    node_count: int(row.node_count),
    edge_count: int(row.edge_count),
  });

const node = (row: RawNode): KnowledgeNode =>
  toNode({ ...row, created_at: int(row.created_at), updated_at: int(row.updated_at) });

const edge = (row: RawEdge): KnowledgeEdge =>
  toEdge({ ...row, directed: int(row.directed), created_at: int(row.created_at) });

/**
 * Knowledge graphs on PostgreSQL (SQLite: src/store/knowledge-repo.ts), with the same calls and
 * results. Orders over text (graph ids, edge ids) use the "C" collation: byte order, as SQLite's
 * BINARY. `lower()` over the "C" collation folds ASCII only, as SQLite's does. A chunk whose
 * edge names a node deleted meanwhile fails on the foreign key under a savepoint and is redone
 * checking each edge, where SQLite rolls the whole chunk back and redoes it.
 */
/** How often a chunk is redone after losing a race to insert a node (each loss needs a new writer). */
const MAX_CHUNK_ATTEMPTS = 4;

export class PgKnowledgeRepo implements KnowledgeRepository {
  readonly #db: PgQuery;
  readonly #index: IndexRepository;

  constructor(db: PgQuery, index: IndexRepository) {
    this.#db = db;
    this.#index = index;
  }

  // ---- reads -------------------------------------------------------------------------------

  async graph(graphId: string): Promise<KnowledgeGraphInfo | undefined> {
    const row = await first<RawGraph>(this.#db, `SELECT ${GRAPH_COLUMNS} FROM kg_graphs g WHERE g.id = $1`, [
      graphId,
    ]);
    return row ? graph(row) : undefined;
  }

  async graphByLabel(label: string): Promise<KnowledgeGraphInfo | undefined> {
    const row = await first<RawGraph>(
      this.#db,
      `SELECT ${GRAPH_COLUMNS} FROM kg_graphs g WHERE g.label = $1`,
      [label],
    );
    return row ? graph(row) : undefined;
  }

  async graphIdByLabel(label: string): Promise<string | undefined> {
    return (await first<{ id: string }>(this.#db, 'SELECT id FROM kg_graphs WHERE label = $1', [label]))?.id;
  }

  async graphIdTaken(graphId: string): Promise<boolean> {
    return (await first(this.#db, 'SELECT 1 FROM kg_graphs WHERE id = $1', [graphId])) !== undefined;
  }

  async listGraphs(): Promise<KnowledgeGraphInfo[]> {
    const { rows } = await this.#db.query<RawGraph>(
      `SELECT ${GRAPH_COLUMNS} FROM kg_graphs g ORDER BY g.created_at, g.id COLLATE "C"`,
    );
    return rows.map(graph);
  }

  async nodesOfGraph(graphId: string): Promise<KnowledgeNode[]> {
    const { rows } = await this.#db.query<RawNode>(
      `SELECT ${NODE_COLUMNS} FROM kg_nodes n WHERE n.graph_id = $1 ORDER BY n.seq`,
      [graphId],
    );
    return rows.map(node);
  }

  async edgesOfGraph(graphId: string): Promise<KnowledgeEdge[]> {
    const { rows } = await this.#db.query<RawEdge>(
      `SELECT ${EDGE_COLUMNS} FROM kg_edges e WHERE e.graph_id = $1 ORDER BY e.seq`,
      [graphId],
    );
    return rows.map(edge);
  }

  async existingTitles(graphId: string, titles: readonly string[]): Promise<Set<string>> {
    const { rows } = await this.#db.query<{ title: string }>(
      'SELECT title FROM kg_nodes WHERE graph_id = $1 AND title = ANY($2::text[])',
      [graphId, [...titles]],
    );
    return new Set(rows.map((row) => row.title));
  }

  /** The titles of the nodes with these ids (those that exist), by id. */
  async nodeTitles(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.#db.query<{ id: string; title: string }>(
      'SELECT id, title FROM kg_nodes WHERE id = ANY($1::text[])',
      [[...ids]],
    );
    return new Map(rows.map((row) => [row.id, row.title]));
  }

  async nodesByIds(ids: readonly string[]): Promise<KnowledgeNode[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.#db.query<RawNode>(
      `SELECT ${NODE_COLUMNS} FROM kg_nodes n WHERE n.id = ANY($1::text[]) ORDER BY n.seq`,
      [[...ids]],
    );
    return rows.map(node);
  }

  /**
   * Nodes matching `filter`, in insertion order, for which `accept` holds; stops after `limit`.
   * Read a page at a time (keyed on `seq`), so a scan that stops early reads little.
   */
  async scanNodes(
    filter: KnowledgeNodeFilter,
    accept: (node: KnowledgeNode) => boolean,
    limit: number,
  ): Promise<KnowledgeNode[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    const bind = (value: unknown): string => {
      values.push(value);
      return `$${values.length}`;
    };
    if (filter.graphId !== undefined) where.push(`n.graph_id = ${bind(filter.graphId)}`);
    if (filter.type !== undefined) where.push(`n.type = ${bind(filter.type)}`);
    if (filter.ids !== undefined) where.push(`n.id = ANY(${bind([...filter.ids])}::text[])`);
    if (filter.titles !== undefined) where.push(`n.title = ANY(${bind([...filter.titles])}::text[])`);
    const needle = filter.textContains;
    const place = filter.textPlace ?? 'anywhere';
    const ascii = needle === undefined ? undefined : asciiNeedle(needle);
    if (ascii !== undefined) {
      // ASCII-only folding (what the trigram index kg_nodes_text_trgm holds), plus the two
      // characters whose JavaScript lower case is ASCII (each a partial index); then the exact
      // JavaScript test below, so the rows are SQLite's.
      const alternatives = [
        `lower(${NODE_TEXT} COLLATE "C") LIKE ${bind(`%${ascii.replace(/[%_]/g, '\\$&')}%`)}`,
      ];
      if (ascii.includes('i')) alternatives.push(`strpos(${NODE_TEXT}, chr(304)) > 0`);
      if (ascii.includes('k')) alternatives.push(`strpos(${NODE_TEXT}, chr(8490)) > 0`);
      where.push(`(${alternatives.join(' OR ')})`);
    }
    const out: KnowledgeNode[] = [];
    if (limit <= 0) return out;
    const after = values.length + 1;
    const sql = `SELECT n.seq, ${NODE_COLUMNS} FROM kg_nodes n WHERE ${[...where, `n.seq > $${after}`].join(' AND ')}
      ORDER BY n.seq LIMIT ${SCAN_PAGE}`;
    let last = 0;
    for (;;) {
      const { rows } = await this.#db.query<RawNode & { seq: unknown }>(sql, [...values, last]);
      for (const row of rows) {
        const found = node(row);
        if (needle !== undefined && !nodeHoldsAt(found, needle, place)) continue;
        if (!accept(found)) continue;
        out.push(found);
        if (out.length >= limit) return out;
      }
      if (rows.length < SCAN_PAGE) return out;
      last = int(rows.at(-1)?.seq);
    }
  }

  /**
   * Edges with at least one member among `nodeIds`, optionally only of `kinds`, each with its
   * insertion rank (`seq`), in the order SQLite reads them: by the given node, then edge id.
   */
  async edgesTouching(
    nodeIds: readonly string[],
    kinds: readonly KnowledgeEdgeKind[] | undefined,
  ): Promise<{ edge: KnowledgeEdge; seq: number }[]> {
    if (nodeIds.length === 0) return [];
    const { rows } = await this.#db.query<RawEdge & { seq: unknown }>(
      `SELECT ${EDGE_COLUMNS}, e.seq FROM unnest($1::text[]) WITH ORDINALITY AS j(id, i)
         JOIN kg_edge_members m ON m.node_id = j.id
         JOIN kg_edges e ON e.id = m.edge_id
       WHERE ($2::text[] IS NULL OR e.kind = ANY($2::text[]))
       ORDER BY j.i, m.edge_id COLLATE "C"`,
      [[...nodeIds], kinds === undefined ? null : [...kinds]],
    );
    const seen = new Set<string>();
    const out: { edge: KnowledgeEdge; seq: number }[] = [];
    for (const row of rows) {
      if (seen.has(row.id)) continue;
      seen.add(row.id);
      out.push({ edge: edge(row), seq: int(row.seq) });
    }
    return out;
  }

  async edgesBetween(a: string, b: string): Promise<KnowledgeEdge[]> {
    const { rows } = await this.#db.query<RawEdge>(
      `SELECT ${EDGE_COLUMNS} FROM kg_edges e
       WHERE e.id IN (SELECT edge_id FROM kg_edge_members WHERE node_id = $1)
         AND e.id IN (SELECT edge_id FROM kg_edge_members WHERE node_id = $2)
       ORDER BY e.seq`,
      [a, b],
    );
    return rows.map(edge);
  }

  // ---- writes (each inside the caller's write) --------------------------------------------

  /**
   * Writes one chunk of an import. Edge members are checked by the foreign keys; if one is
   * missing (deleted by another writer since validation), the chunk is rolled back to its
   * savepoint and redone checking each edge, so the bad edges are reported and the rest written.
   */
  async importChunk(chunk: KnowledgeImportChunk): Promise<KnowledgeChunkResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await withSavepoint(this.#db, () => this.#writeChunk(chunk, false));
      } catch (error) {
        // A node that another writer inserted after this chunk read it absent: our insert waited
        // for theirs to commit, then failed. Redone, the chunk finds the node and merges into it,
        // as it would behind SQLite's single writer.
        if (sqlState(error) === '23505' && attempt < MAX_CHUNK_ATTEMPTS) continue;
        if (sqlState(error) !== '23503') throw error;
        return this.#writeChunk(chunk, true);
      }
    }
  }

  async #writeChunk(chunk: KnowledgeImportChunk, checkMembers: boolean): Promise<KnowledgeChunkResult> {
    const graphCreated = await this.#ensureGraph(chunk);
    const result: KnowledgeChunkResult = {
      graphCreated,
      created: [],
      updated: [],
      skipped: 0,
      createdEdges: [],
      edgesExisting: 0,
      errors: [],
    };
    for (const one of chunk.nodes) await this.#writeNode(chunk, one, result);
    for (const one of chunk.edges) await this.#writeEdge(chunk, one, checkMembers, result);
    if (
      result.created.length > 0 ||
      result.updated.length > 0 ||
      result.createdEdges.length > 0 ||
      graphCreated
    ) {
      await this.#touchGraph(chunk.graphId, chunk.now);
    }
    return result;
  }

  async #ensureGraph(chunk: KnowledgeImportChunk): Promise<boolean> {
    const row = await first(this.#db, 'SELECT label FROM kg_graphs WHERE id = $1', [chunk.graphId]);
    if (row) return false;
    if (!chunk.createGraph) {
      throw new HedgehopError(
        'CONFLICT',
        `knowledge graph ${chunk.graphId} was deleted while the import ran`,
      );
    }
    const holder = await this.graphByLabel(chunk.label);
    // The graph another connection created for the same label since the read above (see below).
    if (holder?.id === chunk.graphId) return false;
    if (holder) {
      throw new HedgehopError(
        'CONFLICT',
        `knowledge graph label '${chunk.label}' was taken by graph ${holder.id} while the import ran`,
      );
    }
    // Concurrent imports into a new graph of the same name (same id) all read "no graph" under read
    // committed; the first insert wins, the others wait for it and then find the graph, as the
    // later ones do on SQLite's single writer (a plain INSERT would fail them with a duplicate key).
    // No conflict target: the id and the label are both unique, and PostgreSQL may meet the racing
    // row on either index first (a target of `(id)` alone let the label index raise 23505).
    const { rowCount } = await this.#db.query(
      'INSERT INTO kg_graphs (id, label, created_at, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      [chunk.graphId, chunk.label, chunk.now, chunk.now],
    );
    if (rowCount === 1) return true;
    const winner = await this.graphByLabel(chunk.label);
    if (winner?.id === chunk.graphId) return false;
    throw new HedgehopError(
      'CONFLICT',
      winner
        ? `knowledge graph label '${chunk.label}' was taken by graph ${winner.id} while the import ran`
        : `knowledge graph id ${chunk.graphId} was taken by another label while the import ran`,
    );
  }

  async #touchGraph(graphId: string, now: number): Promise<void> {
    await this.#db.query('UPDATE kg_graphs SET updated_at = greatest(updated_at, $1) WHERE id = $2', [
      now,
      graphId,
    ]);
  }

  async #node(id: string, lock = false): Promise<KnowledgeNode | undefined> {
    const row = await first<RawNode>(
      this.#db,
      `SELECT ${NODE_COLUMNS} FROM kg_nodes n WHERE n.id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return row ? node(row) : undefined;
  }

  async #writeNode(
    chunk: KnowledgeImportChunk,
    write: KnowledgeNodeWrite,
    result: KnowledgeChunkResult,
  ): Promise<void> {
    const existing = await this.#node(write.id, true);
    const fields = write.resolve(existing);
    if (fields === undefined) {
      if (existing) result.skipped++;
      return;
    }
    if (existing) {
      await this.#updateNodeFields(existing, fields, chunk.now);
      result.updated.push(write.id);
      return;
    }
    await this.#db.query(
      `INSERT INTO kg_nodes (id, graph_id, title, type, content, keywords, observations, source_ref, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        write.id,
        chunk.graphId,
        write.title,
        fields.type,
        fields.content,
        JSON.stringify(fields.keywords),
        JSON.stringify(fields.observations),
        sourceRefJson(fields.sourceRef),
        chunk.now,
        chunk.now,
      ],
    );
    await this.#indexNode(write.id, write.title, fields, chunk.now);
    result.created.push(write.id);
  }

  async #updateNodeFields(existing: KnowledgeNode, fields: KnowledgeNodeFields, now: number): Promise<void> {
    await this.#db.query(
      `UPDATE kg_nodes SET type = $1, content = $2, keywords = $3, observations = $4, source_ref = $5, updated_at = $6
       WHERE id = $7`,
      [
        fields.type,
        fields.content,
        JSON.stringify(fields.keywords),
        JSON.stringify(fields.observations),
        sourceRefJson(fields.sourceRef),
        now,
        existing.id,
      ],
    );
    await this.#indexNode(existing.id, existing.title, fields, existing.createdAt);
  }

  async #indexNode(id: string, title: string, fields: KnowledgeNodeFields, createdAt: number): Promise<void> {
    await this.#index.upsert({
      layer: 'knowledge',
      ref: id,
      agentId: null,
      createdAt,
      text: knowledgeIndexText(title, fields),
    });
  }

  async #writeEdge(
    chunk: KnowledgeImportChunk,
    write: KnowledgeEdgeWrite,
    checkMembers: boolean,
    result: KnowledgeChunkResult,
  ): Promise<void> {
    if (checkMembers) {
      const missing: string[] = [];
      for (const id of write.members) if (!(await this.#nodeInGraph(id, chunk.graphId))) missing.push(id);
      if (missing.length > 0) {
        result.errors.push(
          `${write.ref}: member node ${missing.join(', ')} no longer exists; edge not written`,
        );
        return;
      }
    }
    const inserted = await this.#db.query(
      `INSERT INTO kg_edges (id, graph_id, kind, label, directed, members, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
      [
        write.id,
        chunk.graphId,
        write.kind,
        write.label,
        write.directed ? 1 : 0,
        JSON.stringify(write.members),
        chunk.now,
      ],
    );
    if (inserted.rowCount === 0) {
      result.edgesExisting++;
      return;
    }
    for (const nodeId of write.members) {
      await this.#db.query(
        'INSERT INTO kg_edge_members (node_id, edge_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [nodeId, write.id],
      );
    }
    result.createdEdges.push(write.id);
  }

  async #nodeInGraph(nodeId: string, graphId: string): Promise<boolean> {
    return (
      (await first(this.#db, 'SELECT 1 FROM kg_nodes WHERE id = $1 AND graph_id = $2', [nodeId, graphId])) !==
      undefined
    );
  }

  /**
   * Renames a graph. Same label: nothing is written. Throws `NOT_FOUND` for an unknown graph and
   * `CONFLICT` when another graph holds the label.
   */
  async relabel(graphId: string, label: string, now: number): Promise<KnowledgeGraphInfo> {
    const current = await this.graph(graphId);
    if (!current) throw notFound(`no knowledge graph with id ${graphId}`);
    if (current.label === label) return current;
    const holder = await this.graphByLabel(label);
    if (holder) {
      throw new HedgehopError(
        'CONFLICT',
        `label: knowledge graph ${holder.id} is already labelled '${label}'`,
      );
    }
    await this.#db.query(
      'UPDATE kg_graphs SET label = $1, updated_at = greatest(updated_at, $2) WHERE id = $3',
      [label, now, graphId],
    );
    return (await this.graph(graphId)) as KnowledgeGraphInfo;
  }

  /**
   * Deletes a graph with its nodes, edges and index rows, and clears the anchor of every scene
   * (of any agent) that named it. Throws `NOT_FOUND` for an unknown graph.
   */
  async deleteGraph(graphId: string): Promise<KnowledgeDeleteReport> {
    const current = await this.graph(graphId);
    if (!current) throw notFound(`no knowledge graph with id ${graphId}`);
    await this.#db.query(
      'DELETE FROM kg_edge_members WHERE edge_id IN (SELECT id FROM kg_edges WHERE graph_id = $1)',
      [graphId],
    );
    const edges = (await this.#db.query('DELETE FROM kg_edges WHERE graph_id = $1', [graphId])).rowCount;
    const { rows } = await this.#db.query<{ id: string }>(
      'SELECT id FROM kg_nodes WHERE graph_id = $1 ORDER BY seq',
      [graphId],
    );
    for (const { id } of rows) await this.#index.remove('knowledge', id);
    const nodes = (await this.#db.query('DELETE FROM kg_nodes WHERE graph_id = $1', [graphId])).rowCount;
    const scenes = (
      await this.#db.query('UPDATE scenes SET knowledge_id = NULL WHERE knowledge_id = $1', [graphId])
    ).rowCount;
    await this.#db.query('DELETE FROM kg_graphs WHERE id = $1', [graphId]);
    return {
      graphId,
      label: current.label,
      nodesDeleted: nodes,
      edgesDeleted: edges,
      scenesUnanchored: scenes,
    };
  }

  /** Deletes nodes, every edge they belong to, and their index rows. */
  async deleteNodes(nodeIds: readonly string[], now: number): Promise<KnowledgeNodesDeleteReport> {
    const deleted: string[] = [];
    const missing: string[] = [];
    let edgesDeleted = 0;
    for (const id of new Set(nodeIds)) {
      const found = await this.#node(id, true);
      if (!found) {
        missing.push(id);
        continue;
      }
      const { rows } = await this.#db.query<{ edge_id: string }>(
        'SELECT edge_id FROM kg_edge_members WHERE node_id = $1 ORDER BY edge_id COLLATE "C"',
        [id],
      );
      for (const { edge_id: edgeId } of rows) edgesDeleted += await this.#deleteEdge(edgeId);
      await this.#index.remove('knowledge', id);
      await this.#db.query('DELETE FROM kg_nodes WHERE id = $1', [id]);
      await this.#touchGraph(found.graphId, now);
      deleted.push(id);
    }
    return { deleted, notFound: missing, edgesDeleted };
  }

  async #deleteEdge(edgeId: string): Promise<number> {
    await this.#db.query('DELETE FROM kg_edge_members WHERE edge_id = $1', [edgeId]);
    return (await this.#db.query('DELETE FROM kg_edges WHERE id = $1', [edgeId])).rowCount;
  }

  /** Deletes edges by id. */
  async deleteEdges(edgeIds: readonly string[], now: number): Promise<KnowledgeEdgesDeleteReport> {
    const deleted: string[] = [];
    const missing: string[] = [];
    for (const id of new Set(edgeIds)) {
      const row = await first<{ graph_id: string }>(this.#db, 'SELECT graph_id FROM kg_edges WHERE id = $1', [
        id,
      ]);
      if (row === undefined) {
        missing.push(id);
        continue;
      }
      await this.#deleteEdge(id);
      await this.#touchGraph(row.graph_id, now);
      deleted.push(id);
    }
    return { deleted, notFound: missing };
  }

  /**
   * Appends observations a node does not hold yet. Every node must exist: otherwise `NOT_FOUND`
   * names the first missing one (and the caller's write rolls back).
   */
  async addObservations(
    edits: readonly KnowledgeObservationEdit[],
    now: number,
  ): Promise<KnowledgeObservationsAdded[]> {
    const results: KnowledgeObservationsAdded[] = [];
    for (const edit of edits) {
      const found = await this.#node(edit.nodeId, true);
      if (!found) throw notFound(`no knowledge node with id ${edit.nodeId}`);
      const held = new Set(found.observations);
      const added: string[] = [];
      for (const text of edit.observations) {
        if (held.has(text)) continue;
        held.add(text);
        added.push(text);
      }
      if (added.length > 0) await this.#setObservations(found, [...found.observations, ...added], now);
      results.push({ nodeId: found.id, added });
    }
    return results;
  }

  /** Removes the given observations from nodes; missing nodes are reported, not refused. */
  async deleteObservations(
    edits: readonly KnowledgeObservationEdit[],
    now: number,
  ): Promise<KnowledgeObservationsDeleteReport> {
    let deleted = 0;
    const missing: string[] = [];
    for (const edit of edits) {
      const found = await this.#node(edit.nodeId, true);
      if (!found) {
        missing.push(edit.nodeId);
        continue;
      }
      const drop = new Set(edit.observations);
      const kept = found.observations.filter((text) => !drop.has(text));
      if (kept.length === found.observations.length) continue;
      deleted += found.observations.length - kept.length;
      await this.#setObservations(found, kept, now);
    }
    return { deleted, notFound: missing };
  }

  async #setObservations(found: KnowledgeNode, observations: readonly string[], now: number): Promise<void> {
    await this.#updateNodeFields(
      found,
      {
        type: found.type,
        content: found.content,
        keywords: found.keywords,
        observations,
        sourceRef: found.sourceRef,
      },
      now,
    );
    await this.#touchGraph(found.graphId, now);
  }
}
