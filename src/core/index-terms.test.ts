import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stem, tokenize } from './index-terms.js';
import { segmentCjk } from './text.js';

/** The full folding path (CJK segmentation, NFD, marks stripped, lower case) for any text. */
function folded(text: string): string[] {
  return (
    segmentCjk(text)
      .normalize('NFD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []
  );
}

describe('tokenize', () => {
  it('splits ASCII text as the full folding path does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 200 }), (text) => {
        expect(tokenize(text)).toEqual(folded(text));
      }),
      { numRuns: 500 },
    );
  });

  it('folds accents, case and CJK in any other text', () => {
    expect(tokenize('Crème BRÛLÉE, naïve café')).toEqual(['creme', 'brulee', 'naive', 'cafe']);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        expect(tokenize(text)).toEqual(folded(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('stem', () => {
  it('stems lower-case Latin words and leaves numbers and other scripts alone, the same on every call', () => {
    for (const round of [1, 2]) {
      expect(stem('running'), `round ${round}`).toBe('run');
      expect(stem('2024')).toBe('2024');
      expect(stem('東京')).toBe('東京');
      expect(stem('naïve')).toBe('naïve');
    }
  });
});
