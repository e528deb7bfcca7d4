/**
 * Rebuilding and decaying the engram, as a pure function of the stored graph, the scenes'
 * turns and the time: Dream computes the plan outside any transaction and writes its diff.
 */
import type { EngramDiff, EngramEdgeRow, EngramNodeRow } from '../../store/engram-repo.js';
import { decay, ENGRAM, keywordJaccard, nodeDecayRate, sceneKeywords } from './engram-math.js';

/** What one scene contributes: its closed turns (sorted ids) and their keyword set. */
export interface SceneEvidence {
  readonly sceneId: string;
  readonly topicIds: readonly string[];
  readonly keywords: readonly string[];
  /** See `SceneEvidenceRow.stamp`; compared again when the plan is written. */
  readonly stamp: string;
}

/** Inputs of {@link planEngram}. */
interface EngramInput {
  readonly nodes: readonly EngramNodeRow[];
  readonly edges: readonly EngramEdgeRow[];
  readonly scenes: readonly SceneEvidence[];
  readonly now: number;
  /** Emotion estimates per scene (profile distillation), stamped on nodes that never had one. */
  readonly emotions?: ReadonlyMap<string, { readonly valence: number; readonly arousal: number }>;
}

/** What one pass does to the engram. */
export interface EngramCounts {
  nodesAdded: number;
  nodesRenewed: number;
  nodesDecayed: number;
  nodesFaded: number;
  nodesRemoved: number;
  nodesEmotionSet: number;
  edgesAdded: number;
  edgesUpdated: number;
  edgesDecayed: number;
  edgesRemoved: number;
}

/** The result of {@link planEngram}. */
export interface EngramPlan {
  /** The rows to write and delete (only what differs from the stored graph). */
  readonly diff: EngramDiff;
  /** Nodes as they will be (faded ones included), by scene id. */
  readonly nodes: ReadonlyMap<string, EngramNodeRow>;
  /** Scenes whose node was created or renewed, with the stamp they were read at. */
  readonly changed: ReadonlyMap<string, string>;
  readonly counts: EngramCounts;
}

const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((value, i) => value === b[i]);

function emptyCounts(): EngramCounts {
  return {
    nodesAdded: 0,
    nodesRenewed: 0,
    nodesDecayed: 0,
    nodesFaded: 0,
    nodesRemoved: 0,
    nodesEmotionSet: 0,
    edgesAdded: 0,
    edgesUpdated: 0,
    edgesDecayed: 0,
    edgesRemoved: 0,
  };
}

/**
 * One engram pass:
 * - a scene with closed turns and no node gets one (importance 1, neutral, no emotion yet);
 * - a node whose scene gained, lost or re-keyworded turns is renewed (importance back to 1,
 *   decay clock reset, emotion kept); a faded node comes back this way;
 * - any other live node decays: `importance × e^(−λ·hours)` with the emotion-damped λ; below
 *   0.05 it fades (kept as a row so that the scene is not re-added unchanged, out of the graph);
 * - nodes of scenes that are gone (or have no closed turns) are removed;
 * - edges link two live nodes whose keyword sets have a Jaccard similarity ≥ 0.15, weighted by
 *   it. An edge is created or re-weighted only when one of its scenes changed; otherwise it
 *   decays (`weight × e^(−0.02·hours)`) and is removed below 0.05. A node below 0.15 keeps no
 *   edges.
 */
export function planEngram(input: EngramInput): EngramPlan {
  const counts = emptyCounts();
  const { nodes, changed } = planNodes(input, counts);
  applyEmotions(nodes, input.emotions, counts);
  const edges = planEdges(input, nodes, changed, counts);
  return { diff: diffOf(input, nodes, edges), nodes, changed, counts };
}

