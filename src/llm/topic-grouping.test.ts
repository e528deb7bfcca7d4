import { describe, expect, it } from 'vitest';
import { appendMissingKeywords, groupAdjacentTopics, jaccard } from './topic-grouping.js';

const db = ['postgres', 'migration', 'billing'];

describe('groupAdjacentTopics', () => {
  it('fuses adjacent topics of one subject, stopping at the target', () => {
    const topics = [
      { id: 'a', keywords: db },
      { id: 'b', keywords: [...db, 'downtime'] },
      { id: 'c', keywords: [...db, 'rollback'] },
      { id: 'd', keywords: ['lunch', 'pizza'] },
    ];
    expect(groupAdjacentTopics(topics, 1).map((g) => g.topicIds)).toEqual([['a', 'b', 'c']]);
    expect(groupAdjacentTopics(topics, 3).map((g) => g.topicIds)).toEqual([['a', 'b']]);
    expect(groupAdjacentTopics(topics, 4)).toEqual([]);
  });

  it('never chains two different subjects through a middle topic', () => {
    const topics = [
      { id: 'a', keywords: ['postgres', 'migration'] },
      { id: 'b', keywords: ['postgres', 'migration', 'holiday', 'flights'] },
      { id: 'c', keywords: ['holiday', 'flights'] },
    ];
    const groups = groupAdjacentTopics(topics, 1).map((g) => g.topicIds);
    expect(groups.some((ids) => ids.includes('a') && ids.includes('c'))).toBe(false);
  });

  it('never groups topics without keywords or non-adjacent ones', () => {
    expect(
      groupAdjacentTopics(
        [
          { id: 'a', keywords: [] },
          { id: 'b', keywords: [] },
        ],
        1,
      ),
    ).toEqual([]);
    const split = [
      { id: 'a', keywords: db },
      { id: 'x', keywords: ['lunch'] },
      { id: 'b', keywords: db },
    ];
    expect(groupAdjacentTopics(split, 1)).toEqual([]);
  });

  it('writes a reconstruction holding every member keyword and the members’ dialogue', () => {
    const [group] = groupAdjacentTopics(
      [
        { id: 'a', keywords: ['Postgres 16', 'migration'], text: 'We plan the Postgres 16 migration.' },
        { id: 'b', keywords: ['Postgres', 'migration', 'rollback plan'] },
      ],
      1,
    );
    expect(group!.mergedSummary).toContain('We plan the Postgres 16 migration.');
    expect(group!.mergedSummary).toContain('rollback plan');
  });

  it('computes Jaccard similarity', () => {
    expect(jaccard(new Set(['a', 'b']), new Set(['b', 'c']))).toBeCloseTo(1 / 3);
    expect(jaccard(new Set(), new Set(['a']))).toBe(0);
    expect(appendMissingKeywords('Has alpha.', [{ id: 'x', keywords: ['Alpha', 'beta', 'beta'] }])).toBe(
      'Has alpha.\nKeywords: beta.',
    );
  });
});
