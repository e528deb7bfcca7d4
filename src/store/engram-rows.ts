import type { EngramEdge, EngramNode } from '../core/model/engram.js';
import { parseStringList } from './conversation-rows.js';

/* Engram rows and their mapping to the records Dream and the engram graph use (engine-neutral: no SQL). */

/** One engram node as stored: the public node plus when it faded out of the graph. */
export interface EngramNodeRow extends EngramNode {
  /** Set when the importance fell below the removal threshold: the node left the graph. */
  readonly fadedAt: number | undefined;
}

/** One engram edge as stored (`a < b`). */
export type EngramEdgeRow = EngramEdge;

/** What the engram is built from: one scene's closed turns and their keywords. */
export interface SceneEvidenceRow {
  readonly sceneId: string;
  readonly topics: readonly { readonly id: string; readonly keywords: readonly string[] }[];
  /** Changes whenever a turn of the scene closes, moves, is deleted or gets its keywords. */
  readonly stamp: string;
}

/** Changes to write to an agent's engram; `before` is what undo restores. */
export interface EngramDiff {
  readonly upsertNodes: readonly EngramNodeRow[];
  readonly deleteNodes: readonly string[];
  readonly upsertEdges: readonly EngramEdgeRow[];
  readonly deleteEdges: readonly { readonly a: string; readonly b: string }[];
}

export interface RawEngramNode {
  scene_id: string;
  topic_ids: string;
  keywords: string;
  importance: number;
  valence: number;
  arousal: number;
  emotion_set: number;
  created_at: number;
  updated_at: number;
  faded_at: number | null;
}

export interface RawEngramEdge {
  a: string;
  b: string;
  weight: number;
  created_at: number;
  last_decay_at: number;
}

export const toNode = (row: RawEngramNode): EngramNodeRow => ({
  sceneId: row.scene_id,
  topicIds: parseStringList(row.topic_ids),
  keywords: parseStringList(row.keywords),
  importance: row.importance,
  valence: row.valence,
  arousal: row.arousal,
  emotionSet: row.emotion_set === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  fadedAt: row.faded_at ?? undefined,
});

export const toEdge = (row: RawEngramEdge): EngramEdgeRow => ({
  a: row.a,
  b: row.b,
  weight: row.weight,
  createdAt: row.created_at,
  lastDecayAt: row.last_decay_at,
});

/** A scene's stamp from its closed turns' count, newest close and keyword bytes. */
export const stampOf = (row: { n: number; c: number; k: number }): string => `${row.n}:${row.c}:${row.k}`;

/** Groups closed turns (ordered by scene, user_ts, id) under their scenes' stamps. */
export function sceneEvidenceOf(
  stamps: readonly { scene_id: string; n: number; c: number; k: number }[],
  rows: readonly { scene_id: string; id: string; keywords: string }[],
): SceneEvidenceRow[] {
  const topics = new Map<string, { id: string; keywords: string[] }[]>();
  for (const row of rows) {
    let list = topics.get(row.scene_id);
    if (!list) topics.set(row.scene_id, (list = []));
    list.push({ id: row.id, keywords: parseStringList(row.keywords) });
  }
  return stamps.map((row) => ({
    sceneId: row.scene_id,
    topics: topics.get(row.scene_id) ?? [],
    stamp: stampOf(row),
  }));
}
