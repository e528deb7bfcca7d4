import { describe, expect, it } from 'vitest';
import type { SurfaceTopicRow } from '../../store/dream-repo.js';
import { acceptGroups, RECONSTRUCTION_CHARS } from './compress.js';

const topic = (id: string, kind: 'turn' | 'fused' = 'turn', keywords = [`kw-${id}`]): SurfaceTopicRow => ({
  id,
  kind,
  keywords,
  userTs: 1,
  agentTs: 2,
  fingerprint: id,
  text: '',
});

const surface = [topic('a'), topic('b'), topic('c'), topic('F', 'fused'), topic('d'), topic('e')];

describe('acceptGroups', () => {
  it('keeps adjacent groups of turns in surface order and appends missing member keywords', () => {
    const { accepted, rejected } = acceptGroups(surface, [
      { topicIds: ['b', 'a'], mergedSummary: ' kw-a and more ' },
      { topicIds: ['d', 'e'], mergedSummary: 'kw-d kw-e' },
    ]);
    expect(rejected).toEqual([]);
    expect(accepted.map((g) => g.members.map((m) => m.id))).toEqual([
      ['a', 'b'],
      ['d', 'e'],
    ]);
    expect(accepted[0]?.summary).toBe('kw-a and more\nKeywords: kw-b.');
    expect(accepted[1]?.summary).toBe('kw-d kw-e');
  });

  it('refuses every kind of unusable group, each with its reason', () => {
    const { accepted, rejected } = acceptGroups(surface, [
      null,
      { topicIds: 'a,b', mergedSummary: 'x' },
      { topicIds: ['a', 'b'], mergedSummary: '  ' },
      { topicIds: ['a', 'a'], mergedSummary: 'x' },
      { topicIds: ['a', 'zzz'], mergedSummary: 'x' },
      { topicIds: ['a', 'c'], mergedSummary: 'x' },
      { topicIds: ['c', 'F'], mergedSummary: 'x' },
      { topicIds: ['c', 'd'], mergedSummary: 'x' },
      { topicIds: ['b', 'c'], mergedSummary: 'fine' },
      { topicIds: ['c', 'b'], mergedSummary: 'again' },
    ]);
    expect(accepted.map((g) => g.members.map((m) => m.id))).toEqual([['b', 'c']]);
    expect(rejected).toEqual([
      'group 1: not an object',
      'group 2: topicIds is not a list of ids',
      'group 3: the reconstruction is empty',
      'group 4: fewer than two topics',
      "group 5: zzz is not a topic on this scene's surface",
      'group 6: the topics are not adjacent',
      'group 7: a fused topic cannot be fused again',
      'group 8: the topics are not adjacent',
      'group 10: c is already in another group',
    ]);
    expect(acceptGroups(surface, { groups: [] })).toEqual({
      accepted: [],
      rejected: ['the grouping reply is not a list'],
    });
  });

  it('bounds a runaway reconstruction but still keeps every member keyword', () => {
    const { accepted } = acceptGroups(surface, [
      { topicIds: ['d', 'e'], mergedSummary: 'word '.repeat(10_000) },
    ]);
    const summary = accepted[0]?.summary ?? '';
    expect(summary.length).toBeLessThan(RECONSTRUCTION_CHARS + 100);
    expect(summary.endsWith('Keywords: kw-d, kw-e.')).toBe(true);
  });
});
