import {
  sceneEvidenceOf,
  stampOf,
  toEdge,
  toNode,
  type EngramDiff,
  type EngramEdgeRow,
  type EngramNodeRow,
  type RawEngramEdge,
  type RawEngramNode,
  type SceneEvidenceRow,
} from './engram-rows.js';
import type { Engine } from './engine.js';

export type { EngramDiff, EngramEdgeRow, EngramNodeRow, SceneEvidenceRow } from './engram-rows.js';

// count, newest close and keyword bytes of a scene's closed turns: moves on every change the
// engram depends on (a turn closing, moving between scenes, being deleted, getting keywords).
const STAMP_COLUMNS = `count(*) AS n, coalesce(max(closed_at), 0) AS c,
  CAST(total(length(CAST(keywords AS BLOB))) AS INTEGER) AS k`;

/**
 * The engram tables (`engram_nodes`, `engram_edges`): reads, and the writes Dream makes inside
 * its one apply transaction. Only Dream writes them (scene deletes and merges remove the rows of
 * the scenes they remove).
 */
export class EngramRepo {
  readonly #engine: Engine;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /** Every node (faded ones included) and edge of the agent, in one snapshot. */
  list(agentId: number): { nodes: EngramNodeRow[]; edges: EngramEdgeRow[] } {
    return this.#engine.read('listEngram', () => ({
      nodes: (
        this.#engine
          .statement('SELECT * FROM engram_nodes WHERE agent_id = ? ORDER BY created_at, scene_id')
          .pluck(false)
          .all(agentId) as RawEngramNode[]
      ).map(toNode),
      edges: (
        this.#engine
          .statement(
            'SELECT a, b, weight, created_at, last_decay_at FROM engram_edges WHERE agent_id = ? ORDER BY a, b',
          )
          .pluck(false)
          .all(agentId) as RawEngramEdge[]
      ).map(toEdge),
    }));
  }

  /** The closed turns of each of the agent's scenes, with their keywords and the scene's stamp. */
  sceneEvidence(agentId: number): SceneEvidenceRow[] {
    return this.#engine.read('engram evidence', () => {
      const stamps = this.#engine
        .statement(
          `SELECT scene_id, ${STAMP_COLUMNS} FROM topics
           WHERE agent_id = ? AND kind = 'turn' AND status = 'closed' GROUP BY scene_id`,
        )
        .pluck(false)
        .all(agentId) as { scene_id: string; n: number; c: number; k: number }[];
      const rows = this.#engine
        .statement(
          `SELECT scene_id, id, keywords FROM topics
           WHERE agent_id = ? AND kind = 'turn' AND status = 'closed' ORDER BY scene_id, user_ts, id`,
        )
        .pluck(false)
        .all(agentId) as { scene_id: string; id: string; keywords: string }[];
      return sceneEvidenceOf(stamps, rows);
    });
  }

  /** The stamp of one scene now (see {@link SceneEvidenceRow.stamp}); call inside a transaction. */
  sceneStamp(sceneId: string): string {
    const row = this.#engine
      .statement(
        `SELECT ${STAMP_COLUMNS} FROM topics WHERE scene_id = ? AND kind = 'turn' AND status = 'closed'`,
      )
      .pluck(false)
      .get(sceneId) as { n: number; c: number; k: number };
    return stampOf(row);
  }

  /** Current rows of the given nodes and edges (for undo's before-state); call inside a transaction. */
  rowsOf(
    agentId: number,
    sceneIds: readonly string[],
    pairs: readonly { readonly a: string; readonly b: string }[],
  ): { nodes: Map<string, EngramNodeRow>; edges: Map<string, EngramEdgeRow> } {
    const nodes = new Map<string, EngramNodeRow>();
    if (sceneIds.length > 0) {
      const rows = this.#engine
        .statement(
          'SELECT * FROM engram_nodes WHERE agent_id = ? AND scene_id IN (SELECT value FROM json_each(?))',
        )
        .pluck(false)
        .all(agentId, JSON.stringify(sceneIds)) as RawEngramNode[];
      for (const row of rows) nodes.set(row.scene_id, toNode(row));
    }
    const edges = new Map<string, EngramEdgeRow>();
    for (const pair of pairs) {
      const row = this.#engine
        .statement(
          'SELECT a, b, weight, created_at, last_decay_at FROM engram_edges WHERE agent_id = ? AND a = ? AND b = ?',
        )
        .pluck(false)
        .get(agentId, pair.a, pair.b) as RawEngramEdge | undefined;
      if (row) edges.set(`${row.a}\u0000${row.b}`, toEdge(row));
    }
    return { nodes, edges };
  }

  /** Writes `diff` (must run inside a write transaction). */
  write(agentId: number, diff: EngramDiff): void {
    for (const sceneId of diff.deleteNodes) {
      this.#engine
        .statement('DELETE FROM engram_nodes WHERE agent_id = ? AND scene_id = ?')
        .run(agentId, sceneId);
    }
    for (const edge of diff.deleteEdges) {
      this.#engine
        .statement('DELETE FROM engram_edges WHERE agent_id = ? AND a = ? AND b = ?')
        .run(agentId, edge.a, edge.b);
    }
    for (const node of diff.upsertNodes) this.#upsertNode(agentId, node);
    for (const edge of diff.upsertEdges) this.#upsertEdge(agentId, edge);
  }

  #upsertNode(agentId: number, node: EngramNodeRow): void {
    this.#engine
      .statement(
        `INSERT INTO engram_nodes (scene_id, agent_id, topic_ids, keywords, importance, valence, arousal,
           emotion_set, created_at, updated_at, faded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (scene_id) DO UPDATE SET topic_ids = excluded.topic_ids, keywords = excluded.keywords,
           importance = excluded.importance, valence = excluded.valence, arousal = excluded.arousal,
           emotion_set = excluded.emotion_set, created_at = excluded.created_at,
           updated_at = excluded.updated_at, faded_at = excluded.faded_at`,
      )
      .run(
        node.sceneId,
        agentId,
        JSON.stringify(node.topicIds),
        JSON.stringify(node.keywords),
        node.importance,
        node.valence,
        node.arousal,
        node.emotionSet ? 1 : 0,
        node.createdAt,
        node.updatedAt,
        node.fadedAt ?? null,
      );
  }

  #upsertEdge(agentId: number, edge: EngramEdgeRow): void {
    this.#engine
      .statement(
        `INSERT INTO engram_edges (agent_id, a, b, weight, created_at, last_decay_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (a, b) DO UPDATE SET weight = excluded.weight, created_at = excluded.created_at,
           last_decay_at = excluded.last_decay_at`,
      )
      .run(agentId, edge.a, edge.b, edge.weight, edge.createdAt, edge.lastDecayAt);
  }

  /** Ids of the agent's scenes that still exist, among `sceneIds` (call inside a transaction). */
  existingScenes(agentId: number, sceneIds: readonly string[]): Set<string> {
    if (sceneIds.length === 0) return new Set();
    const ids = this.#engine
      .statement('SELECT id FROM scenes WHERE agent_id = ? AND id IN (SELECT value FROM json_each(?))')
      .pluck(true)
      .all(agentId, JSON.stringify(sceneIds)) as string[];
    return new Set(ids);
  }
}
