import type {
  KnowledgeEdge,
  KnowledgeEdgeKind,
  KnowledgeGraphInfo,
  KnowledgeNode,
  KnowledgeSourceRef,
} from '../core/model/knowledge.js';

/**
 * Rows of the knowledge tables as both engines read them, the plain mappers to the model's
 * records. The column lists are SQL both SQLite and
 * PostgreSQL accept; numbers arrive as numbers (the PostgreSQL repository converts them first).
 */

/** The stored fields of a node that an import may change. */
export interface KnowledgeNodeFields {
  readonly type: string;
  readonly content: string;
  readonly keywords: readonly string[];
  readonly observations: readonly string[];
  readonly sourceRef: KnowledgeSourceRef | undefined;
}

export interface RawGraph {
  id: string;
  label: string;
  created_at: number;
  updated_at: number;
  node_count: number;
  edge_count: number;
}

export interface RawNode {
  id: string;
  graph_id: string;
  title: string;
  type: string;
  content: string;
  keywords: string;
  observations: string;
  source_ref: string | null;
  created_at: number;
  updated_at: number;
}

export interface RawEdge {
  id: string;
  graph_id: string;
  kind: KnowledgeEdgeKind;
  label: string;
  directed: number;
  members: string;
  created_at: number;
}

export const NODE_COLUMNS =
  'n.id, n.graph_id, n.title, n.type, n.content, n.keywords, n.observations, n.source_ref, n.created_at, n.updated_at';
export const EDGE_COLUMNS = 'e.id, e.graph_id, e.kind, e.label, e.directed, e.members, e.created_at';
export const GRAPH_COLUMNS = `g.id, g.label, g.created_at, g.updated_at,
  (SELECT count(*) FROM kg_nodes WHERE graph_id = g.id) AS node_count,
  (SELECT count(*) FROM kg_edges WHERE graph_id = g.id) AS edge_count`;

export const toGraph = (row: RawGraph): KnowledgeGraphInfo => ({
  id: row.id,
  label: row.label,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  nodeCount: row.node_count,
  edgeCount: row.edge_count,
});

export const toNode = (row: RawNode): KnowledgeNode => ({
  id: row.id,
  graphId: row.graph_id,
  title: row.title,
  type: row.type,
  content: row.content,
  keywords: JSON.parse(row.keywords) as string[],
  observations: JSON.parse(row.observations) as string[],
  sourceRef: row.source_ref === null ? undefined : (JSON.parse(row.source_ref) as KnowledgeSourceRef),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/**
 * A node row read with `.raw()`, in {@link NODE_COLUMNS} order: arrays cost less to build than
 * objects keyed by column name, on reads that return hundreds of rows (a search's matches).
 */
export type RawNodeArray = [
  id: string,
  graphId: string,
  title: string,
  type: string,
  content: string,
  keywords: string,
  observations: string,
  sourceRef: string | null,
  createdAt: number,
  updatedAt: number,
];

export const nodeFromArray = (row: RawNodeArray): KnowledgeNode => ({
  id: row[0],
  graphId: row[1],
  title: row[2],
  type: row[3],
  content: row[4],
  keywords: JSON.parse(row[5]) as string[],
  observations: JSON.parse(row[6]) as string[],
  sourceRef: row[7] === null ? undefined : (JSON.parse(row[7]) as KnowledgeSourceRef),
  createdAt: row[8],
  updatedAt: row[9],
});

/** An edge row read with `.raw()`: its insertion rank (`seq`), then {@link EDGE_COLUMNS}. */
export type RawSeqEdgeArray = [
  seq: number,
  id: string,
  graphId: string,
  kind: KnowledgeEdgeKind,
  label: string,
  directed: number,
  members: string,
  createdAt: number,
];

export const edgeFromSeqArray = (row: RawSeqEdgeArray): KnowledgeEdge => ({
  id: row[1],
  graphId: row[2],
  kind: row[3],
  label: row[4],
  directed: row[5] === 1,
  members: JSON.parse(row[6]) as string[],
  createdAt: row[7],
});

export const toEdge = (row: RawEdge): KnowledgeEdge => ({
  id: row.id,
  graphId: row.graph_id,
  kind: row.kind,
  label: row.label,
  directed: row.directed === 1,
  members: JSON.parse(row.members) as string[],
  createdAt: row.created_at,
});

export function sourceRefJson(ref: KnowledgeSourceRef | undefined): string | null {
  if (ref === undefined) return null;
  // A fixed key order, so equal references are equal text.
  return JSON.stringify({ source: ref.source, start: ref.start, end: ref.end, unit: ref.unit });
}
