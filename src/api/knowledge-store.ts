import type { Clock } from '../core/clock.js';
import { notFound } from '../core/errors.js';
import { parseInput } from '../core/validate.js';
import { KnowledgeGraphs } from '../memory/knowledge/knowledge-graphs.js';
import {
  batchSchema,
  idSchema,
  idsSchema,
  importOptionsSchema,
  labelSchema,
  nodeQuerySchema,
  observationEditsSchema,
  searchOptionsSchema,
  searchQuerySchema,
  subgraphOptionsSchema,
  subgraphStartSchema,
  updateSchema,
  type KnowledgeBatch,
  type KnowledgeDeleteReport,
  type KnowledgeEdgesDeleteReport,
  type KnowledgeGraph,
  type KnowledgeGraphInfo,
  type KnowledgeImportOptions,
  type KnowledgeImportReport,
  type KnowledgeNode,
  type KnowledgeNodeQuery,
  type KnowledgeNodesDeleteReport,
  type KnowledgeObservationEdit,
  type KnowledgeObservationsAdded,
  type KnowledgeObservationsDeleteReport,
  type KnowledgeSearchHit,
  type KnowledgeSubgraph,
  type KnowledgeSubgraphOptions,
  type KnowledgeItemsImportReport,
} from '../core/model/knowledge.js';
import { itemsToBatches, knowledgeItemsSchema, type KnowledgeItem } from '../core/model/knowledge-items.js';
import type { MemoryStore } from '../store/memory-store.js';
import { MemoryServerGraph, type MemoryServerOptions } from './memory-server-graph.js';

/** Default number of hits of {@link KnowledgeStore.search}. */
const DEFAULT_SEARCH_HITS = 100;

/**
 * The file's knowledge graphs: shared by every agent of the file (there is no agent column),
 * reached as `db.knowledge`. Nodes carry a type, keywords, content, observations and a
 * positional source reference; edges have a kind, an optional label and direction, and two or
 * more members, so one pair of nodes may hold several relations. Ids are deterministic, so
 * importing the same batch again changes nothing and reports nothing new.
 *
 * @example
 * ```ts
 * const db = await openMemory('memory.db');
 * const report = await db.knowledge.import({
 *   graph: 'architecture',
 *   nodes: [
 *     { title: 'API gateway', type: 'service', keywords: ['http'], sourceRef: { source: 'docs/arch.md', start: 10, end: 24 } },
 *     { title: 'Auth service', type: 'service' },
 *   ],
 *   edges: [{ kind: 'dependency', members: ['API gateway', 'Auth service'], directed: true }],
 * });
 * const around = await db.knowledge.querySubgraph([report.created[0]!], { depth: 2 });
 * ```
 */
export class KnowledgeStore {
  readonly #store: MemoryStore;
  readonly #graphs: KnowledgeGraphs;

  /** @internal Reach it as `db.knowledge`. */
  constructor(store: MemoryStore, clock: Clock) {
    this.#store = store;
    this.#graphs = new KnowledgeGraphs(store, clock);
  }

