import type { Clock } from '../../core/clock.js';
import { HedgehopError, invalidInput, notFound } from '../../core/errors.js';
import type {
  KnowledgeChunkResult,
  KnowledgeEdgeWrite,
  KnowledgeImportChunk,
  KnowledgeNodeWrite,
} from '../../store/knowledge-repo.js';
import type { Awaitable, KnowledgeRepository, StoreSeam, StoreTx } from '../../store/seam.js';
import { canonicalMembers, edgeIdFor, graphIdFor, nodeIdFor } from './ids.js';
import { resolveNodeFields } from './merge.js';
import { toItemError, type ItemBatch } from '../../core/model/knowledge-items.js';
import { rankNodes } from './node-search.js';
import type {
  KnowledgeBatch,
  KnowledgeDeleteReport,
  KnowledgeEdge,
  KnowledgeEdgeKind,
  KnowledgeEdgesDeleteReport,
  KnowledgeGraph,
  KnowledgeGraphInfo,
  KnowledgeImportMode,
  KnowledgeImportProgress,
  KnowledgeImportReport,
  KnowledgeItemsImportReport,
  KnowledgeNode,
  KnowledgeNodeQuery,
  KnowledgeNodesDeleteReport,
  KnowledgeObservationEdit,
  KnowledgeObservationsAdded,
  KnowledgeObservationsDeleteReport,
  KnowledgeSearchHit,
  KnowledgeSubgraph,
} from '../../core/model/knowledge.js';

/** Import options after validation. */
export interface ImportSettings {
  readonly mode: KnowledgeImportMode;
  readonly chunkSize: number;
  readonly onProgress?: ((progress: KnowledgeImportProgress) => void) | undefined;
}

/** Subgraph options after validation. */
interface SubgraphSettings {
  readonly depth: number;
  readonly edgeKinds?: readonly KnowledgeEdgeKind[] | undefined;
  readonly direction: 'any' | 'forward' | 'backward';
}

/** Where an import writes: an existing graph, or a new one with a free id. */
interface GraphTarget {
  readonly id: string;
  readonly label: string;
  readonly exists: boolean;
}

/** How many alternative ids are tried for a label whose first id a renamed graph holds. */
const MAX_GRAPH_ID_ATTEMPTS = 1000;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The knowledge layer's logic over the knowledge repository: batch imports in atomic chunks,
 * lookups, breadth-first subgraphs and ranked search. Input is already validated by the API.
 * Each call is its own transaction, except inside {@link KnowledgeGraphs.snapshot}, whose view
 * answers every call from one read.
 */
export class KnowledgeGraphs {
  readonly #store: StoreSeam;
  readonly #clock: Clock;
  /** Set on a {@link KnowledgeGraphs.snapshot} view: the read every call of the view uses. */
  readonly #tx: StoreTx | undefined;

  constructor(store: StoreSeam, clock: Clock, tx?: StoreTx) {
    this.#store = store;
    this.#clock = clock;
    this.#tx = tx;
  }

  async #read<T>(what: string, work: (repo: KnowledgeRepository, tx: StoreTx) => Awaitable<T>): Promise<T> {
    if (this.#tx) return work(this.#tx.knowledge, this.#tx);
    return this.#store.read(what, (tx) => work(tx.knowledge, tx));
  }

  async #write<T>(what: string, work: (repo: KnowledgeRepository) => Awaitable<T>): Promise<T> {
    if (this.#tx) return work(this.#tx.knowledge);
    return this.#store.write(what, (tx) => work(tx.knowledge));
  }

