/**
 * The public shapes of the knowledge layer: file-wide graphs of typed nodes joined by typed,
 * possibly directed, possibly many-membered relation edges.
 */

/** The kinds of relation an edge may have. `custom` edges name their relation in `label`. */
export const KNOWLEDGE_EDGE_KINDS = [
  'related',
  'causal',
  'part_of',
  'sequence',
  'dependency',
  'custom',
] as const;

/** One relation kind. */
export type KnowledgeEdgeKind = (typeof KNOWLEDGE_EDGE_KINDS)[number];

/** What an import does with a node whose title already exists in its graph. */
export type KnowledgeImportMode = 'skip' | 'merge' | 'overwrite';

/** Units a source reference may count in. */
export type KnowledgeSourceUnit = 'line' | 'char' | 'byte' | 'page';

/**
 * Where a node's knowledge came from: a source (file path, URL, document id) and, optionally,
 * a position inside it (`start`..`end`, inclusive, counted in `unit`, default `line`).
 */
export interface KnowledgeSourceRef {
  readonly source: string;
  readonly start?: number | undefined;
  readonly end?: number | undefined;
  readonly unit?: KnowledgeSourceUnit | undefined;
}

/** One graph, without its content. */
export interface KnowledgeGraphInfo {
  /** Opaque id, derived from the label the graph was created with; it survives renames. */
  readonly id: string;
  readonly label: string;
  readonly createdAt: number;
  /** Moves only when the graph's label, nodes or edges actually change. */
  readonly updatedAt: number;
  readonly nodeCount: number;
  readonly edgeCount: number;
}

