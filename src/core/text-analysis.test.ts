import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  clauses,
  contentTerms,
  factSpans,
  isStopWord,
  nameLike,
  nameSpans,
  pairSpans,
  sentences,
  termOf,
  tokenize,
  type SpanRules,
  type Token,
} from './text-analysis.js';

/** The token `tokenize` makes of one word. */
const token = (word: string): Token => tokenize(word)[0]!;

describe('tokenize', () => {
  it('finds words with their offsets, stems Latin words and marks stop words', () => {
    const tokens = tokenize("It's 3.14 — the admins' café, user_id v2.1!");
    expect(tokens.map((t) => t.surface)).toEqual([
      "It's",
      '3.14',
      'the',
      'admins',
      'café',
      'user_id',
      'v2.1',
    ]);
    expect(tokens.find((t) => t.surface === 'the')!.stop).toBe(true);
    expect(termOf('Admins')).toBe('admin');
    expect(termOf('running')).toBe('run');
    expect(isStopWord('The')).toBe(true);
    expect(isStopWord('的')).toBe(true);
  });

  it('answers the same for a word seen before, however many other words came between', () => {
    const words = ['Admins', 'running', 'The', 'the', 'PostgreSQL', 'Alice', 'alice', 'S3', '的', 'café'];
    const first = words.map((w) => [
      termOf(w),
      isStopWord(w),
      nameLike(token(w), false),
      nameLike(token(w), true),
    ]);
    expect(first.slice(0, 5)).toEqual([
      ['admin', false, true, false],
      ['run', false, false, false],
      ['the', true, true, false],
      ['the', true, false, false],
      ['postgresql', false, true, true],
    ]);
    // Past the remembered words' bound (50,000), the remembered answers are dropped, not changed.
    for (let i = 0; i < 60_000; i++) {
      const word = `Filler${i}x`;
      expect(termOf(word)).toBe(`filler${i}x`);
      isStopWord(word);
      nameLike(token(word), true);
    }
    const again = words.map((w) => [
      termOf(w),
      isStopWord(w),
      nameLike(token(w), false),
      nameLike(token(w), true),
    ]);
    expect(again).toEqual(first);
  });

  it('splits CJK and Thai runs with the dictionary segmenter', () => {
    expect(tokenize('数据库迁移的问题').map((t) => t.surface)).toEqual(['数据', '库', '迁移', '的', '问题']);
    expect(tokenize('ภาษาไทยง่ายนิดเดียว').length).toBeGreaterThan(1);
    expect([...contentTerms('我们讨论了数据库迁移')]).toContain('迁移');
  });

  it('gives offsets that point at the surface, on any text, even very long runs', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        for (const token of tokenize(text)) {
          expect(text.slice(token.index, token.index + token.surface.length)).toBe(token.surface);
        }
      }),
    );
    const long = '迁移'.repeat(2000);
    const tokens = tokenize(long);
    expect(tokens.map((t) => t.surface).join('')).toBe(long);
  });
});

describe('sentences', () => {
  it('breaks at sentence ends, line ends, and full stops before lower-case words', () => {
    expect(sentences('we went home. then we ate! e.g. this one.\nNext line.')).toEqual([
      { text: 'we went home.', index: 0, newLine: false },
      { text: 'then we ate!', index: 14, newLine: false },
      { text: 'e.g. this one.', index: 27, newLine: false },
      { text: 'Next line.', index: 42, newLine: true },
    ]);
  });

  it('keeps offsets right across the pieces of a long text', () => {
    const text = 'One short sentence here. '.repeat(400);
    const found = sentences(text);
    expect(found).toHaveLength(400);
    for (const s of found) expect(text.slice(s.index, s.index + s.text.length)).toBe(s.text);
  });

  it('splits a long sentence into clauses', () => {
    const [sentence] = sentences('First part, second part; third part: end.');
    expect(clauses(sentence!).map((c) => c.text)).toEqual([
      'First part,',
      'second part;',
      'third part:',
      'end.',
    ]);
  });
});

describe('candidate spans (shared by the keyword extractor and the topic index terms)', () => {
  const rules: SpanRules<Token> = {
    isContent: (t) => !t.stop,
    adjacent: (text, a, b) => /^[ \t]?$/u.test(text.slice(a.index + a.surface.length, b.index)),
    nameWord: (t) => !t.stop,
    pairable: (a, b) => !a.stop && !b.stop && a.cjk === b.cjk,
  };

  it('finds facts once, leaving what a pattern already covers to none after it', () => {
    const text = 'Released v2.1.3 on 2024-05-01, see https://example.com/v2.1.3.';
    const covered: [number, number][] = [];
    const facts = factSpans(text, covered).map((f) => f.text);
    expect(facts).toContain('https://example.com/v2.1.3');
    expect(facts).toContain('2024-05-01');
    expect(facts.filter((f) => f === 'v2.1.3')).toHaveLength(1);
    expect(covered).toHaveLength(facts.length);
    expect(factSpans('--- ... ;;;', [])).toEqual([]);
  });

  it('runs of name words, broken where the words are not adjacent', () => {
    const text = 'Yesterday Alice Smith met Bob Jones, Carol.';
    const tokens = tokenize(text);
    expect(nameSpans(text, tokens, tokens[0], rules).map((s) => s.text)).toEqual([
      'Yesterday Alice Smith',
      'Bob Jones',
    ]);
  });

  it('pairs adjacent words, and a CJK run gives its whole compound once from its first word', () => {
    const text = 'token refresh, read replica 数据库迁移';
    const tokens = tokenize(text);
    const spans = pairSpans(text, tokens, rules);
    expect(spans.map((s) => s.text)).toEqual(['token refresh', 'read replica', '数据库迁移']);
    const compound = spans[2]!;
    expect(compound.tokens.length).toBeGreaterThan(1);
    expect(compound.tokens.every((t) => t.cjk)).toBe(true);
    expect(text.slice(compound.index, compound.index + compound.text.length)).toBe('数据库迁移');
  });
});
