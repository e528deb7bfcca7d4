import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength } from '../core/text.js';
import { chunkText } from './chunk-text.js';

describe('chunkText', () => {
  it('cuts after a sentence end in the second half of the window', () => {
    expect(chunkText('One two three. Four five six. Seven.', 20)).toEqual([
      'One two three.',
      'Four five six.',
      'Seven.',
    ]);
    expect(chunkText('short', 20)).toEqual(['short']);
    expect(chunkText('', 20)).toEqual([]);
  });

  it('keeps every piece within the limit, loses no text and splits no surrogate pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 500 }),
        fc.integer({ min: 2, max: 60 }),
        (text, max) => {
          const chunks = chunkText(text, max);
          for (const c of chunks) expect(codePointLength(c)).toBeLessThanOrEqual(max);
          expect(chunks.join('').replace(/\s/gu, '')).toBe(text.replace(/\s/gu, ''));
        },
      ),
    );
  });
});