function planNodes(
  input: EngramInput,
  counts: EngramCounts,
): { nodes: Map<string, EngramNodeRow>; changed: Map<string, string> } {
  const { now } = input;
  const previous = new Map(input.nodes.map((node) => [node.sceneId, node]));
  const nodes = new Map<string, EngramNodeRow>();
  const changed = new Map<string, string>();
  for (const scene of input.scenes) {
    const prev = previous.get(scene.sceneId);
    if (!prev) {
      nodes.set(scene.sceneId, {
        sceneId: scene.sceneId,
        topicIds: scene.topicIds,
        keywords: scene.keywords,
        importance: 1,
        valence: 0.5,
        arousal: 0,
        emotionSet: false,
        createdAt: now,
        updatedAt: now,
        fadedAt: undefined,
      });
      changed.set(scene.sceneId, scene.stamp);
      counts.nodesAdded++;
    } else if (!sameList(prev.topicIds, scene.topicIds) || !sameList(prev.keywords, scene.keywords)) {
      const renewed = { ...prev, topicIds: scene.topicIds, keywords: scene.keywords, importance: 1 };
      nodes.set(scene.sceneId, { ...renewed, updatedAt: now, fadedAt: undefined });
      changed.set(scene.sceneId, scene.stamp);
      counts.nodesRenewed++;
    } else {
      nodes.set(scene.sceneId, decayNode(prev, now, counts));
    }
  }
  for (const node of input.nodes) if (!nodes.has(node.sceneId)) counts.nodesRemoved++;
  return { nodes, changed };
}

function decayNode(node: EngramNodeRow, now: number, counts: EngramCounts): EngramNodeRow {
  const elapsed = now - node.updatedAt;
  if (node.fadedAt !== undefined || elapsed < ENGRAM.decayStepMs) return node;
  const importance = decay(node.importance, nodeDecayRate(node.valence, node.arousal), elapsed);
  counts.nodesDecayed++;
  if (importance < ENGRAM.nodeFadeBelow) {
    counts.nodesFaded++;
    return { ...node, importance, updatedAt: now, fadedAt: now };
  }
  return { ...node, importance, updatedAt: now };
}

// The decay clock does not move here: an emotion estimate changes how fast a node will fade,
// not how much time has passed.
function applyEmotions(
  nodes: Map<string, EngramNodeRow>,
  emotions: EngramInput['emotions'],
  counts: EngramCounts,
): void {
  if (!emotions) return;
  for (const [sceneId, emotion] of emotions) {
    const node = nodes.get(sceneId);
    if (!node || node.emotionSet) continue;
    nodes.set(sceneId, { ...node, valence: emotion.valence, arousal: emotion.arousal, emotionSet: true });
    counts.nodesEmotionSet++;
  }
}

function planEdges(
  input: EngramInput,
  nodes: ReadonlyMap<string, EngramNodeRow>,
  changed: ReadonlyMap<string, string>,
  counts: EngramCounts,
): Map<string, EngramEdgeRow> {
  const { now } = input;
  const linkable = (id: string): boolean => {
    const node = nodes.get(id);
    return node !== undefined && node.fadedAt === undefined && node.importance >= ENGRAM.nodeEdgesBelow;
  };
  const similarity = (a: string, b: string): number =>
    keywordJaccard(nodes.get(a)?.keywords ?? [], nodes.get(b)?.keywords ?? []);
  const edges = new Map<string, EngramEdgeRow>();
  const seen = new Set<string>();
  for (const edge of input.edges) {
    seen.add(pairKey(edge.a, edge.b));
    const next = nextEdge(edge, linkable, changed, similarity, now, counts);
    if (next) edges.set(pairKey(edge.a, edge.b), next);
    else counts.edgesRemoved++;
  }
  for (const [a, b] of candidatePairs(nodes, changed, linkable)) {
    const key = pairKey(a, b);
    if (seen.has(key)) continue;
    seen.add(key);
    const weight = similarity(a, b);
    if (weight < ENGRAM.edgeSimilarityFloor) continue;
    const [lo, hi] = a < b ? [a, b] : [b, a];
    edges.set(key, { a: lo, b: hi, weight, createdAt: now, lastDecayAt: now });
    counts.edgesAdded++;
  }
  return edges;
}

