import { createHash } from 'node:crypto';
import type { KnowledgeEdgeKind } from '../../core/model/knowledge.js';

/**
 * Knowledge ids are deterministic: a hash of what identifies the record (a graph's label, a
 * node's graph and title, an edge's graph, kind, label, direction and members), so that
 * importing the same batch twice finds the same rows instead of making new ones. They are
 * opaque to users: a prefix naming the kind of record and 64 bits of SHA-256 in hex.
 */
function hashId(prefix: string, parts: readonly unknown[]): string {
  // JSON of an array is an unambiguous encoding: no choice of titles can make two different
  // part lists hash the same input.
  return `${prefix}_${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 16)}`;
}

/**
 * The id a graph created with `label` gets. `attempt` > 0 gives the alternatives tried when the
 * first is held by a graph that has since been renamed.
 */
export function graphIdFor(label: string, attempt = 0): string {
  return hashId('kg', attempt === 0 ? ['graph', label] : ['graph', label, attempt]);
}

/** The id of the node titled `title` in graph `graphId`. */
export function nodeIdFor(graphId: string, title: string): string {
  return hashId('kn', ['node', graphId, title]);
}

/** An edge's identity: its members are node ids, sorted here when the edge is undirected. */
interface EdgeIdentity {
  readonly graphId: string;
  readonly kind: KnowledgeEdgeKind;
  readonly label: string;
  readonly directed: boolean;
  readonly members: readonly string[];
}

/** Members as stored: sorted for an undirected edge (a set), as given for a directed one. */
export function canonicalMembers(members: readonly string[], directed: boolean): string[] {
  return directed ? [...members] : [...members].sort();
}

/** The id of an edge; `members` must already be canonical ({@link canonicalMembers}). */
export function edgeIdFor(edge: EdgeIdentity): string {
  return hashId('ke', ['edge', edge.graphId, edge.kind, edge.label, edge.directed, edge.members]);
}