  /** Runs `work` with a view of these graphs whose every read comes from one snapshot. */
  snapshot<T>(what: string, work: (view: KnowledgeGraphs) => Promise<T>): Promise<T> {
    if (this.#tx) return work(this);
    return this.#store.read(what, (tx) => work(new KnowledgeGraphs(this.#store, this.#clock, tx)));
  }

  // ---- import ---------------------------------------------------------------------------------

  /**
   * Imports a validated batch: checks every edge's members first (nothing is written when one
   * names no node), then writes in chunks of `chunkSize` items, one transaction each.
   */
  async import(batch: KnowledgeBatch, settings: ImportSettings): Promise<KnowledgeImportReport> {
    return (await this.importDetailed(batch, settings)).report;
  }

  /** {@link KnowledgeGraphs.import}, also returning the ids of the edges it created. */
  async importDetailed(
    batch: KnowledgeBatch,
    settings: ImportSettings,
  ): Promise<{ report: KnowledgeImportReport; createdEdges: string[] }> {
    const { target, nodes, edges } = await this.#read('knowledge import', (repo) =>
      planImport(repo, batch, settings.mode),
    );
    const now = this.#clock.now();
    const items = [...nodes.map((node) => ({ node })), ...edges.map((edge) => ({ edge }))];
    const report = emptyReport(target.id);
    const createdEdges: string[] = [];
    const total = items.length;
    for (let start = 0; start < total; start += settings.chunkSize) {
      const slice = items.slice(start, start + settings.chunkSize);
      const chunk: KnowledgeImportChunk = {
        graphId: target.id,
        label: target.label,
        createGraph: start === 0,
        now,
        nodes: slice.flatMap((item) => ('node' in item ? [item.node] : [])),
        edges: slice.flatMap((item) => ('edge' in item ? [item.edge] : [])),
      };
      const result = await this.#writeChunk(chunk);
      if (result === undefined) {
        report.errors.push(
          `stopped after ${start} of ${total} items: the graph was deleted while the import ran`,
        );
        break;
      }
      addChunk(report, result);
      for (const id of result.createdEdges) createdEdges.push(id);
      const done = Math.min(total, start + settings.chunkSize);
      settings.onProgress?.({ phase: chunk.edges.length > 0 ? 'edges' : 'nodes', done, total });
      if (done < total) await yieldToEventLoop();
    }
    return { report, createdEdges };
  }