function nextEdge(
  edge: EngramEdgeRow,
  linkable: (id: string) => boolean,
  changed: ReadonlyMap<string, string>,
  similarity: (a: string, b: string) => number,
  now: number,
  counts: EngramCounts,
): EngramEdgeRow | undefined {
  if (!linkable(edge.a) || !linkable(edge.b)) return undefined;
  if (changed.has(edge.a) || changed.has(edge.b)) {
    const weight = similarity(edge.a, edge.b);
    if (weight < ENGRAM.edgeSimilarityFloor) return undefined;
    counts.edgesUpdated++;
    return { ...edge, weight, lastDecayAt: now };
  }
  const elapsed = now - edge.lastDecayAt;
  if (elapsed < ENGRAM.decayStepMs) return edge;
  const weight = decay(edge.weight, ENGRAM.edgeDecayPerHour, elapsed);
  counts.edgesDecayed++;
  return weight < ENGRAM.edgeRemoveBelow ? undefined : { ...edge, weight, lastDecayAt: now };
}

/** Pairs (changed node, other live node) sharing at least one keyword, found through an inverted index. */
function* candidatePairs(
  nodes: ReadonlyMap<string, EngramNodeRow>,
  changed: ReadonlyMap<string, string>,
  linkable: (id: string) => boolean,
): Generator<[string, string]> {
  const postings = new Map<string, string[]>();
  for (const node of nodes.values()) {
    if (!linkable(node.sceneId)) continue;
    for (const keyword of node.keywords) {
      let list = postings.get(keyword);
      if (!list) postings.set(keyword, (list = []));
      list.push(node.sceneId);
    }
  }
  for (const sceneId of [...changed.keys()].sort()) {
    if (!linkable(sceneId)) continue;
    const others = new Set<string>();
    for (const keyword of nodes.get(sceneId)?.keywords ?? [])
      for (const other of postings.get(keyword) ?? []) if (other !== sceneId) others.add(other);
    for (const other of [...others].sort()) yield [sceneId, other];
  }
}

function sameNode(a: EngramNodeRow, b: EngramNodeRow): boolean {
  return (
    sameList(a.topicIds, b.topicIds) &&
    sameList(a.keywords, b.keywords) &&
    a.importance === b.importance &&
    a.valence === b.valence &&
    a.arousal === b.arousal &&
    a.emotionSet === b.emotionSet &&
    a.createdAt === b.createdAt &&
    a.updatedAt === b.updatedAt &&
    a.fadedAt === b.fadedAt
  );
}

function diffOf(
  input: EngramInput,
  nodes: ReadonlyMap<string, EngramNodeRow>,
  edges: ReadonlyMap<string, EngramEdgeRow>,
): EngramDiff {
  const previousNodes = new Map(input.nodes.map((node) => [node.sceneId, node]));
  const previousEdges = new Map(input.edges.map((edge) => [pairKey(edge.a, edge.b), edge]));
  const upsertNodes = [...nodes.values()].filter((node) => {
    const prev = previousNodes.get(node.sceneId);
    return !prev || !sameNode(prev, node);
  });
  const upsertEdges = [...edges.entries()]
    .filter(([key, edge]) => {
      const prev = previousEdges.get(key);
      return !prev || prev.weight !== edge.weight || prev.lastDecayAt !== edge.lastDecayAt;
    })
    .map(([, edge]) => edge);
  return {
    upsertNodes,
    deleteNodes: input.nodes.filter((node) => !nodes.has(node.sceneId)).map((node) => node.sceneId),
    upsertEdges,
    deleteEdges: input.edges
      .filter((edge) => !edges.has(pairKey(edge.a, edge.b)))
      .map((e) => ({ a: e.a, b: e.b })),
  };
}

/** Builds a scene's evidence from its turns' keyword lists. */
export function sceneEvidence(row: {
  readonly sceneId: string;
  readonly topics: readonly { readonly id: string; readonly keywords: readonly string[] }[];
  readonly stamp: string;
}): SceneEvidence {
  return {
    sceneId: row.sceneId,
    topicIds: row.topics.map((topic) => topic.id).sort(),
    keywords: sceneKeywords(row.topics.map((topic) => topic.keywords)),
    stamp: row.stamp,
  };
}
