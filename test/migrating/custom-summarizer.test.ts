import { describe, expect, it } from 'vitest';
import { openMemory, RadialMemory, type PartialSummarizer } from '../../src/index.js';
import { CustomSummarizer, normalizeVerdict } from '../../src/llm/partial-summarizer.js';
import { OfflineSummarizer } from '../../src/llm/offline-summarizer.js';
import { rejection } from '../helpers/errors.js';
import { fileDigest, tempFile } from '../helpers/temp.js';

/** HedgehogMemory's two-method BaseSummarizer, ported: head…tail truncation and word overlap. */
function hedgehogStyle(calls: string[] = []): PartialSummarizer {
  return {
    summarize(text, maxChars, context) {
      calls.push(`summarize:${maxChars}:${context.hint ?? ''}`);
      const stripped = text.trim();
      if (stripped.length === 0) return context.hint ?? '';
      if (stripped.length <= maxChars) return stripped;
      const half = Math.floor((maxChars - 6) / 2);
      return `${stripped.slice(0, half)} … ${stripped.slice(-half)}`;
    },
    verifyMatch(query, summary) {
      calls.push('verifyMatch');
      const words = new Set(summary.toLowerCase().match(/\w+/gu) ?? []);
      const asked = query.toLowerCase().match(/\w+/gu) ?? [];
      const share = asked.length === 0 ? 0 : asked.filter((w) => words.has(w)).length / asked.length;
      return [share >= 0.3, share];
    },
  };
}

const LONG = 'Rotated refresh tokens on every use and revoked the whole family on reuse. '.repeat(30);

describe('a summariser with only summarize (HedgehogMemory BaseSummarizer)', () => {
  it('commits and navigates; every level stays within its cap; the rest falls back offline', async () => {
    const calls: string[] = [];
    const db = await openMemory(tempFile(), { summarizer: hedgehogStyle(calls), dream: { auto: false } });
    const radial = db.primary().radial;
    await radial.createLine('auth', 'Authentication', 'Login and tokens');
    const node = await radial.completeTask({
      lineId: 'auth',
      taskLabel: 'Refresh-token rotation',
      fullContext: LONG,
      conversationSummary: LONG,
    });
    expect(calls.some((c) => c.startsWith('summarize:1800:'))).toBe(true);
    expect([...node.summaries.origin].length).toBeLessThanOrEqual(80);
    expect([...node.summaries.brief].length).toBeLessThanOrEqual(200);
    expect([...node.summaries.detailed].length).toBeLessThanOrEqual(1800);
    // The turn loop's keyword distillation is not implemented by it: the offline one runs.
    const agent = db.primary();
    await agent.search();
    const { topic } = await agent.update({ input: 'Deploy the billing service', createdAt: Date.now() });
    expect(topic.keywords.length).toBeGreaterThan(0);
    const session = await radial.navigate('refresh tokens reuse');
    expect(session?.node.id).toBe(node.id);
    await db.close();
  });

  it('a summarize that returns too much is cut to the cap; one that returns a non-string is LLM_FAILED', async () => {
    const wordy: PartialSummarizer = { summarize: () => 'word '.repeat(1000) };
    const custom = new CustomSummarizer(wordy, new OfflineSummarizer());
    expect([...(await custom.summarize('anything', 80))].length).toBeLessThanOrEqual(80);
    const broken = new CustomSummarizer(
      { summarize: () => 42 as unknown as string },
      new OfflineSummarizer(),
    );
    expect((await rejection(broken.summarize('text', 80))).code).toBe('LLM_FAILED');
    expect(custom.fallbackOperations).toEqual([
      'verifyMatch',
      'distillKeywords',
      'groupTopics',
      'distillProfile',
    ]);
  });

  it('verifyMatch may return a tuple or an object; anything else is LLM_FAILED', () => {
    expect(normalizeVerdict([true, 0.9])).toEqual({ match: true, confidence: 0.9 });
    expect(normalizeVerdict({ match: false, confidence: 1.7 })).toEqual({ match: false, confidence: 1 });
    expect(() => normalizeVerdict([true])).toThrow(/verifyMatch must return/u);
    expect(() => normalizeVerdict('YES 0.9')).toThrow(/verifyMatch must return/u);
  });

  it('RadialMemory.open takes one too', async () => {
    const calls: string[] = [];
    const radial = await RadialMemory.open(tempFile(), {
      summarizer: hedgehogStyle(calls),
      projectName: 'Shop',
    });
    await radial.createLine('infra', 'Infrastructure', 'Docker');
    const node = await radial.completeTask({
      lineId: 'infra',
      taskLabel: 'Dockerise the API',
      fullContext: 'docker build',
      conversationSummary: 'Multi-stage Dockerfile for the API service.',
    });
    expect(node.summaries.brief).toContain('Multi-stage Dockerfile for the API service.');
    expect(calls.filter((c) => c.startsWith('summarize:')).length).toBeGreaterThan(0);
    await radial.close();
  });

  it('an object without summarize is refused naming options.summarizer, and no file is written', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    await db.close();
    const before = fileDigest(path);
    const error = await rejection(
      openMemory(path, { summarizer: { verifyMatch: () => [true, 1] } as unknown as PartialSummarizer }),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.field).toBe('options.summarizer');
    expect(error.message).toMatch(/summarize\(text, maxChars, context\)/u);
    expect(fileDigest(path)).toBe(before);
  });
});
