import { describe, expect, it } from 'vitest';
import { inInsertionOrder, type Candidate } from './node-search.js';
import type { KnowledgeNode } from '../../core/model/knowledge.js';

const node = (id: string): KnowledgeNode => ({
  id,
  graphId: 'kg_1',
  title: id,
  type: '',
  content: '',
  keywords: [],
  observations: [],
  sourceRef: undefined,
  createdAt: 1,
  updatedAt: 1,
});

const candidate = (id: string, score: number): Candidate => ({ node: node(id), score, wordsOnly: false });

/** A repository whose insertion order is `order`; counts its reads. */
function repoInOrder(order: readonly string[]): {
  reads: number;
  nodesByIds(ids: readonly string[]): KnowledgeNode[];
} {
  const repo = {
    reads: 0,
    nodesByIds(ids: readonly string[]): KnowledgeNode[] {
      repo.reads++;
      return order.filter((id) => ids.includes(id)).map(node);
    },
  };
  return repo;
}

describe('inInsertionOrder', () => {
  it('reads nothing when every score sits in one list', async () => {
    const repo = repoInOrder(['c', 'a', 'b']);
    const lists = [[candidate('a', 2.5)], [candidate('b', 2), candidate('c', 2)]];
    expect(await inInsertionOrder(repo as never, lists)).toBeUndefined();
    expect(repo.reads).toBe(0);
  });

  it('orders by insertion when two lists share a score', async () => {
    const repo = repoInOrder(['c', 'a', 'b']);
    const lists = [[candidate('a', 2)], [candidate('b', 2), candidate('c', 1)]];
    const ordered = await inInsertionOrder(repo as never, lists);
    expect(ordered?.map((entry) => [entry.node.id, entry.score])).toEqual([
      ['c', 1],
      ['a', 2],
      ['b', 2],
    ]);
    expect(repo.reads).toBe(1);
  });
});
