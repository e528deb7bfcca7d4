/** The engram: a graph of an agent's related scenes, built only by Dream. */

/** One scene in the engram. */
export interface EngramNode {
  readonly sceneId: string;
  /** The scene's closed turns when Dream last looked (sorted). */
  readonly topicIds: readonly string[];
  /** Lower-cased union of those turns' keywords (sorted): what edges are computed from. */
  readonly keywords: readonly string[];
  /** 1 when the scene last changed, decaying since (as of `updatedAt`). */
  readonly importance: number;
  /** 0 very negative … 0.5 neutral … 1 very positive. */
  readonly valence: number;
  /** 0 calm … 1 excited. */
  readonly arousal: number;
  /** True once profile distillation gave this scene an emotion estimate (it is set once). */
  readonly emotionSet: boolean;
  readonly createdAt: number;
  /** The decay clock: when `importance` was last renewed or decayed. */
  readonly updatedAt: number;
}

/** A link between two scenes whose keyword sets overlap. */
export interface EngramEdge {
  /** The two scenes, `a < b`. */
  readonly a: string;
  readonly b: string;
  /** Jaccard similarity of their keyword sets when either last changed, decayed since. */
  readonly weight: number;
  readonly createdAt: number;
  readonly lastDecayAt: number;
}

/** The engram of an agent: its scenes and the links between them. Written only by Dream. */
export interface EngramGraph {
  /** Live nodes, oldest first. */
  readonly nodes: readonly EngramNode[];
  /** Edges, ordered by (a, b). */
  readonly edges: readonly EngramEdge[];
  /** Scenes whose node faded out (importance under 0.05); they return when the scene changes. */
  readonly fadedScenes: number;
}