/** One node of a graph. */
export interface KnowledgeNode {
  /** Opaque id, derived from the graph id and the title. */
  readonly id: string;
  readonly graphId: string;
  /** Unique within its graph (the MCP memory server's entity `name`). */
  readonly title: string;
  /** Free-text type (the MCP memory server's `entityType`); '' when untyped. */
  readonly type: string;
  readonly content: string;
  readonly keywords: readonly string[];
  /** Short facts about the node, in the order they were added (the MCP server's observations). */
  readonly observations: readonly string[];
  readonly sourceRef: KnowledgeSourceRef | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One relation edge. */
export interface KnowledgeEdge {
  /** Opaque id, derived from graph, kind, label, direction and members: its identity. */
  readonly id: string;
  readonly graphId: string;
  readonly kind: KnowledgeEdgeKind;
  /** Free-text relation name ('' when none): the MCP memory server's `relationType`. */
  readonly label: string;
  /**
   * Undirected edges (the default) join a set of nodes, whose ids are held sorted; directed
   * edges run from `members[0]` through each member in order (`from` → `to` for a pair).
   */
  readonly directed: boolean;
  /** Node ids, at least two. */
  readonly members: readonly string[];
  readonly createdAt: number;
}

/** A whole graph: its info, and every node and edge in insertion order. */
export interface KnowledgeGraph {
  readonly graph: KnowledgeGraphInfo;
  readonly nodes: readonly KnowledgeNode[];
  readonly edges: readonly KnowledgeEdge[];
}

/** A node to import. Absent fields count as empty (in `overwrite` mode they clear the stored ones). */
export interface KnowledgeNodeInput {
  readonly title: string;
  readonly type?: string | undefined;
  readonly content?: string | undefined;
  readonly keywords?: readonly string[] | undefined;
  readonly observations?: readonly string[] | undefined;
  readonly sourceRef?: KnowledgeSourceRef | undefined;
}

/** An edge to import; its members are node titles, of this batch or already in the graph. */
export interface KnowledgeEdgeInput {
  readonly kind: KnowledgeEdgeKind;
  readonly label?: string | undefined;
  readonly directed?: boolean | undefined;
  /** Titles of the member nodes: at least two, distinct unless the edge is directed. */
  readonly members: readonly string[];
}

/** What {@link KnowledgeStore.import} takes: nodes and edges for one graph, named by its label. */
export interface KnowledgeBatch {
  /** The graph's label; a graph with this label is created when none exists. */
  readonly graph: string;
  readonly nodes?: readonly KnowledgeNodeInput[] | undefined;
  readonly edges?: readonly KnowledgeEdgeInput[] | undefined;
}

/** Progress of a chunked import, reported after each committed chunk. */
export interface KnowledgeImportProgress {
  readonly phase: 'nodes' | 'edges';
  /** Nodes plus edges written so far, of `total`. */
  readonly done: number;
  readonly total: number;
}

/** What an import did. Re-importing the same batch reports nothing new. */
export interface KnowledgeImportReport {
  readonly graphId: string;
  /** True when the import created the graph. */
  readonly graphCreated: boolean;
  /** Ids of the nodes created, in batch order. */
  readonly created: readonly string[];
  /** Ids of existing nodes whose stored fields changed (`merge` and `overwrite`). */
  readonly updated: readonly string[];
  /** Existing nodes left as they were (`skip`, or nothing to change). */
  readonly skipped: number;
  readonly edgesCreated: number;
  /** Edges that already existed. */
  readonly edgesExisting: number;
  /**
   * Per-item problems found while writing (e.g. a member node deleted by another process
   * between chunks); the rest of the batch was still written. Bad input never gets here: it is
   * refused whole, before any write.
   */
  readonly errors: readonly string[];
}

/** Which nodes {@link KnowledgeStore.queryNodes} returns; every given condition must hold. */
export interface KnowledgeNodeQuery {
  readonly graphId?: string | undefined;
  /** Case-insensitive substring of the title, type, content, a keyword or an observation. */
  readonly keyword?: string | undefined;
  /** Exact type. */
  readonly type?: string | undefined;
  readonly ids?: readonly string[] | undefined;
  /** Exact titles. */
  readonly titles?: readonly string[] | undefined;
  /** At most this many, in insertion order. */
  readonly limit?: number | undefined;
}

/** Options of {@link KnowledgeStore.querySubgraph}. */
export interface KnowledgeSubgraphOptions {
  /** How many hops from the start nodes (0 = the start nodes only). Default 1. */
  readonly depth?: number | undefined;
  /** Follow only edges of these kinds (default: all). An unknown kind is refused. */
  readonly edgeKinds?: readonly KnowledgeEdgeKind[] | undefined;
  /**
   * For directed edges: `forward` follows them from earlier to later members only, `backward`
   * the other way, `any` (default) both. Undirected edges are always followed.
   */
  readonly direction?: 'any' | 'forward' | 'backward' | undefined;
}

/** A breadth-first neighbourhood. */
export interface KnowledgeSubgraph {
  /** Visited nodes, nearest first (start nodes first). */
  readonly nodes: readonly KnowledgeNode[];
  /** Followed-kind edges whose members were all visited, in insertion order. */
  readonly edges: readonly KnowledgeEdge[];
  /** Hops from the nearest start node, by node id. */
  readonly distances: Readonly<Record<string, number>>;
}

/** One ranked result of {@link KnowledgeStore.search}. */
export interface KnowledgeSearchHit {
  readonly node: KnowledgeNode;
  /** Only meaningful to order the hits of one query (higher is better). */
  readonly score: number;
}

/** What deleting a graph removed. */
export interface KnowledgeDeleteReport {
  readonly graphId: string;
  readonly label: string;
  readonly nodesDeleted: number;
  readonly edgesDeleted: number;
  /** Scenes (of any agent) whose anchor named this graph and was cleared. */
  readonly scenesUnanchored: number;
}

/** What deleting nodes removed. */
export interface KnowledgeNodesDeleteReport {
  readonly deleted: readonly string[];
  readonly notFound: readonly string[];
  /** Edges removed because one of their members went. */
  readonly edgesDeleted: number;
}

/** What deleting edges removed. */
export interface KnowledgeEdgesDeleteReport {
  readonly deleted: readonly string[];
  readonly notFound: readonly string[];
}

/** Observations to add to (or remove from) one node. */
export interface KnowledgeObservationEdit {
  readonly nodeId: string;
  readonly observations: readonly string[];
}

/** What adding observations did, per node. */
export interface KnowledgeObservationsAdded {
  readonly nodeId: string;
  /** The observations that were new (others were already held). */
  readonly added: readonly string[];
}

/** What removing observations did. */
export interface KnowledgeObservationsDeleteReport {
  readonly deleted: number;
  readonly notFound: readonly string[];
}

/** Options of {@link KnowledgeStore.import}. */
export interface KnowledgeImportOptions {
  /** What to do with nodes whose title exists in the graph (default `merge`). */
  readonly mode?: KnowledgeImportMode | undefined;
  /** Items (nodes + edges) per transaction (default 5000); each chunk is atomic. */
  readonly chunkSize?: number | undefined;
  /** Called after each committed chunk. */
  readonly onProgress?: ((progress: KnowledgeImportProgress) => void) | undefined;
}