  /**
   * Imports several batches (MemHop items, one batch per domain): every batch is checked
   * against the file first, so a bad one refuses the whole call before anything is written.
   */
  async importItems(
    batches: readonly ItemBatch[],
    settings: ImportSettings,
  ): Promise<KnowledgeItemsImportReport> {
    await this.#read('knowledge import', async (repo) => {
      for (const source of batches) {
        try {
          await planImport(repo, source.batch, settings.mode);
        } catch (error) {
          throw toItemError(error, source);
        }
      }
    });
    const graphs: KnowledgeImportReport[] = [];
    for (const source of batches) graphs.push(await this.import(source.batch, settings));
    return {
      graphIds: graphs.map((report) => report.graphId),
      graphs,
      created: graphs.flatMap((report) => report.created),
      updated: graphs.flatMap((report) => report.updated),
      skipped: graphs.reduce((sum, report) => sum + report.skipped, 0),
      edgesCreated: graphs.reduce((sum, report) => sum + report.edgesCreated, 0),
      edgesExisting: graphs.reduce((sum, report) => sum + report.edgesExisting, 0),
      errors: graphs.flatMap((report) => report.errors),
    };
  }

  async #writeChunk(chunk: KnowledgeImportChunk): Promise<KnowledgeChunkResult | undefined> {
    try {
      return await this.#write('knowledge import', (repo) => repo.importChunk(chunk));
    } catch (error) {
      if (!chunk.createGraph && HedgehopError.isInstance(error) && error.code === 'CONFLICT')
        return undefined;
      throw error;
    }
  }

  // ---- graphs ---------------------------------------------------------------------------------

  get(graphId: string): Promise<KnowledgeGraph | undefined> {
    return this.#read('knowledge get', async (repo) => {
      const graph = await repo.graph(graphId);
      if (!graph) return undefined;
      return { graph, nodes: await repo.nodesOfGraph(graphId), edges: await repo.edgesOfGraph(graphId) };
    });
  }

  info(graphId: string): Promise<KnowledgeGraphInfo | undefined> {
    return this.#read('knowledge info', (repo) => repo.graph(graphId));
  }

  infoByLabel(label: string): Promise<KnowledgeGraphInfo | undefined> {
    return this.#read('knowledge info', (repo) => repo.graphByLabel(label));
  }

  /** The id of the graph labelled `label`, if any. */
  idByLabel(label: string): Promise<string | undefined> {
    return this.#read('knowledge info', (repo) => repo.graphIdByLabel(label));
  }

  list(): Promise<KnowledgeGraphInfo[]> {
    return this.#read('knowledge list', (repo) => repo.listGraphs());
  }

  update(graphId: string, label: string): Promise<KnowledgeGraphInfo> {
    const now = this.#clock.now();
    return this.#write('knowledge update', (repo) => repo.relabel(graphId, label, now));
  }

  delete(graphId: string): Promise<KnowledgeDeleteReport> {
    return this.#write('knowledge delete', (repo) => repo.deleteGraph(graphId));
  }

  // ---- nodes, edges, observations -------------------------------------------------------------

  deleteNodes(nodeIds: readonly string[]): Promise<KnowledgeNodesDeleteReport> {
    const now = this.#clock.now();
    return this.#write('knowledge deleteNodes', (repo) => repo.deleteNodes(nodeIds, now));
  }

  deleteEdges(edgeIds: readonly string[]): Promise<KnowledgeEdgesDeleteReport> {
    const now = this.#clock.now();
    return this.#write('knowledge deleteEdges', (repo) => repo.deleteEdges(edgeIds, now));
  }

  addObservations(edits: readonly KnowledgeObservationEdit[]): Promise<KnowledgeObservationsAdded[]> {
    const now = this.#clock.now();
    return this.#write('knowledge addObservations', (repo) => repo.addObservations(edits, now));
  }

  deleteObservations(edits: readonly KnowledgeObservationEdit[]): Promise<KnowledgeObservationsDeleteReport> {
    const now = this.#clock.now();
    return this.#write('knowledge deleteObservations', (repo) => repo.deleteObservations(edits, now));
  }

  edgesBetween(a: string, b: string): Promise<KnowledgeEdge[]> {
    return this.#read('knowledge edges', (repo) => repo.edgesBetween(a, b));
  }

  /** Edges with a member among `nodeIds`, in insertion order. */
  async edgesTouching(nodeIds: readonly string[]): Promise<KnowledgeEdge[]> {
    const touching = await this.#read('knowledge edges', (repo) => repo.edgesTouching(nodeIds, undefined));
    return touching.sort((a, b) => a.seq - b.seq).map((entry) => entry.edge);
  }

  /** The titles of the nodes with these ids (those that exist), by id. */
  titlesOf(nodeIds: readonly string[]): Promise<Map<string, string>> {
    return this.#read('knowledge titles', (repo) => repo.nodeTitles(nodeIds));
  }

  // ---- queries --------------------------------------------------------------------------------

  /** Nodes meeting every given condition, in insertion order. */
  queryNodes(query: KnowledgeNodeQuery): Promise<KnowledgeNode[]> {
    // The repository keeps exactly the nodes holding the keyword (JavaScript case folding).
    const lowered = query.keyword?.toLowerCase();
    return this.#read('knowledge query', (repo) =>
      repo.scanNodes(
        {
          graphId: query.graphId,
          type: query.type,
          ids: query.ids,
          titles: query.titles,
          textContains: lowered,
        },
        () => true,
        query.limit ?? Number.POSITIVE_INFINITY,
      ),
    );
  }

  /**
   * Breadth-first from `startIds` up to `depth` hops along edges of the given kinds (each edge
   * joins all its members). Returns the visited nodes and the edges whose members were all
   * visited. Unknown start nodes are `NOT_FOUND`.
   */
  querySubgraph(startIds: readonly string[], settings: SubgraphSettings): Promise<KnowledgeSubgraph> {
    return this.#read('knowledge subgraph', async (repo) => {
      const starts = [...new Set(startIds)];
      const found = new Set((await repo.nodesByIds(starts)).map((node) => node.id));
      const missing = starts.filter((id) => !found.has(id));
      if (missing.length > 0) throw notFound(`no knowledge node with id ${missing.join(', ')}`);
      return breadthFirst(repo, starts, settings);
    });
  }

  /**
   * Nodes ranked for a free-text query: every node holding the query as a case-insensitive
   * substring (as the MCP memory server finds them), and every node the recall index matches
   * by words; exact and title matches first, then by index score. An empty query lists all.
   */
  search(
    query: string,
    options: { graphId?: string | undefined; limit?: number | undefined },
  ): Promise<KnowledgeSearchHit[]> {
    return this.#read('knowledge search', (_repo, tx) => rankNodes(tx, query, options));
  }
}

async function planImport(
  repo: KnowledgeRepository,
  batch: KnowledgeBatch,
  mode: KnowledgeImportMode,
): Promise<{ target: GraphTarget; nodes: KnowledgeNodeWrite[]; edges: KnowledgeEdgeWrite[] }> {
  const target = await resolveTarget(repo, batch.graph);
  const batchTitles = new Set((batch.nodes ?? []).map((node) => node.title));
  await checkEdgeMembers(repo, batch, target, batchTitles);
  const nodes = (batch.nodes ?? []).map(
    (input): KnowledgeNodeWrite => ({
      id: nodeIdFor(target.id, input.title),
      title: input.title,
      resolve: (existing) => resolveNodeFields(mode, input, existing),
    }),
  );
  const edges: KnowledgeEdgeWrite[] = [];
  const seen = new Set<string>();
  (batch.edges ?? []).forEach((input, index) => {
    const directed = input.directed ?? false;
    const label = input.label ?? '';
    const members = canonicalMembers(
      input.members.map((title) => nodeIdFor(target.id, title)),
      directed,
    );
    const id = edgeIdFor({ graphId: target.id, kind: input.kind, label, directed, members });
    if (seen.has(id)) return;
    seen.add(id);
    edges.push({ id, kind: input.kind, label, directed, members, ref: `edges.${index}` });
  });
  return { target, nodes, edges };
}

