import { describe, expect, it } from 'vitest';
import { extractKeywords, MAX_KEYWORDS } from './keyword-extraction.js';

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

  it('drops greetings, fillers and stop words', () => {
    for (const unwanted of ['Hi', 'hi', 'Sure', 'sure', 'the', 'can', 'you', 'I'])
      expect(keywords).not.toContain(unwanted);
  });

  it('is deduplicated (by stem for single words), order-stable and deterministic', () => {
    expect(new Set(keywords.map((k) => k.toLowerCase())).size).toBe(keywords.length);
    expect(keywords.indexOf('Postgres 16')).toBeLessThan(keywords.indexOf('Alice'));
    expect(extractKeywords(['Tests and more test runs; testing.'])).toEqual(['Tests', 'test runs', 'runs']);
    expect(extractKeywords(['Deploy it. We deploy daily.'])).toEqual(['deploy', 'deploy daily', 'daily']);
    expect(extractKeywords(['x'])).toEqual([]);
  });

  it('segments CJK text into words and joins compounds', () => {
    const cjk = extractKeywords(['我们今天讨论了数据库迁移的问题。明天下午三点在东京开会。']);
    expect(cjk).toContain('数据库迁移');
    expect(cjk).toContain('东京');
    expect(cjk).not.toContain('的');
    expect(extractKeywords(['2024年5月1日に東京で会議をしました。'])).toContain('2024年5月1日');
  });

  it('caps a huge turn, keeping the first appearance order', () => {
    const many = Array.from({ length: 600 }, (_, i) => `Item${i} widget${i}`).join('. ');
    const out = extractKeywords([many]);
    expect(out.length).toBe(MAX_KEYWORDS);
    expect(out[0]).toMatch(/^Item0\b/u);
  });

  it('returns nothing for empty input', () => {
    expect(extractKeywords([])).toEqual([]);
    expect(extractKeywords(['  ', '\n'])).toEqual([]);
  });
});
