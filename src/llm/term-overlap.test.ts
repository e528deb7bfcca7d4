import { describe, expect, it } from 'vitest';
import { MATCH_THRESHOLD, termOverlap } from './term-overlap.js';

describe('termOverlap (offline verifyMatch)', () => {
  it('is the weighted share of query content found, stemmed and without stop words', () => {
    expect(termOverlap('the admins', 'Admin page')).toEqual({ match: true, confidence: 1 });
    expect(termOverlap('refresh token bug', 'Fixed the refresh token rotation')).toEqual({
      match: true,
      confidence: 0.667,
    });
    expect(termOverlap('kubernetes ingress', 'Fixed the refresh token rotation')).toEqual({
      match: false,
      confidence: 0,
    });
  });

  it('gives names and numbers more weight than plain words', () => {
    const name = termOverlap('Postgres upgrade', 'Postgres is slow');
    const word = termOverlap('postgres upgrade', 'upgrade done');
    expect(name.confidence).toBeGreaterThan(word.confidence);
  });

  it('finds CJK words inside unsegmented text and partial prefixes', () => {
    expect(termOverlap('JWT 登录接口', '实现 JWT 登录接口和刷新令牌').confidence).toBe(1);
    expect(termOverlap('数据库', '我们讨论了数据库迁移').match).toBe(true);
    expect(termOverlap('authentication', 'author list').confidence).toBe(0);
    expect(termOverlap('authentic', 'authentication service').confidence).toBeGreaterThan(0);
  });

  it('falls back to stop words for a query made only of them, and never matches an empty one', () => {
    expect(termOverlap('the', 'the end').match).toBe(true);
    expect(termOverlap('', 'anything')).toEqual({ match: false, confidence: 0 });
    expect(termOverlap('?!', 'anything')).toEqual({ match: false, confidence: 0 });
    expect(MATCH_THRESHOLD).toBe(0.3);
  });
});
