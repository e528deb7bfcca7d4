import { describe, expect, it } from 'vitest';
import { appendMissingKeywords, groupAdjacentTopics, jaccard, segmentBoundaries } from './topic-grouping.js';

describe('groupAdjacentTopics', () => {
  // A synthetic working session: three subjects of five turns each. Every turn shares only a word
  // or two with its neighbours, each subject's first turn refers back to the one before, and a
  // few words ("service", "deploy") run through all of it, as in a real conversation.
  const subjects = [
    ['postgres', 'replica', 'lag', 'vacuum', 'wal', 'checkpoint'],
    ['invoice', 'stripe', 'webhook', 'refund', 'currency', 'ledger'],
    ['onboarding', 'tooltip', 'signup', 'copy', 'illustration', 'funnel'],
  ];
  const turn = (s: number, t: number): string => {
    const own = subjects[s]!;
    const words = [
      own[t % 6],
      own[(t + 1) % 6],
      own[(t + 3) % 6],
      'service',
      t % 2 === 0 ? 'deploy' : 'team',
    ];
    if (t === 0 && s > 0) words.push(subjects[s - 1]![0]!); // refers back to the previous subject
    return `user: what about the ${words.slice(0, 2).join(' and ')}?\nagent: the ${words.join(', ')} are fine.`;
  };
  const conversation = subjects.flatMap((_, s) =>
    Array.from({ length: 5 }, (__, t) => ({ id: `s${s}t${t}`, keywords: [], text: turn(s, t) })),
  );

  it('finds the subject changes where similarity dips between neighbours', () => {
    expect(segmentBoundaries(conversation)).toEqual([0, 5, 10]);
    const groups = groupAdjacentTopics(conversation, 1).map((g) => g.topicIds);
    expect(groups).toEqual(subjects.map((_, s) => Array.from({ length: 5 }, (__, t) => `s${s}t${t}`)));
  });

  it('does not depend on a fixed overlap: the same dips are found with twice the shared words', () => {
    const noisy = conversation.map((topic) => ({
      ...topic,
      text: `${topic.text}\nagent: service team deploy notes`,
    }));
    expect(segmentBoundaries(noisy)).toEqual([0, 5, 10]);
  });

  it('leaves a scene under its floor alone, groups one at it, and never fuses across a boundary to reach it', () => {
    expect(groupAdjacentTopics(conversation, conversation.length + 1)).toEqual([]);
    // Dream compresses a scene from `compressMinTopics` topics on, that many included.
    expect(groupAdjacentTopics(conversation, conversation.length)).toHaveLength(3);
    expect(groupAdjacentTopics(conversation.slice(0, 1), 0)).toEqual([]);
    expect(groupAdjacentTopics(conversation, 1)).toHaveLength(3);
  });

  it('never joins neighbours that share no word, nor turns without words', () => {
    const topics = [
      { id: 'a', keywords: ['postgres', 'migration'] },
      { id: 'b', keywords: ['postgres', 'migration', 'rollback'] },
      { id: 'c', keywords: ['holiday', 'flights'] },
      { id: 'd', keywords: ['holiday', 'flights', 'hotel'] },
      { id: 'e', keywords: [] },
      { id: 'f', keywords: [] },
    ];
    expect(groupAdjacentTopics(topics, 1).map((g) => g.topicIds)).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
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