  #assertOpen(what: string): void {
    this.#store.assertOpen(`knowledge.${what}`);
  }

  /**
   * Imports nodes and edges into the graph labelled `batch.graph` (created if absent). The
   * whole batch is validated first, including that every edge member names a node of the batch
   * or of the graph: a bad batch is refused with `INVALID_INPUT` and changes nothing. Large
   * batches are written in chunks of `chunkSize` items, each one atomic transaction, with
   * `onProgress` called after each.
   */
  async import(batch: KnowledgeBatch, options?: KnowledgeImportOptions): Promise<KnowledgeImportReport>;
  /**
   * Imports MemHop `ImportL3` items (`{ title, domain, node_type?, content?, keywords?,
   * source_ref?, related?: [{ titles, kind }] }`): each item is a node of the graph labelled
   * `domain` (created if absent), each `related` entry an edge joining the item and `titles`
   * (nodes of the same domain, in the items or already stored). Every item is checked before
   * anything is written: a bad one is `INVALID_INPUT` naming it (`items.3.related.0.titles.1`)
   * and the file is unchanged. Reports per graph and in sum.
   */
  async import(
    items: readonly KnowledgeItem[],
    options?: KnowledgeImportOptions,
  ): Promise<KnowledgeItemsImportReport>;
  async import(
    batch: KnowledgeBatch | readonly KnowledgeItem[],
    options?: KnowledgeImportOptions,
  ): Promise<KnowledgeImportReport | KnowledgeItemsImportReport> {
    this.#assertOpen('import');
    const settings = parseInput(importOptionsSchema, options ?? {}, 'options');
    if (Array.isArray(batch)) {
      const items = parseInput(knowledgeItemsSchema, batch, 'items');
      return this.#graphs.importItems(itemsToBatches(items), settings);
    }
    const checked = parseInput(batchSchema, batch, 'batch');
    return this.#graphs.import(checked, settings);
  }

  /** A whole graph (info, nodes, edges), or `undefined`. */
  async get(graphId: string): Promise<KnowledgeGraph | undefined> {
    this.#assertOpen('get');
    return this.#graphs.get(parseInput(idSchema, graphId, 'graphId'));
  }

  /** {@link KnowledgeStore.get}, throwing `NOT_FOUND` for an unknown graph. */
  async getOrThrow(graphId: string): Promise<KnowledgeGraph> {
    const graph = await this.get(graphId);
    if (!graph) throw notFound(`no knowledge graph with id ${graphId}`);
    return graph;
  }

  /** The graph labelled `label`, without content, or `undefined`. */
  async getByLabel(label: string): Promise<KnowledgeGraphInfo | undefined> {
    this.#assertOpen('getByLabel');
    return this.#graphs.infoByLabel(parseInput(labelSchema, label, 'label'));
  }

  /** Every graph with its counts, oldest first. */
  async list(): Promise<KnowledgeGraphInfo[]> {
    this.#assertOpen('list');
    return this.#graphs.list();
  }

  /**
   * Renames a graph (its id stays). The same label is a no-op; a label another graph holds is
   * `CONFLICT`; an unknown graph is `NOT_FOUND`.
   */
  async update(graphId: string, patch: { readonly label: string }): Promise<KnowledgeGraphInfo> {
    this.#assertOpen('update');
    const id = parseInput(idSchema, graphId, 'graphId');
    const { label } = parseInput(updateSchema, patch, 'patch');
    return this.#graphs.update(id, label);
  }

  /**
   * Deletes a graph with all its nodes and edges, and clears the knowledge anchor of every
   * scene (of any agent) that named it. Reports what went; an unknown graph is `NOT_FOUND`.
   */
  async delete(graphId: string): Promise<KnowledgeDeleteReport> {
    this.#assertOpen('delete');
    return this.#graphs.delete(parseInput(idSchema, graphId, 'graphId'));
  }

  /** Deletes nodes and every edge they are a member of; unknown ids are reported. */
  async deleteNodes(nodeIds: readonly string[]): Promise<KnowledgeNodesDeleteReport> {
    this.#assertOpen('deleteNodes');
    return this.#graphs.deleteNodes(parseInput(idsSchema, nodeIds, 'nodeIds'));
  }

  /** Deletes edges; unknown ids are reported. */
  async deleteEdges(edgeIds: readonly string[]): Promise<KnowledgeEdgesDeleteReport> {
    this.#assertOpen('deleteEdges');
    return this.#graphs.deleteEdges(parseInput(idsSchema, edgeIds, 'edgeIds'));
  }

  /**
   * Appends observations to nodes (those already held are not repeated). Every node must
   * exist, else `NOT_FOUND` and nothing is written.
   */
  async addObservations(edits: readonly KnowledgeObservationEdit[]): Promise<KnowledgeObservationsAdded[]> {
    this.#assertOpen('addObservations');
    return this.#graphs.addObservations(parseInput(observationEditsSchema, edits, 'edits'));
  }

  /** Removes observations from nodes; unknown nodes are reported. */
  async deleteObservations(
    edits: readonly KnowledgeObservationEdit[],
  ): Promise<KnowledgeObservationsDeleteReport> {
    this.#assertOpen('deleteObservations');
    return this.#graphs.deleteObservations(parseInput(observationEditsSchema, edits, 'edits'));
  }

  /**
   * Nodes meeting every given condition (graph, case-insensitive keyword substring, exact type,
   * ids, titles), in insertion order, at most `limit`.
   */
  async queryNodes(query: KnowledgeNodeQuery = {}): Promise<KnowledgeNode[]> {
    this.#assertOpen('queryNodes');
    return this.#graphs.queryNodes(parseInput(nodeQuerySchema, query, 'query'));
  }

  /**
   * The neighbourhood of `startIds`, breadth-first up to `depth` hops (default 1; 0 or less:
   * unlimited, as in MemHop, walked to at most 10 000 hops) along edges
   * of `edgeKinds` (default all). An unknown kind is `INVALID_INPUT` (never an empty answer);
   * an unknown start node is `NOT_FOUND`. Returns the visited nodes, nearest first, and the
   * edges whose members were all visited.
   */
  async querySubgraph(
    startIds: readonly string[],
    options: KnowledgeSubgraphOptions = {},
  ): Promise<KnowledgeSubgraph> {
    this.#assertOpen('querySubgraph');
    const starts = parseInput(subgraphStartSchema, startIds, 'startIds');
    const settings = parseInput(subgraphOptionsSchema, options, 'options');
    return this.#graphs.querySubgraph(starts, settings);
  }

  /**
   * Nodes ranked for a free-text query: substring matches (title first) and word matches from
   * the recall index. At most `limit` hits (default 100); an empty query lists nodes in order.
   */
  async search(
    query: string,
    options: { readonly graphId?: string; readonly limit?: number } = {},
  ): Promise<KnowledgeSearchHit[]> {
    this.#assertOpen('search');
    const text = parseInput(searchQuerySchema, query, 'query');
    const checked = parseInput(searchOptionsSchema, options, 'options');
    return this.#graphs.search(text, {
      graphId: checked.graphId,
      limit: checked.limit ?? DEFAULT_SEARCH_HITS,
    });
  }

  /**
   * The MCP reference memory server's tools over one graph (default label `memory`): what the
   * MCP drop-in and the JSONL import/export use.
   */
  memoryServer(options: MemoryServerOptions = {}): MemoryServerGraph {
    this.#assertOpen('memoryServer');
    return new MemoryServerGraph(this.#store, this.#graphs, options);
  }
}
