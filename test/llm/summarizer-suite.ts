/**
 * The behaviour every Summarizer that ships with hedgehop must show (CONVENTIONS.md §16).
 * Run with {@link describeSummarizer} for each implementation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codePointLength } from '../../src/core/text.js';
import type { Summarizer } from '../../src/llm/types.js';

export interface SummarizerFixture {
  readonly summarizer: Summarizer;
  close?(): Promise<void>;
}

const LEVELS = [
  ['origin', 80],
  ['brief', 200],
  ['summary', 600],
  ['detailed', 1800],
] as const;

const REPORT = [
  'We migrated the authentication service from MySQL to PostgreSQL 16 on 2024-05-01.',
  'The migration took three hours because the users table had 4 million rows.',
  'During the migration, Alice Smith found a bug in the token refresh logic: refresh tokens were not rotated.',
  'We fixed it by rotating refresh tokens on every use and added a regression test.',
  'Lunch was pizza, and the weather was grey all afternoon.',
  'Bob said the Grafana dashboard shows a p99 latency of 120 ms after the change.',
  'Open item: update docs/auth.md and remove the old MySQL credentials from the vault.',
].join(' ');
const LONG_REPORT = Array.from({ length: 12 }, (_, i) => `Part ${i + 1}. ${REPORT}`).join('\n');

const CJK = [
  '我们今天讨论了数据库迁移的问题，决定在下周一完成全部迁移工作。',
  '迁移期间需要停机两个小时，负责人是张三，他会提前通知所有用户。',
  '另外还讨论了监控告警的阈值，把延迟告警从五百毫秒调整到三百毫秒。',
  '最后确认了回滚方案：如果新库出现问题，立即切回旧库并保留日志。',
].join('');

function noLoneSurrogate(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u.test(text);
}

/** Registers the shared behavioural suite for one implementation. */
export function describeSummarizer(name: string, factory: () => Promise<SummarizerFixture>): void {
  describe(`Summarizer behaviour: ${name}`, () => {
    let fixture: SummarizerFixture;
    let s: Summarizer;
    beforeAll(async () => {
      fixture = await factory();
      s = fixture.summarizer;
    });
    afterAll(async () => {
      await fixture?.close?.();
    });

    describe('summarize', () => {
      it('keeps every level within its budget, origin and brief on one line', async () => {
        for (const [level, max] of LEVELS) {
          const out = await s.summarize(LONG_REPORT, max, { hint: 'auth migration', level });
          expect(codePointLength(out)).toBeLessThanOrEqual(max);
          expect(out.trim().length).toBeGreaterThan(0);
          expect(out).toBe(out.trim());
          if (level === 'origin' || level === 'brief') expect(out).not.toMatch(/\n/u);
        }
      });

      it('returns a text that fits, trimmed and unchanged', async () => {
        expect(await s.summarize('  Fixed the login bug.  ', 80, { level: 'origin' })).toBe(
          'Fixed the login bug.',
        );
        expect(await s.summarize('line one\nline two', 600, { level: 'summary' })).toBe('line one\nline two');
      });

      it('falls back to the hint for empty text', async () => {
        expect(await s.summarize('   ', 80, { hint: 'auth: login', level: 'origin' })).toBe('auth: login');
        expect(await s.summarize('', 80)).toBe('');
      });

      it('keeps words whole and keeps content from the text', async () => {
        const out = await s.summarize(REPORT, 200, { hint: 'refresh token bug', level: 'brief' });
        const words = new Set(REPORT.split(/[\s,.:;]+/u));
        for (const word of out
          .replace(/…$/u, '')
          .split(/[\s,.:;]+/u)
          .filter(Boolean)) {
          expect(words.has(word), `word "${word}" is not a whole word of the text`).toBe(true);
        }
        expect(out).toMatch(/refresh|token|migrat/iu);
      });

      it('handles CJK text without spaces and emoji within budget', async () => {
        for (const [level, max] of LEVELS.slice(0, 2)) {
          const out = await s.summarize(CJK, max, { level });
          expect(codePointLength(out)).toBeLessThanOrEqual(max);
          expect(out.length).toBeGreaterThan(0);
          expect(noLoneSurrogate(out)).toBe(true);
        }
        const emoji = await s.summarize('🚀 deploy '.repeat(40) + '😀'.repeat(100), 80);
        expect(codePointLength(emoji)).toBeLessThanOrEqual(80);
        expect(noLoneSurrogate(emoji)).toBe(true);
      });

      it('cuts one giant word within budget', async () => {
        const out = await s.summarize('x'.repeat(5000), 80, { level: 'origin' });
        expect(codePointLength(out)).toBeLessThanOrEqual(80);
        expect(out.length).toBeGreaterThan(0);
      });
    });

    describe('verifyMatch', () => {
      it('matches a related summary with higher confidence than an unrelated one', async () => {
        const summary = 'Fixed refresh token rotation in the auth service; Alice found the bug.';
        const good = await s.verifyMatch('refresh token bug', summary);
        const bad = await s.verifyMatch('kubernetes ingress certificates', summary);
        expect(good.match).toBe(true);
        expect(bad.match).toBe(false);
        expect(good.confidence).toBeGreaterThan(bad.confidence);
        for (const r of [good, bad]) {
          expect(r.confidence).toBeGreaterThanOrEqual(0);
          expect(r.confidence).toBeLessThanOrEqual(1);
        }
      });

      it('matches across inflections and CJK', async () => {
        expect((await s.verifyMatch('admins', 'Admin page rewritten')).match).toBe(true);
        expect((await s.verifyMatch('数据库迁移', CJK)).match).toBe(true);
      });

      it('never matches an empty query', async () => {
        expect(await s.verifyMatch('  ', 'anything')).toEqual({ match: false, confidence: 0 });
      });
    });

    describe('distillKeywords', () => {
      it('keeps names, numbers and dates, without duplicates', async () => {
        const keywords = await s.distillKeywords([
          { role: 'user', content: 'Can you move the billing database to Postgres 16 by 2024-06-30?' },
          { role: 'agent', content: 'Done. Alice Smith approved the billing database move; it cost $1,200.' },
        ]);
        expect(keywords.length).toBeGreaterThan(3);
        expect(new Set(keywords).size).toBe(keywords.length);
        const joined = keywords.join(' | ');
        expect(joined).toMatch(/Alice/u);
        expect(joined).toMatch(/2024-06-30/u);
        expect(joined).toMatch(/billing/iu);
        expect(joined).toMatch(/16/u);
      });

      it('gives nothing for nothing, and CJK words for CJK text', async () => {
        expect(await s.distillKeywords([])).toEqual([]);
        expect(await s.distillKeywords([{ role: 'user', content: '  ' }])).toEqual([]);
        const cjk = await s.distillKeywords([{ role: 'user', content: CJK }]);
        expect(cjk.some((k) => k.includes('迁移'))).toBe(true);
      });
    });

    describe('groupTopics', () => {
      const topics = [
        { id: 't1', keywords: ['postgres', 'migration', 'billing database'] },
        { id: 't2', keywords: ['postgres', 'migration', 'billing database', 'downtime'] },
        { id: 't3', keywords: ['holiday', 'flights', 'Lisbon'] },
        { id: 't4', keywords: ['postgres', 'migration', 'billing database', 'rollback'] },
      ];

      it('groups adjacent topics of one subject and never different subjects', async () => {
        const groups = await s.groupTopics(topics, { target: 1 });
        const grouped = groups.map((g) => [...g.topicIds]);
        expect(grouped).toContainEqual(['t1', 't2']);
        for (const ids of grouped) {
          expect(ids).not.toContain('t3');
          expect(ids.includes('t2') && ids.includes('t4')).toBe(false);
        }
      });

      it('keeps every member keyword in the reconstruction', async () => {
        const groups = await s.groupTopics(topics.slice(0, 2), { target: 1 });
        expect(groups).toHaveLength(1);
        const summary = groups[0]!.mergedSummary.toLowerCase();
        for (const k of [...topics[0]!.keywords, ...topics[1]!.keywords])
          expect(summary).toContain(k.toLowerCase());
      });

      it('returns nothing for fewer than two topics', async () => {
        expect(await s.groupTopics([], { target: 1 })).toEqual([]);
        expect(await s.groupTopics(topics.slice(0, 1), { target: 1 })).toEqual([]);
      });
    });

    describe('distillProfile', () => {
      it('returns values in range and only sampled node ids', async () => {
        const result = await s.distillProfile([
          { id: 'n1', importance: 0.9, keywords: ['great release', 'happy team', 'success'] },
          { id: 'n2', importance: 0.4, keywords: ['outage', 'angry customer', 'failure'] },
          { id: 'n3', importance: 0.2, keywords: ['postgres'] },
        ]);
        for (const v of Object.values(result.emotion)) expect(v >= 0 && v <= 1).toBe(true);
        for (const v of Object.values(result.mbti)) expect(v >= -1 && v <= 1).toBe(true);
        expect(codePointLength(result.personality)).toBeLessThanOrEqual(160);
        expect(result.perNode.length).toBeLessThanOrEqual(20);
        for (const row of result.perNode) expect(['n1', 'n2', 'n3']).toContain(row.id);
      });

      it('is neutral without samples', async () => {
        const result = await s.distillProfile([]);
        expect(result.mbti).toEqual({ i_e: 0, n_s: 0, t_f: 0, j_p: 0 });
        expect(result.perNode).toEqual([]);
      });
    });
  });
}
