import { describe, expect, it } from 'vitest';
import type { PlanNodeRow, PlanStatus } from '../../core/model/conversation.js';
import { buildForest, foldSummaries, subtreeSeqs } from './plan-tree.js';

const node = (
  seq: number,
  parentSeq: number,
  status: PlanStatus = 'in_progress',
  summary = '',
  folded = false,
): PlanNodeRow => ({
  topicId: 't',
  seq,
  parentSeq,
  status,
  title: '',
  summary,
  summaryFolded: folded,
  createdAt: seq,
  finishedAt: status === 'in_progress' ? undefined : seq,
  updatedAt: seq,
});

describe('plan trees', () => {
  it('builds a forest in seq order; orphans become roots; untitled steps show their seq', () => {
    const forest = buildForest([node(1, 0), node(2, 1), node(3, 1), node(5, 4), node(6, 0)]);
    expect(forest.map((n) => n.seq)).toEqual([1, 5, 6]);
    expect(forest[0]?.children.map((n) => n.seq)).toEqual([2, 3]);
    expect(forest[0]?.title).toBe('1');
  });

  it('selects a step and its whole subtree', () => {
    const nodes = [node(1, 0), node(2, 1), node(3, 2), node(4, 0), node(5, 3)];
    expect(subtreeSeqs(nodes, 2)).toEqual([2, 3, 5]);
    expect(subtreeSeqs(nodes, 4)).toEqual([4]);
    expect(subtreeSeqs(nodes, 9)).toEqual([9]);
  });

  it('folds bottom-up only done steps whose children are all finished', () => {
    const nodes = [
      node(1, 0, 'done'),
      node(2, 1, 'done'),
      node(3, 2, 'done', 'a'),
      node(4, 2, 'failed', 'b'),
      node(5, 1, 'done', 'c'),
    ];
    expect(foldSummaries(nodes)).toEqual([
      { seq: 2, summary: 'a; b' },
      { seq: 1, summary: 'a; b; c' },
    ]);
  });

  it('leaves host summaries, unfinished branches and settled folds alone', () => {
    expect(foldSummaries([node(1, 0, 'done', 'mine'), node(2, 1, 'done', 'x')])).toEqual([]);
    expect(foldSummaries([node(1, 0, 'done'), node(2, 1, 'in_progress', 'x')])).toEqual([]);
    expect(foldSummaries([node(1, 0, 'done', 'x', true), node(2, 1, 'done', 'x')])).toEqual([]);
    expect(foldSummaries([node(1, 0, 'done', 'old', true), node(2, 1, 'done', 'new')])).toEqual([
      { seq: 1, summary: 'new' },
    ]);
  });
});
