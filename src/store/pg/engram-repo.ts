import type { EngramRepo } from '../engram-repo.js';
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
} from '../engram-rows.js';
import type { Repository } from '../seam.js';
import type { PgQuery } from './pg-query.js';
import { all, one, run } from './rows.js';

// count, newest close and keyword bytes of a scene's closed turns (as on SQLite: octet_length is
// the UTF-8 byte length SQLite's length(CAST(… AS BLOB)) measures).
const STAMP_COLUMNS = `count(*)::integer AS n, coalesce(max(closed_at), 0) AS c,
  coalesce(sum(octet_length(keywords)), 0)::bigint AS k`;

type RawStamp = { n: number; c: string | number; k: string | number };
const stamp = (row: RawStamp): { n: number; c: number; k: number } => ({
  n: row.n,
  c: Number(row.c),
  k: Number(row.k),
});

const NODE_COLUMNS = `scene_id, topic_ids, keywords, importance, valence, arousal, emotion_set, created_at,
  updated_at, faded_at`;

/**
 * The engram tables in PostgreSQL: the same calls and results as {@link EngramRepo}. Writes run
 * inside Dream's apply transaction, which holds the agent's lock.
 */
export class PgEngramRepo implements Repository<EngramRepo> {
  readonly #db: PgQuery;

  constructor(db: PgQuery) {
    this.#db = db;
  }

  /** See {@link EngramRepo.list}. */
  async list(agentId: number): Promise<{ nodes: EngramNodeRow[]; edges: EngramEdgeRow[] }> {
    const nodes = await all<RawEngramNode>(
      this.#db,
      `SELECT ${NODE_COLUMNS} FROM engram_nodes WHERE agent_id = $1 ORDER BY created_at, scene_id`,
      [agentId],
    );
    const edges = await all<RawEngramEdge>(
      this.#db,
      'SELECT a, b, weight, created_at, last_decay_at FROM engram_edges WHERE agent_id = $1 ORDER BY a, b',
      [agentId],
    );
    return { nodes: nodes.map(toNode), edges: edges.map(toEdge) };
  }

  /**
   * See {@link EngramRepo.sceneEvidence}. Scenes come in id order (SQLite's grouping yields that
   * order; PostgreSQL's needs the ORDER BY).
   */
  async sceneEvidence(agentId: number): Promise<SceneEvidenceRow[]> {
    const stamps = await all<RawStamp & { scene_id: string }>(
      this.#db,
      `SELECT scene_id, ${STAMP_COLUMNS} FROM topics
       WHERE agent_id = $1 AND kind = 'turn' AND status = 'closed' GROUP BY scene_id ORDER BY scene_id`,
      [agentId],
    );
    const rows = await all<{ scene_id: string; id: string; keywords: string }>(
      this.#db,
      `SELECT scene_id, id, keywords FROM topics
       WHERE agent_id = $1 AND kind = 'turn' AND status = 'closed' ORDER BY scene_id, user_ts NULLS FIRST, id`,
      [agentId],
    );
    return sceneEvidenceOf(
      stamps.map((row) => ({ scene_id: row.scene_id, ...stamp(row) })),
      rows,
    );
  }

  /** See {@link EngramRepo.sceneStamp}. */
  async sceneStamp(sceneId: string): Promise<string> {
    const row = (await one<RawStamp>(
      this.#db,
      `SELECT ${STAMP_COLUMNS} FROM topics WHERE scene_id = $1 AND kind = 'turn' AND status = 'closed'`,
      [sceneId],
    )) as RawStamp;
    return stampOf(stamp(row));
  }

  /** See {@link EngramRepo.rowsOf}. */
  async rowsOf(
    agentId: number,
    sceneIds: readonly string[],
    pairs: readonly { readonly a: string; readonly b: string }[],
  ): Promise<{ nodes: Map<string, EngramNodeRow>; edges: Map<string, EngramEdgeRow> }> {
    const nodes = new Map<string, EngramNodeRow>();
    if (sceneIds.length > 0) {
      const rows = await all<RawEngramNode>(
        this.#db,
        `SELECT ${NODE_COLUMNS} FROM engram_nodes WHERE agent_id = $1 AND scene_id = ANY($2::text[])
         ORDER BY scene_id`,
        [agentId, [...sceneIds]],
      );
      for (const row of rows) nodes.set(row.scene_id, toNode(row));
    }
    const edges = new Map<string, EngramEdgeRow>();
    for (const pair of pairs) {
      const row = await one<RawEngramEdge>(
        this.#db,
        'SELECT a, b, weight, created_at, last_decay_at FROM engram_edges WHERE agent_id = $1 AND a = $2 AND b = $3',
        [agentId, pair.a, pair.b],
      );
      if (row) edges.set(`${row.a}\u0000${row.b}`, toEdge(row));
    }
    return { nodes, edges };
  }

  /** See {@link EngramRepo.write}. */
  async write(agentId: number, diff: EngramDiff): Promise<void> {
    for (const sceneId of diff.deleteNodes)
      await run(this.#db, 'DELETE FROM engram_nodes WHERE agent_id = $1 AND scene_id = $2', [
        agentId,
        sceneId,
      ]);
    for (const edge of diff.deleteEdges)
      await run(this.#db, 'DELETE FROM engram_edges WHERE agent_id = $1 AND a = $2 AND b = $3', [
        agentId,
        edge.a,
        edge.b,
      ]);
    for (const node of diff.upsertNodes) await this.#upsertNode(agentId, node);
    for (const edge of diff.upsertEdges) await this.#upsertEdge(agentId, edge);
  }

  async #upsertNode(agentId: number, node: EngramNodeRow): Promise<void> {
    await run(
      this.#db,
      `INSERT INTO engram_nodes (scene_id, agent_id, topic_ids, keywords, importance, valence, arousal,
         emotion_set, created_at, updated_at, faded_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (scene_id) DO UPDATE SET topic_ids = excluded.topic_ids, keywords = excluded.keywords,
         importance = excluded.importance, valence = excluded.valence, arousal = excluded.arousal,
         emotion_set = excluded.emotion_set, created_at = excluded.created_at,
         updated_at = excluded.updated_at, faded_at = excluded.faded_at`,
      [
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
      ],
    );
  }

  async #upsertEdge(agentId: number, edge: EngramEdgeRow): Promise<void> {
    await run(
      this.#db,
      `INSERT INTO engram_edges (agent_id, a, b, weight, created_at, last_decay_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (a, b) DO UPDATE SET weight = excluded.weight, created_at = excluded.created_at,
         last_decay_at = excluded.last_decay_at`,
      [agentId, edge.a, edge.b, edge.weight, edge.createdAt, edge.lastDecayAt],
    );
  }

  /** See {@link EngramRepo.existingScenes}. */
  async existingScenes(agentId: number, sceneIds: readonly string[]): Promise<Set<string>> {
    if (sceneIds.length === 0) return new Set();
    const rows = await all<{ id: string }>(
      this.#db,
      'SELECT id FROM scenes WHERE agent_id = $1 AND id = ANY($2::text[]) ORDER BY id',
      [agentId, [...sceneIds]],
    );
    return new Set(rows.map((row) => row.id));
  }
}
