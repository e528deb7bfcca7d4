import { describe, expect, it } from 'vitest';
import { LEVELS, levelAtDistance, levelName, levelNumber } from './levels.js';

describe('detail levels', () => {
  it('has the five levels with their caps', () => {
    expect(LEVELS.map((l) => [l.level, l.name, l.maxChars])).toEqual([
      [0, 'origin', 80],
      [1, 'brief', 200],
      [2, 'summary', 600],
      [3, 'detailed', 1800],
      [4, 'full', undefined],
    ]);
    expect(levelName(2)).toBe('summary');
    expect(levelNumber('full')).toBe(4);
  });

  it('drops one level per doubling of distance', () => {
    const rows = [0, 1, 2, 3, 4, 5, 7, 8, 9, 100].map((d) => levelAtDistance(3, d));
    expect(rows).toEqual([3, 2, 1, 1, 0, 0, 0, undefined, undefined, undefined]);
    expect(levelAtDistance(0, 0)).toBe(0);
    expect(levelAtDistance(0, 1)).toBeUndefined();
    for (let d = 0; d < 1000; d++) {
      const here = levelAtDistance(4, d) ?? -1;
      const further = levelAtDistance(4, d + 1) ?? -1;
      expect(further).toBeLessThanOrEqual(here);
    }
  });
});
