import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eachStemFound, stem, stemLookup, tokenize } from './index-terms.js';
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

/** Words built from the pieces Porter's rules look at (short stems, doubled consonants, every rewritten ending). */
const porterWord = fc
  .tuple(
    fc.constantFrom('', 'y', 'a', 'e', 'i', 's', 'b', 'tr', 'st', 'ie'),
    fc.array(fc.constantFrom('a', 'e', 'i', 'o', 'u', 'y', 'b', 'c', 'l', 's', 't', 'z', 'ss', 'll', 'tt'), {
      maxLength: 4,
    }),
    fc.constantFrom(
      ...['', 's', 'es', 'ies', 'sses', 'ss', 'eed', 'ed', 'ing', 'y', 'at', 'bl', 'iz', 'e', 'ational'],
      ...['tional', 'enci', 'anci', 'izer', 'bli', 'alli', 'entli', 'eli', 'ousli', 'ization', 'ation'],
      ...['ator', 'alism', 'iveness', 'fulness', 'ousness', 'aliti', 'iviti', 'biliti', 'logi', 'icate'],
      ...['ative', 'alize', 'iciti', 'ical', 'ful', 'ness', 'al', 'ance', 'ence', 'er', 'ic', 'able'],
      ...[
        'ible',
        'ant',
        'ement',
        'ment',
        'ent',
        'ou',
        'ism',
        'ate',
        'iti',
        'ous',
        'ive',
        'ize',
        'sion',
        'tion',
      ],
    ),
  )
  .map(([head, middle, ending]) => head + middle.join('') + ending)
  .filter((word) => word.length > 0);

describe('stemLookup', () => {
  it('finds a token exactly when its stem is one of the stems looked for', () => {
    const token = fc.oneof(
      porterWord,
      fc.stringMatching(/^[a-z0-9]{1,12}$/u),
      fc.constantFrom('東京', 'naïve', '2024'),
    );
    fc.assert(
      fc.property(
        fc.array(token, { minLength: 1, maxLength: 6 }),
        fc.array(token, { maxLength: 40 }),
        (query, text) => {
          const stems = new Set(query.map(stem));
          const lookup = stemLookup(stems);
          for (const word of [...text, ...query]) {
            const stemmed = stem(word);
            expect(lookup(word), word).toBe(stems.has(stemmed) ? stemmed : undefined);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('keeps the first character of every token it stems (what lets it skip the others unstemmed)', () => {
    for (const word of ['ies', 'yes', 'sses', 'eed', 'ying', 'agreed', 'ization', 'able', 'ate']) {
      expect(stem(word).charAt(0), word).toBe(word.charAt(0));
    }
    expect(stemLookup([stem('ties')])('ties')).toBe(stem('ties'));
    expect(stemLookup(['agre'])('agreed')).toBe('agre');
    expect(stemLookup(['run'])('running')).toBe('run');
    expect(stemLookup(['run'])('runner')).toBeUndefined();
  });
});

describe('eachStemFound', () => {
  /** What it must equal: every token of the text, looked up. */
  const expected = (text: string, lookup: ReturnType<typeof stemLookup>): string[] =>
    tokenize(text).flatMap((token) => lookup(token) ?? []);
  const found = (text: string, lookup: ReturnType<typeof stemLookup>): string[] => {
    const out: string[] = [];
    eachStemFound(text, lookup, (stemmed) => out.push(stemmed));
    return out;
  };

  it('finds the stems the tokens of a text give, in order, in ASCII and in any other text', () => {
    const word = fc.oneof(porterWord, fc.stringMatching(/^[A-Za-z0-9]{1,10}$/u));
    const separator = fc.constantFrom(
      ' ',
      ', ',
      '\n',
      '\t',
      '-',
      "'",
      ': ',
      '.',
      '_',
      '\u0000',
      'é',
      '東京 ',
    );
    const text = fc
      .array(fc.tuple(word, separator, fc.boolean()), { maxLength: 30 })
      .map((parts) =>
        parts.map(([w, sep, upper]) => (upper ? w.charAt(0).toUpperCase() + w.slice(1) : w) + sep).join(''),
      );
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 5 }), text, (query, body) => {
        const lookup = stemLookup(query.map((w) => stem(w.toLowerCase())));
        expect(found(body, lookup)).toEqual(expected(body, lookup));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.string({ unit: 'binary-ascii', maxLength: 200 }),
        (query, body) => {
          const lookup = stemLookup(query.map((w) => stem(w.toLowerCase())));
          expect(found(body, lookup)).toEqual(expected(body, lookup));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('reads upper-case words, digits and words at either end of the text', () => {
    const lookup = stemLookup(['run', stem('caroline'), '2024', 'zed']);
    expect(found('Running to CAROLINE in 2024, run3 zed', lookup)).toEqual([
      'run',
      stem('caroline'),
      '2024',
      'zed',
    ]);
    expect(found('Zed', lookup)).toEqual(['zed']);
    expect(found('Crème RUNNING', lookup)).toEqual(['run']);
  });
});
