import { describe, expect, it } from 'vitest';
import { cleanKeywords, extractKeywords, MAX_KEYWORDS } from './keyword-extraction.js';

describe('extractKeywords', () => {
  const keywords = extractKeywords([
    'Hi! Can you move the billing DB to Postgres 16 by March 3rd? Alice from New York said it costs $1,200 per month.',
    'Sure. I migrated the billing database; refresh token rotation is fixed in src/auth/refresh.ts (v2.3.1) at 14:30, 99.9% uptime.',
  ]);

  it('keeps names, phrases, numbers, dates, amounts, paths and versions as written', () => {
    for (const expected of [
      'Postgres 16',
      'March 3rd',
      'New York',
      'Alice',
      '$1,200',
      'billing database',
      'refresh token',
      'src/auth/refresh.ts',
      'v2.3.1',
      '14:30',
      '99.9%',
    ]) {
      expect(keywords, expected).toContain(expected);
    }
  });

  it('is deduplicated, order-stable and deterministic', () => {
    expect(new Set(keywords.map((k) => k.toLowerCase())).size).toBe(keywords.length);
    expect(keywords.indexOf('Postgres 16')).toBeLessThan(keywords.indexOf('Alice'));
    expect(extractKeywords(['Tests and more test runs; testing.'])).toEqual(['test runs']);
    expect(extractKeywords(['Deploy it. We deploy daily.'])).toEqual(['deploy daily']);
    expect(extractKeywords(keywords)).toEqual(extractKeywords(keywords));
  });

  // Each row: an input, keywords it must give, and keywords it must not give.
  const rules: readonly [string, string, readonly string[], readonly string[]][] = [
    [
      'hyphenated words stay whole',
      'We packed nut-free snacks for the trip.',
      ['nut-free snacks'],
      ['free snacks', 'nut', 'free'],
    ],
    [
      'identifiers stay whole',
      'Evict cache:user:42 and restart stats-rollup.',
      ['cache:user:42'],
      ['cache', 'user', '42', 'rollup', 'stats'],
    ],
    [
      'snake_case identifiers stay whole',
      'test_long_episode_transcode timed out again.',
      ['test_long_episode_transcode'],
      ['test_long_episode_transcode timed'],
    ],
    [
      'a kept phrase hides its single words',
      'The read replica lags; the read replica alert fired.',
      ['read replica'],
      ['read', 'replica'],
    ],
    [
      'a fact hides the bare number it holds',
      'Merged PR #902 after 902 checks.',
      ['PR #902'],
      ['902', '#902'],
    ],
    [
      'phrases stay within one clause',
      'We chose Redis, caching feeds at the edge.',
      ['Redis'],
      ['Redis caching', 'redis, caching'],
    ],
    [
      'phrases never span sentences',
      'It broke the parser. Tokens were fine.',
      [],
      ['parser tokens', 'parser. tokens'],
    ],
    [
      'fillers and interjections are no keywords',
      'Ugh, during every deploy, not plus re-checks, wow.',
      [],
      ['Ugh', 'during', 'every', 'not', 'plus', 're', 'wow'],
    ],
    [
      "an agent's report words and JSON literals are no keywords",
      'Noted: updated the staging config. Quick one: useTabs is true, strict is false.',
      ['staging config', 'useTabs'],
      ['Noted', 'updated', 'Quick', 'true', 'false'],
    ],
    [
      'greetings and contractions are no keywords',
      "Hi! Morning, I'll check. We've got it, thanks.",
      [],
      ['Hi', 'Morning', "I'll", "We've", 'thanks'],
    ],
    [
      'bare one- or two-digit numbers are no keywords',
      'Set the retry limit to -1, then 42 and 7.',
      ['retry limit'],
      ['1', '-1', '42', '7'],
    ],
    [
      'an abstract noun that opens a sentence is an ordinary word, a name keeps its capital',
      'Migration 0042_add_invoice_number failed on staging. Deployment resumed at noon. Kafka lagged.',
      ['migration', 'deployment', 'Kafka'],
      [],
    ],
    [
      'numbers with a unit or shape are kept',
      'Timeout 300 s at 09:40, costing €245 for 12%.',
      ['300 s', '09:40', '€245', '12%'],
      [],
    ],
  ];

  it.each(rules)('%s', (_rule, input, wanted, unwanted) => {
    const out = extractKeywords([input]);
    for (const keyword of wanted) expect(out, keyword).toContain(keyword);
    for (const keyword of unwanted)
      expect(
        out.map((k) => k.toLowerCase()),
        keyword,
      ).not.toContain(keyword.toLowerCase());
  });

  it('keeps a hyphenated word whole wherever it appears', () => {
    const out = extractKeywords(['Evict cache:user:42 and restart stats-rollup.']);
    const holding = out.filter((k) => /rollup/u.test(k));
    expect(holding.length).toBeGreaterThan(0);
    for (const k of holding) expect(k).toContain('stats-rollup');
  });

  it('keeps an identifier once: not also its parts that stand alone elsewhere in the turn', () => {
    const out = extractKeywords([
      'For now it is pg-staging-1.internal on port 5432.',
      'Noted: staging DB is pg-staging-1.internal:5432.',
    ]);
    expect(out).toContain('pg-staging-1.internal:5432');
    expect(out).not.toContain('pg-staging-1.internal');
    expect(out).not.toContain('5432');
    // A word that only shares letters with an identifier stays.
    expect(extractKeywords(['Deploy api-gateway-2 and then the gateway.'])).toEqual(
      expect.arrayContaining(['api-gateway-2']),
    );
  });

  it('never keeps a single word that a kept phrase contains', () => {
    const text =
      'The read replica lag alert fired at 14:05. Replica lag stayed above 30 s; the read path was fine. ' +
      'We raised the alert threshold for replica lag and the on-call rota got a note.';
    const out = extractKeywords([text]);
    const phraseWords = new Set(
      out.filter((k) => k.includes(' ')).flatMap((k) => k.toLowerCase().split(' ')),
    );
    for (const single of out.filter((k) => !k.includes(' ')))
      expect(phraseWords.has(single.toLowerCase()), single).toBe(false);
  });

  it('segments CJK text into words and joins compounds', () => {
    const cjk = extractKeywords(['我们今天讨论了数据库迁移的问题。明天下午三点在东京开会。']);
    expect(cjk).toContain('数据库迁移');
    expect(cjk.some((k) => k.startsWith('东京'))).toBe(true);
    expect(cjk).not.toContain('的');
    expect(extractKeywords(['2024年5月1日に東京で会議をしました。'])).toContain('2024年5月1日');
  });

  it(`keeps at most ${MAX_KEYWORDS} of a huge turn, the most salient, in order of first appearance`, () => {
    const many = Array.from({ length: 600 }, (_, i) => `widget${i} shipped`).join('. ');
    const repeated = `${many}. Postgres 16 and Postgres 16 again, ticket MEDIA-412 and MEDIA-412.`;
    const out = extractKeywords([repeated]);
    expect(out.length).toBe(MAX_KEYWORDS);
    expect(out).toContain('Postgres 16');
    expect(out).toContain('MEDIA-412');
    const at = out.map((k) => repeated.indexOf(k));
    expect(at).toEqual([...at].sort((a, b) => a - b));
  });

  it('returns nothing for empty, blank or content-free input', () => {
    expect(extractKeywords([])).toEqual([]);
    expect(extractKeywords(['  ', '\n'])).toEqual([]);
    expect(extractKeywords(['x'])).toEqual([]);
    expect(extractKeywords(['ok, thanks! :) -1 ... ??'])).toEqual([]);
  });
});

describe('cleanKeywords', () => {
  const rows: readonly [string, readonly string[], readonly string[]][] = [
    [
      'drops fillers and stop words',
      ['Ugh', 'during', 'every', 'not', 'plus', 're', 'Postgres'],
      ['Postgres'],
    ],
    [
      'drops bare one- or two-digit numbers, keeps shaped ones',
      ['1', '-1', '42', '14:30', '$1,200', '2024'],
      ['14:30', '$1,200', '2024'],
    ],
    [
      'drops single words a phrase holds',
      ['read', 'read replica', 'replica', 'lag'],
      ['read replica', 'lag'],
    ],
    ['is distinct without regard to case, trims, skips blanks', ['Redis', ' redis ', '', '  '], ['Redis']],
  ];
  it.each(rows)('%s', (_rule, input, expected) => {
    expect(cleanKeywords(input)).toEqual(expected);
  });

  it('keeps at most the limit', () => {
    const many = Array.from({ length: 40 }, (_, i) => `service-${i + 100}`);
    expect(cleanKeywords(many)).toHaveLength(MAX_KEYWORDS);
    expect(cleanKeywords(many, 3)).toEqual(['service-100', 'service-101', 'service-102']);
  });
});
