import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../core/index-terms.js';
import { indexText, lexemeOf } from './fts.js';

/** The vector as first written: every token stemmed in turn, positions 1..tf (at most 256). */
function plainVector(text: string): { vector: string; length: number; heavy: string | null } {
  const tokens = tokenize(text);
  const counts = new Map<string, number>();
  for (const token of tokens) {
    const lexeme = lexemeOf(token);
    counts.set(lexeme, (counts.get(lexeme) ?? 0) + 1);
  }
  const heavy: Record<string, number> = {};
  const parts = [...counts].map(([lexeme, count]) => {
    if (count > 256) heavy[lexeme] = count;
    const quoted = `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
    return `${quoted}:${Array.from({ length: Math.min(count, 256) }, (_, i) => i + 1).join(',')}`;
  });
  const anyHeavy = Object.keys(heavy).length > 0;
  return { vector: parts.join(' '), length: tokens.length, heavy: anyHeavy ? JSON.stringify(heavy) : null };
}

describe('indexText', () => {
  it('counts each lexeme over all the words that stem to it, in order of first occurrence', () => {
    expect(indexText("Running runs; the runner ran. RUN it's l'été")).toEqual({
      vector: "'run':1,2,3 'the':1 'runner':1 'ran':1 'it':1 's':1 'l':1 'et':1",
      length: 10,
      heavy: null,
    });
  });

  it('keeps 256 positions of a frequent word and its full count aside', () => {
    const indexed = indexText(`${'cache '.repeat(300)}miss`);
    expect(indexed.vector.startsWith(`'cach':1,2,3,`)).toBe(true);
    expect(indexed.vector.endsWith(`,255,256 'miss':1`)).toBe(true);
    expect(indexed.heavy).toBe('{"cach":300}');
    expect(indexed.length).toBe(301);
  });

  it('writes the same vector as stemming every token in turn, on any text', () => {
    const word = fc.constantFrom(
      'run',
      'Running',
      'runs',
      'cache',
      'caches',
      "it's",
      "O'Brien",
      'a\\b',
      '数据库',
      'café',
      '42',
      'x',
      // Past the lengths where a lexeme's bytes must be counted (683 units) and where it is cut and hashed.
      'y'.repeat(683),
      'ж'.repeat(700),
      'ж'.repeat(1100),
      'z'.repeat(2100),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(word, fc.string({ maxLength: 12 })), { maxLength: 80 }), (words) => {
        const text = words.join(' ');
        expect(indexText(text)).toEqual(plainVector(text));
      }),
    );
  });
});
