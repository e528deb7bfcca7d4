import { describe, expect, it } from 'vitest';
import { codePointLength } from '../../core/text.js';
import { MockSummarizer } from '../../llm/mock-summarizer.js';
import { OfflineSummarizer } from '../../llm/offline-summarizer.js';
import {
  computeSummaries,
  resolveSummaries,
  sampleContext,
  summarySource,
  SUMMARY_SOURCE_CONTEXT_MAX,
} from './summaries.js';

const task = {
  taskLabel: 'Add caching',
  conversationSummary: 'We put a Redis cache in front of the catalogue API.',
  fileChanges: [{ path: 'src/cache.ts', changeType: 'created', diffSummary: 'LRU + Redis' }],
  todos: ['Measure hit rate'],
  fullContext: 'The catalogue API was slow (800 ms p99). Redis now caches product pages for 60 s.',
};

describe('summaries', () => {
  it('the source holds the whole task, label first', () => {
    const source = summarySource(task);
    expect(source.startsWith('Add caching.')).toBe(true);
    for (const part of [
      'Redis cache in front',
      '[created] src/cache.ts: LRU + Redis',
      'TODOs: Measure hit rate',
      '800 ms p99',
    ]) {
      expect(source).toContain(part);
    }
  });

  it('offline summaries fit every cap and the origin leads with the label', async () => {
    const long = { ...task, fullContext: 'Cache invalidation happens on product updates. '.repeat(300) };
    const { summaries, complete } = await computeSummaries(new OfflineSummarizer(), long);
    expect(complete).toBe(true);
    expect(codePointLength(summaries.origin ?? '')).toBeLessThanOrEqual(80);
    expect(codePointLength(summaries.brief ?? '')).toBeLessThanOrEqual(200);
    expect(codePointLength(summaries.summary ?? '')).toBeLessThanOrEqual(600);
    expect(codePointLength(summaries.detailed ?? '')).toBeLessThanOrEqual(1800);
    expect(summaries.origin?.startsWith('Add caching')).toBe(true);
  });

  it('a failure part-way keeps what was computed and reports the error', async () => {
    const summarizer = new MockSummarizer();
    let calls = 0;
    const original = summarizer.summarize.bind(summarizer);
    summarizer.summarize = (text, max, context) =>
      ++calls === 2 ? Promise.reject(new Error('down')) : original(text, max, context);
    const result = await computeSummaries(summarizer, task);
    expect(result.complete).toBe(false);
    expect(result.summaries.detailed).toBeDefined();
    expect(result.summaries.summary).toBeUndefined();
    expect((result.error as Error).message).toBe('down');
    const resumed = await computeSummaries(new MockSummarizer(), task, result.summaries);
    expect(resumed.complete).toBe(true);
    expect(resumed.summaries.detailed).toBe(result.summaries.detailed);
  });

  it('resolves missing levels from neighbours, or from the label and conversation summary', () => {
    expect(resolveSummaries({}, 'Label', 'Summary text.')).toEqual({
      origin: 'Label',
      brief: 'Label. Summary text.',
      summary: 'Label. Summary text.',
      detailed: 'Label. Summary text.',
    });
    const partial = resolveSummaries({ detailed: 'word '.repeat(100).trim() }, 'L', '');
    expect(codePointLength(partial.origin)).toBeLessThanOrEqual(80);
    expect(partial.detailed).toBe('word '.repeat(100).trim());
    expect(resolveSummaries({ origin: 'o' }, 'L', 'S').brief).toBe('o');
  });

  it('samples a long context across its whole length within the budget', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i} of the working state`);
    const sample = sampleContext(lines.join('\n'));
    expect(codePointLength(sample)).toBeLessThanOrEqual(SUMMARY_SOURCE_CONTEXT_MAX + 200);
    expect(sample).toContain('line 0 of');
    expect(sample).toMatch(/line 1[0-9]{4} of/u);
    expect(sampleContext('short')).toBe('short');
    const emoji = '🦔'.repeat(40_000);
    expect(sampleContext(emoji)).not.toMatch(
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u,
    );
  });
});
