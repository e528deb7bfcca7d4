import type { EngramNodeRow } from '../../store/engram-repo.js';
import type { EngramGraph, EngramNode } from '../../core/model/engram.js';
import type { MemoryContext } from '../context.js';

const toNode = (row: EngramNodeRow): EngramNode => ({
  sceneId: row.sceneId,
  topicIds: row.topicIds,
  keywords: row.keywords,
  importance: row.importance,
  valence: row.valence,
  arousal: row.arousal,
  emotionSet: row.emotionSet,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

/** The agent's engram as Dream last wrote it; empty before the first Dream pass. */
export async function listEngram(context: MemoryContext): Promise<EngramGraph> {
  const { nodes, edges } = await context.store.read('listEngram', (tx) => tx.engram.list(context.agentId));
  const live = nodes.filter((node) => node.fadedAt === undefined);
  return {
    nodes: live.map(toNode),
    edges: edges.map((edge) => ({ ...edge })),
    fadedScenes: nodes.length - live.length,
  };
}
