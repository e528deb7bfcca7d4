/**
 * The public shapes of the knowledge layer: file-wide graphs of typed nodes joined by typed,
 * possibly directed, possibly many-membered relation edges; their limits and input schemas.
 */
import { z } from 'zod';

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

/** What importing MemHop items did: one report per graph (domain), and their sums. */
export interface KnowledgeItemsImportReport extends Omit<KnowledgeImportReport, 'graphId' | 'graphCreated'> {
  /** Every graph the items named, in first-appearance order (created or not). */
  readonly graphIds: readonly string[];
  readonly graphs: readonly KnowledgeImportReport[];
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

/** Limits of knowledge input; documented in docs/file-format.md. */
export const KNOWLEDGE_LIMITS = {
  labelChars: 256,
  titleChars: 4096,
  typeChars: 256,
  contentChars: 1_000_000,
  keywordChars: 256,
  keywords: 256,
  observationChars: 100_000,
  observations: 10_000,
  sourceChars: 4096,
  edgeLabelChars: 256,
  edgeMembers: 1000,
  batchItems: 5_000_000,
  queryChars: 2048,
  depth: 10_000,
} as const;

const L = KNOWLEDGE_LIMITS;

const notBlank = (text: string): boolean => text.trim().length > 0;

/** A graph label: trimmed, not empty. */
export const labelSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(L.labelChars, `at most ${L.labelChars} characters`);

/** A node title: kept exactly as given (it is an MCP entity name), but not blank. */
export const titleSchema = z
  .string()
  .max(L.titleChars, `at most ${L.titleChars} characters`)
  .refine(notBlank, 'must not be empty or blank');

/** An opaque id as returned by hedgehop. */
export const idSchema = z.string().min(1, 'must not be empty').max(64, 'is not a knowledge id');

export const edgeKindSchema = z.enum(KNOWLEDGE_EDGE_KINDS, {
  error: (issue) =>
    `unknown edge kind ${JSON.stringify(issue.input)}; expected one of ${KNOWLEDGE_EDGE_KINDS.join(', ')}`,
});

const sourceRefSchema = z
  .strictObject({
    source: z.string().min(1, 'must not be empty').max(L.sourceChars, `at most ${L.sourceChars} characters`),
    start: z.number().int().min(0).optional(),
    end: z.number().int().min(0).optional(),
    unit: z.enum(['line', 'char', 'byte', 'page']).optional(),
  })
  .refine((ref) => ref.start === undefined || ref.end === undefined || ref.end >= ref.start, {
    message: 'end must not be before start',
    path: ['end'],
  });

const observationsSchema = z
  .array(z.string().max(L.observationChars, `at most ${L.observationChars} characters`))
  .max(L.observations, `at most ${L.observations} observations`);

export const nodeInputSchema = z.strictObject({
  title: titleSchema,
  type: z.string().max(L.typeChars, `at most ${L.typeChars} characters`).optional(),
  content: z.string().max(L.contentChars, `at most ${L.contentChars} characters`).optional(),
  keywords: z
    .array(
      z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(L.keywordChars, `at most ${L.keywordChars} characters`),
    )
    .max(L.keywords, `at most ${L.keywords} keywords`)
    .optional(),
  observations: observationsSchema.optional(),
  sourceRef: sourceRefSchema.optional(),
});

const edgeInputSchema = z
  .strictObject({
    kind: edgeKindSchema,
    label: z.string().max(L.edgeLabelChars, `at most ${L.edgeLabelChars} characters`).optional(),
    directed: z.boolean().optional(),
    members: z
      .array(titleSchema)
      .min(2, 'an edge needs at least two members')
      .max(L.edgeMembers, `at most ${L.edgeMembers} members`),
  })
  .superRefine((edge, context) => {
    if (edge.directed === true) return;
    const seen = new Set<string>();
    edge.members.forEach((title, index) => {
      if (seen.has(title)) {
        context.addIssue({
          code: 'custom',
          path: ['members', index],
          message: `'${title}' appears twice; an undirected edge joins distinct nodes`,
        });
      }
      seen.add(title);
    });
  });

export const batchSchema = z
  .strictObject({
    graph: labelSchema,
    nodes: z.array(nodeInputSchema).max(L.batchItems).optional(),
    edges: z.array(edgeInputSchema).max(L.batchItems).optional(),
  })
  .superRefine((batch, context) => {
    if ((batch.nodes?.length ?? 0) + (batch.edges?.length ?? 0) === 0) {
      context.addIssue({ code: 'custom', message: 'the batch has no nodes and no edges' });
    }
    const seen = new Set<string>();
    batch.nodes?.forEach((node, index) => {
      if (seen.has(node.title)) {
        context.addIssue({
          code: 'custom',
          path: ['nodes', index, 'title'],
          message: `'${node.title}' appears twice in the batch`,
        });
      }
      seen.add(node.title);
    });
  });

export const importOptionsSchema = z.strictObject({
  mode: z
    .enum(['skip', 'merge', 'overwrite'], {
      error: (issue) => `unknown mode ${JSON.stringify(issue.input)}; expected skip, merge or overwrite`,
    })
    .default('merge'),
  chunkSize: z.number().int().min(1).max(1_000_000).default(5000),
  onProgress: z
    .custom<(progress: KnowledgeImportProgress) => void>((value) => typeof value === 'function', {
      message: 'must be a function',
    })
    .optional(),
});

const idListSchema = z.array(idSchema).max(L.batchItems);

export const nodeQuerySchema = z.strictObject({
  graphId: idSchema.optional(),
  keyword: z.string().min(1, 'must not be empty').max(L.queryChars).optional(),
  type: z.string().max(L.typeChars).optional(),
  ids: idListSchema.optional(),
  titles: z.array(z.string().max(L.titleChars)).max(L.batchItems).optional(),
  limit: z.number().int().min(1).optional(),
});

export const subgraphStartSchema = z.array(idSchema).min(1, 'give at least one start node').max(100_000);

/**
 * `depth` ≤ 0 means "as far as the edges go" (MemHop's unlimited), walked to at most
 * {@link KNOWLEDGE_LIMITS.depth} hops.
 */
export const subgraphOptionsSchema = z.strictObject({
  depth: z
    .number()
    .int('must be a whole number')
    .max(L.depth, `at most ${L.depth} (0 or less: unlimited, up to ${L.depth} hops)`)
    .default(1)
    .transform((depth) => (depth <= 0 ? L.depth : depth)),
  edgeKinds: z
    .array(edgeKindSchema)
    .min(1, 'list at least one kind, or leave edgeKinds out to follow every kind')
    .optional(),
  direction: z.enum(['any', 'forward', 'backward']).default('any'),
});

export const updateSchema = z.strictObject({ label: labelSchema });

export const searchQuerySchema = z.string().max(L.queryChars, `at most ${L.queryChars} characters`);

export const searchOptionsSchema = z.strictObject({
  graphId: idSchema.optional(),
  limit: z.number().int().min(1).max(10_000).optional(),
});

export const observationEditsSchema = z
  .array(z.strictObject({ nodeId: idSchema, observations: observationsSchema }))
  .max(L.batchItems);

export const idsSchema = idListSchema;

/**
 * The model of the MCP reference memory server (`@modelcontextprotocol/server-memory`) mapped
 * onto one knowledge graph:
 *
 * - an entity is a node: `name` = title, `entityType` = type, `observations` = observations
 *   (a node imported with `content` shows it as its first observation);
 * - a relation is a directed two-member edge of kind `custom` whose `label` is the
 *   `relationType`, running `from` → `to`. Edges made otherwise read back as relations too:
 *   their `relationType` is the label, or the kind when there is no label; an edge of more than
 *   two members reads as one relation per pair (consecutive pairs when directed).
 */

/** An entity as the MCP memory server has it. */
export interface MemoryServerEntity {
  readonly name: string;
  readonly entityType: string;
  readonly observations: readonly string[];
}

/** A relation as the MCP memory server has it (active voice: `from` `relationType` `to`). */
export interface MemoryServerRelation {
  readonly from: string;
  readonly to: string;
  readonly relationType: string;
}

/** A graph, or part of one, as the MCP memory server's `read_graph` returns it. */
export interface MemoryServerSnapshot {
  readonly entities: readonly MemoryServerEntity[];
  readonly relations: readonly MemoryServerRelation[];
}

/** A relation `create_relations` did not store, and the names it uses that are no entity. */
export interface SkippedRelation extends MemoryServerRelation {
  readonly missingEntities: readonly string[];
}

/** What `create_relations` did: the relations that were new, and those naming a missing entity. */
export interface CreateRelationsResult {
  readonly relations: MemoryServerRelation[];
  readonly skipped: SkippedRelation[];
}

/** What importing a memory-server JSONL file did. */
export interface MemoryServerImportReport extends KnowledgeImportReport {
  /** Entity and relation lines read. */
  readonly entities: number;
  readonly relations: number;
  /** Lines of another `type` (or blank), left alone as the memory server does. */
  readonly ignoredLines: number;
  /** Relations naming an entity that is neither in the file nor in the graph: not imported. */
  readonly skippedRelations: readonly string[];
}

/** The name of the graph the MCP mapping uses unless told otherwise. */
export const DEFAULT_MEMORY_SERVER_GRAPH = 'memory';

/**
 * The MCP reference memory server's file: one JSON object per line, entities
 * (`{"type":"entity","name","entityType","observations"}`) then relations
 * (`{"type":"relation","from","to","relationType"}`).
 */

/** An entity line's fields (unknown fields are ignored, as the memory server ignores them). */
export const entitySchema = z.object({
  name: titleSchema,
  entityType: z.string().max(KNOWLEDGE_LIMITS.typeChars, `at most ${KNOWLEDGE_LIMITS.typeChars} characters`),
  observations: z
    .array(z.string().max(KNOWLEDGE_LIMITS.observationChars))
    .max(KNOWLEDGE_LIMITS.observations, `at most ${KNOWLEDGE_LIMITS.observations} observations`),
});

/** A relation line's fields. */
export const relationSchema = z.object({
  from: titleSchema,
  to: titleSchema,
  relationType: z
    .string()
    .max(KNOWLEDGE_LIMITS.edgeLabelChars, `at most ${KNOWLEDGE_LIMITS.edgeLabelChars} characters`),
});
