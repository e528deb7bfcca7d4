import { describe, expect, it } from 'vitest';
import { isSubjectKeyword, rankSceneKeywords } from './radial-service.js';

describe('rankSceneKeywords', () => {
  it('ranks by how many turns use a keyword, then by how recently', () => {
    const turns = [
      ['replica lag', 'alert', 'Good'],
      ['alert', 'threshold', 'today'],
      ['pager', 'alert', "You're"],
      ['threshold', 'welcome'],
      ['runbook', 'pager'],
    ];
    expect(rankSceneKeywords(turns)).toEqual(['alert', 'pager', 'threshold', 'runbook', 'replica lag']);
  });

  it('shows a keyword in lower case when any turn wrote it so, whichever form came last', () => {
    const turns = [
      ['migration', 'Postgres'],
      ['Migration', 'postgres upgrade'],
      ['Migration', 'Postgres'],
    ];
    expect(rankSceneKeywords(turns)).toEqual(['migration', 'Postgres', 'postgres upgrade']);
    expect(rankSceneKeywords([['Migration'], ['Migration']])).toEqual(['Migration']);
  });

  it('leaves out filler, stop words and bare short numbers', () => {
    for (const word of ['Good', 'today', "You're", 'welcome', 'the', '1', '42', 'x'])
      expect(isSubjectKeyword(word), word).toBe(false);
    for (const word of ['replica lag', 'cache:user:42', 'INC-2291', '2024', 'pyarrow'])
      expect(isSubjectKeyword(word), word).toBe(true);
  });
});
