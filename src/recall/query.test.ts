import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../store/store.js';
import {
  isStopWord,
  matchExpression,
  namedWords,
  queryTerms,
  stem,
  tokenize,
  weightedWords,
} from './query.js';

describe('tokenize', () => {
  it('lower-cases, strips diacritics and splits on punctuation like unicode61', () => {
    expect(tokenize("Café-owner's RÉSUMÉ, v2.0!")).toEqual(['cafe', 'owner', 's', 'resume', 'v2', '0']);
  });

  it('segments CJK runs into words', () => {
    const words = tokenize('我住在东京');
    expect(words.length).toBeGreaterThan(1);
    expect(words.join('')).toBe('我住在东京');
  });
});

describe('namedWords / weightedWords', () => {
  it.each([
    ["What can't Mom eat?", ['mom']],
    ['What caused the TranscodeQueueBacklog alert?', ['transcodequeuebacklog']],
    ['Why did test_long_episode_transcode time out in CI?', ['test', 'long', 'episode', 'transcode', 'ci']],
    ['Which services build on castwell/media-base?', ['castwell', 'media', 'base']],
    ['Porto flights? Which hotel did we book in Porto?', ['porto']],
    ['how long can a weeknight dinner take?', []],
  ])('namedWords(%s)', (query, expected) => {
    expect([...namedWords(query)]).toEqual(expected);
  });

  it('gives a named word three times against two for any other word, and each once when nothing is named', () => {
    const terms = queryTerms("What can't Mom eat?");
    expect(weightedWords(terms, namedWords("What can't Mom eat?"))).toEqual([
      'mom',
      'mom',
      'mom',
      'eat',
      'eat',
    ]);
    expect(weightedWords(terms, new Set())).toEqual(['mom', 'eat']);
  });
});

describe('queryTerms', () => {
  it('drops stop words and question words, keeps content words once per stem', () => {
    const terms = queryTerms('When did Caroline go to the support groups, and the group?');
    expect(terms.map((t) => t.word)).toEqual(['caroline', 'go', 'support', 'groups']);
    expect(terms.map((t) => t.stem)).toEqual([stem('caroline'), 'go', 'support', 'group']);
  });

  it('keeps month names and numbers', () => {
    expect(queryTerms('What happened in May 2023?').map((t) => t.word)).toEqual(['happened', 'may', '2023']);
  });

  it('falls back to the stop words when nothing else is left', () => {
    expect(queryTerms('who is she').length).toBeGreaterThan(0);
    expect(isStopWord('the')).toBe(true);
  });
});

describe('long queries', () => {
  const cjk = '我们讨论了数据库的设计和索引的性能问题以及如何在大型系统中保持低延迟服务质量';
  const repeat = (unit: string, length: number): string =>
    unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

  it('reads a 100,000-character CJK or Latin query in bounded time, at most 64 terms', () => {
    const latin = Array.from({ length: 20_000 }, (_, i) => `word${(i * 7919) % 5000}`).join(' ');
    for (const text of [repeat(cjk, 100_000), latin.slice(0, 100_000)]) {
      const start = performance.now();
      const terms = queryTerms(text);
      // Generous bound (10x the 50 ms target): the old whole-run segmentation took 12.6 s.
      expect(performance.now() - start).toBeLessThan(500);
      expect(terms.length).toBeGreaterThan(0);
      expect(terms.length).toBeLessThanOrEqual(64);
    }
  });

  it('segments a long CJK run into words, losing nothing and splitting at most a word per piece', () => {
    const long = tokenize(repeat(cjk, 5_000));
    expect(long.join('')).toBe(repeat(cjk, 5_000));
    const words = new Set(tokenize(cjk));
    const same = long.filter((word) => words.has(word)).length;
    expect(same / long.length).toBeGreaterThan(0.95);
  });

  it('keeps the rarest terms of a query with more than 64 distinct words, in query order', () => {
    const words = Array.from({ length: 100 }, (_, i) => `term${i}x`);
    const frequency = (s: string): number => (s.endsWith('7x') ? 1 : 50);
    const terms = queryTerms(words.join(' '), frequency).map((t) => t.word);
    expect(terms).toHaveLength(64);
    const rare = words.filter((w) => w.endsWith('7x'));
    expect(terms.filter((w) => w.endsWith('7x'))).toEqual(rare);
    expect(terms).toEqual(words.filter((w) => terms.includes(w)));
  });

  it('reads words from all of a long query, not only its head', () => {
    const text = `${repeat('alpha beta ', 60_000)} omega`;
    expect(queryTerms(text).map((t) => t.word)).toContain('omega');
  });
});

describe('matchExpression', () => {
  it('quotes every word and joins with OR', () => {
    expect(matchExpression(['near', 'body', 'and'])).toBe('"near" OR "body" OR "and"');
    expect(matchExpression([])).toBeUndefined();
  });
});

describe('user text never becomes FTS5 syntax (fuzz)', () => {
  let dir: string;
  let store: Store;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hedgehop-query-'));
    store = Store.open(join(dir, 'm.db'), { durability: 'normal', mode: 'exclusive', busyTimeoutMs: 1000 });
    const agent = store.direct.agents.ensurePrimary('primary', 1);
    store.engine.write('seed', () => {
      const texts = [
        'NEAR the body: of "quoted" text',
        'AND OR NOT * ^ - + ( ) { } :',
        '東京都に住んでいます',
        'plain words here',
      ];
      texts.forEach((text, i) =>
        store.direct.index.upsert({ layer: 'knowledge', ref: `k${i}`, agentId: null, createdAt: i, text }),
      );
      store.direct.index.upsert({
        layer: 'profile',
        ref: String(agent.id),
        agentId: agent.id,
        createdAt: 1,
        text: 'me',
      });
    });
  });

  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const syntax = fc.constantFrom(
    '"',
    '""',
    '*',
    '^',
    '-',
    '+',
    '(',
    ')',
    '{',
    '}',
    ':',
    'NEAR',
    'NEAR(',
    'AND',
    'OR',
    'NOT',
    'body:',
    'search_fts:',
    "'",
    '\\',
    ',',
    ' ',
    '\t',
    '\n',
    'rank',
    'bm25(',
    '[',
    ']',
    '%',
    '_',
    '東京',
    'é',
  );
  const fragment = fc.oneof(
    syntax,
    fc.string({ unit: 'grapheme', maxLength: 6 }),
    fc.string({ unit: 'binary', maxLength: 6 }),
  );
  const query = fc.array(fragment, { maxLength: 12 }).map((parts) => parts.join('').replaceAll('\u0000', ''));

  it('any text gives a valid MATCH expression (or none)', () => {
    fc.assert(
      fc.property(query, (text) => {
        const expression = matchExpression(queryTerms(text).map((t) => t.word));
        if (expression === undefined) return;
        expect(() =>
          store.engine.read('fuzz', () => store.direct.recall.match(expression, { agentId: 1 }, 5)),
        ).not.toThrow();
      }),
      { numRuns: 600 },
    );
  });

  it('a quoted operator is a word, not an operator', () => {
    const expression = matchExpression(queryTerms('NEAR body: "quoted"').map((t) => t.word));
    const hits = store.engine.read('t', () =>
      store.direct.recall.match(expression as string, { agentId: 1 }, 5),
    );
    expect(hits.map((h) => h.ref)).toContain('k0');
  });
});