async function resolveTarget(repo: KnowledgeRepository, label: string): Promise<GraphTarget> {
  // The id alone: the graph's counts (a count of every node and edge) are not needed here.
  const existing = await repo.graphIdByLabel(label);
  if (existing !== undefined) return { id: existing, label, exists: true };
  for (let attempt = 0; attempt < MAX_GRAPH_ID_ATTEMPTS; attempt++) {
    const id = graphIdFor(label, attempt);
    if (!(await repo.graphIdTaken(id))) return { id, label, exists: false };
  }
  throw new HedgehopError('CONFLICT', `no free id for a knowledge graph labelled '${label}'`);
}

async function checkEdgeMembers(
  repo: KnowledgeRepository,
  batch: KnowledgeBatch,
  target: GraphTarget,
  batchTitles: Set<string>,
): Promise<void> {
  const outside = new Set<string>();
  for (const edge of batch.edges ?? []) {
    for (const title of edge.members) if (!batchTitles.has(title)) outside.add(title);
  }
  if (outside.size === 0) return;
  const found = target.exists ? await repo.existingTitles(target.id, [...outside]) : new Set<string>();
  (batch.edges ?? []).forEach((edge, edgeIndex) => {
    edge.members.forEach((title, memberIndex) => {
      if (batchTitles.has(title) || found.has(title)) return;
      throw invalidInput(
        `batch.edges.${edgeIndex}.members.${memberIndex}`,
        `no node titled '${title}' in the batch or in graph '${target.label}'`,
      );
    });
  });
}

async function breadthFirst(
  repo: KnowledgeRepository,
  starts: string[],
  settings: SubgraphSettings,
): Promise<KnowledgeSubgraph> {
  const distances = new Map<string, number>(starts.map((id) => [id, 0]));
  const seenEdges = new Map<string, { edge: KnowledgeEdge; seq: number }>();
  let frontier = starts;
  for (let depth = 0; frontier.length > 0; depth++) {
    const touching = await repo.edgesTouching(frontier, settings.edgeKinds);
    for (const entry of touching) seenEdges.set(entry.edge.id, entry);
    if (depth >= settings.depth) break;
    const inFrontier = new Set(frontier);
    const next: string[] = [];
    for (const { edge } of touching) {
      for (const neighbour of neighboursOf(edge, inFrontier, settings.direction)) {
        if (distances.has(neighbour)) continue;
        distances.set(neighbour, depth + 1);
        next.push(neighbour);
      }
    }
    frontier = next;
  }
  const nodes = (await repo.nodesByIds([...distances.keys()])).sort(
    (a, b) => (distances.get(a.id) ?? 0) - (distances.get(b.id) ?? 0),
  );
  const edges = [...seenEdges.values()]
    .filter(({ edge }) => edge.members.every((id) => distances.has(id)))
    .sort((a, b) => a.seq - b.seq)
    .map((entry) => entry.edge);
  return { nodes, edges, distances: Object.fromEntries(distances) };
}

function neighboursOf(
  edge: KnowledgeEdge,
  inFrontier: ReadonlySet<string>,
  direction: SubgraphSettings['direction'],
): string[] {
  if (!edge.directed || direction === 'any') return [...edge.members];
  const out: string[] = [];
  edge.members.forEach((id, index) => {
    if (!inFrontier.has(id)) return;
    const reach = direction === 'forward' ? edge.members.slice(index + 1) : edge.members.slice(0, index);
    out.push(...reach);
  });
  return out;
}

type MutableReport = {
  -readonly [K in keyof KnowledgeImportReport]: KnowledgeImportReport[K] extends readonly (infer T)[]
    ? T[]
    : KnowledgeImportReport[K];
};

/** A report of an import that has written nothing yet (also what an empty import reports). */
export function emptyReport(graphId: string): MutableReport {
  return {
    graphId,
    graphCreated: false,
    created: [],
    updated: [],
    skipped: 0,
    edgesCreated: 0,
    edgesExisting: 0,
    errors: [],
  };
}

function addChunk(report: MutableReport, chunk: KnowledgeChunkResult): void {
  report.graphCreated ||= chunk.graphCreated;
  report.created.push(...chunk.created);
  report.updated.push(...chunk.updated);
  report.skipped += chunk.skipped;
  report.edgesCreated += chunk.createdEdges.length;
  report.edgesExisting += chunk.edgesExisting;
  report.errors.push(...chunk.errors);
}
