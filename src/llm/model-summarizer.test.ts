import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HedgehopError } from '../core/errors.js';
import type { LanguageModelError } from './language-model-error.js';
import { MockLanguageModel } from './mock-language-model.js';
import { ModelSummarizer } from './model-summarizer.js';
import { UsageMeter } from './usage-meter.js';

const LONG = 'The payment service moved to Stripe on March 3. '.repeat(20);

async function rejection(promise: Promise<unknown>): Promise<LanguageModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(HedgehopError.isInstance(error) && error.code === 'LLM_FAILED').toBe(true);
  return error as LanguageModelError;
}

describe('ModelSummarizer.summarize', () => {
  it('calls no model when the text fits or is empty', async () => {
    const model = new MockLanguageModel([]);
    const s = new ModelSummarizer(model);
    expect(await s.summarize('  short text ', 80)).toBe('short text');
    expect(await s.summarize('', 80, { hint: 'label' })).toBe('label');
    expect(model.calls).toHaveLength(0);
  });

  it('asks with the budget, hint and level, and keeps origin on one line', async () => {
    const model = new MockLanguageModel([{ summary: 'Payments\nmoved to Stripe.' }]);
    const s = new ModelSummarizer(model);
    expect(await s.summarize(LONG, 80, { hint: 'payments', level: 'origin' })).toBe(
      'Payments moved to Stripe.',
    );
    const call = model.calls[0]!;
    expect(call.operation).toBe('summarize');
    expect(call.system).toMatch(/at most 80 characters/u);
    expect(call.system).toMatch(/single line/u);
    expect(call.system).toMatch(/"payments"/u);
    expect(call.prompt).toContain('Stripe');
  });

  it('cuts a huge input down before sending it', async () => {
    const model = new MockLanguageModel([{ summary: 'ok' }]);
    await new ModelSummarizer(model, { maxInputChars: 1000 }).summarize(LONG.repeat(50), 600);
    expect(model.calls[0]!.prompt.length).toBeLessThan(1200);
  });

  it('retries an empty or malformed summary, then fails', async () => {
    const model = new MockLanguageModel(['{"summary": "   "}', 'nope', '{"summary": 3}']);
    const usage = new UsageMeter();
    const error = await rejection(new ModelSummarizer(model, { usage }).summarize(LONG, 200));
    expect(error.reason).toBe('invalid-output');
    expect(model.calls).toHaveLength(3);
    expect(model.calls[1]!.prompt).toMatch(/summary is empty/u);
    expect(usage.get('summarize')).toMatchObject({ calls: 3, failures: 3 });
  });

  it('treats a custom model’s zod error as unusable output and any other error as final', async () => {
    const zodFailure = new z.ZodError([]);
    const flaky = new MockLanguageModel([zodFailure, { summary: 'fine' }]);
    expect(await new ModelSummarizer(flaky).summarize(LONG, 200)).toBe('fine');
    const broken = new MockLanguageModel([new Error('socket hang up'), { summary: 'never' }]);
    const error = await rejection(new ModelSummarizer(broken).summarize(LONG, 200));
    expect(error.message).toBe('summarize: socket hang up');
    expect(error.reason).toBe('unknown');
    expect(broken.calls).toHaveLength(1);
  });

  it('passes its abort signal to the model', async () => {
    const controller = new AbortController();
    controller.abort();
    const model = new MockLanguageModel([{ summary: 'x' }]);
    const error = await rejection(
      new ModelSummarizer(model, { signal: controller.signal }).summarize(LONG, 80),
    );
    expect(error.reason).toBe('aborted');
  });

  it('rejects bad options with INVALID_INPUT', () => {
    expect(() => new ModelSummarizer(new MockLanguageModel(), { outputRetries: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', field: 'ModelSummarizer.options.outputRetries' }),
    );
  });
});

describe('ModelSummarizer.verifyMatch', () => {
  it('parses and clamps the reply', async () => {
    const model = new MockLanguageModel([
      { match: true, confidence: 1.7 },
      { match: 'no', confidence: '0.2' },
      { match: 'YES', confidence: -3 },
    ]);
    const s = new ModelSummarizer(model);
    expect(await s.verifyMatch('auth', 'auth service')).toEqual({ match: true, confidence: 1 });
    expect(await s.verifyMatch('auth', 'billing')).toEqual({ match: false, confidence: 0.2 });
    expect(await s.verifyMatch('auth', 'x')).toEqual({ match: true, confidence: 0 });
    expect(await s.verifyMatch(' ', 'x')).toEqual({ match: false, confidence: 0 });
    expect(model.calls).toHaveLength(3);
  });
});

describe('ModelSummarizer.distillKeywords', () => {
  it('splits long turns into chunks, merges and dedupes the keywords', async () => {
    const model = new MockLanguageModel((_, call) => ({ keywords: [`k${call}`, 'shared', ' ', 42] }));
    const text = 'A sentence about something. '.repeat(30);
    const keywords = await new ModelSummarizer(model, { keywordChunkChars: 300 }).distillKeywords([
      { role: 'user', content: text },
      { role: 'agent', content: '' },
    ]);
    expect(model.calls.length).toBeGreaterThan(1);
    expect(keywords).toEqual(['k0', 'shared', '42', ...model.calls.slice(1).map((_, i) => `k${i + 1}`)]);
  });

  it('names the chunk that failed', async () => {
    const model = new MockLanguageModel([{ keywords: ['a'] }, new Error('HTTP 500')]);
    const error = await rejection(
      new ModelSummarizer(model, { keywordChunkChars: 100 }).distillKeywords([
        { role: 'user', content: 'Word here. '.repeat(20) },
      ]),
    );
    expect(error.message).toMatch(/^distillKeywords \(chunk 2 of \d\): HTTP 500/u);
  });
});

describe('ModelSummarizer.groupTopics', () => {
  const topics = [
    { id: 'a', keywords: ['postgres', 'migration'] },
    { id: 'b', keywords: ['postgres', 'rollback'] },
    { id: 'c', keywords: ['lunch'] },
    { id: 'd', keywords: ['postgres'] },
  ];

  it('keeps only adjacent, known, unused groups and completes their keywords', async () => {
    const model = new MockLanguageModel([
      {
        groups: [
          { topic_ids: ['b', 'a'], merged_summary: 'We migrated postgres.' },
          { topic_ids: ['b', 'c'], merged_summary: 'reuses b' },
          { topic_ids: ['c', 'x'], merged_summary: 'unknown id' },
          { topic_ids: ['b', 'd'], merged_summary: 'not adjacent' },
        ],
      },
    ]);
    const groups = await new ModelSummarizer(model).groupTopics(topics, { target: 2 });
    expect(groups).toEqual([
      { topicIds: ['a', 'b'], mergedSummary: 'We migrated postgres.\nKeywords: migration, rollback.' },
    ]);
    expect(model.calls[0]!.system).toMatch(/at most 2 topics/u);
    expect(model.calls[0]!.prompt).toContain('id="a" keywords=["postgres","migration"]');
  });

  it('does not call the model for fewer than two topics', async () => {
    const model = new MockLanguageModel([]);
    expect(await new ModelSummarizer(model).groupTopics(topics.slice(0, 1), { target: 1 })).toEqual([]);
    expect(model.calls).toHaveLength(0);
  });
});

describe('ModelSummarizer.distillProfile', () => {
  const samples = [
    { id: 'n1', importance: 0.9, keywords: ['release', 'happy'] },
    { id: 'n2', importance: 0.1, keywords: ['outage'] },
  ];

  it('clamps values, cuts the personality and drops unknown nodes', async () => {
    const model = new MockLanguageModel([
      {
        emotion: { valence: 1.4, arousal: 'NaN', dominance: '0.7' },
        mbti: { i_e: -2, n_s: 0.3, t_f: 'x', j_p: 1 },
        personality: `Cheerful ${'and very productive '.repeat(20)}`,
        per_node: [
          { id: 'n1', valence: 0.9, arousal: 0.8 },
          { id: 'zzz', valence: 0, arousal: 0 },
        ],
      },
    ]);
    const result = await new ModelSummarizer(model).distillProfile(samples);
    expect(result.emotion).toEqual({ valence: 1, arousal: 0.5, dominance: 0.7 });
    expect(result.mbti).toEqual({ i_e: -1, n_s: 0.3, t_f: 0, j_p: 1 });
    expect([...result.personality].length).toBeLessThanOrEqual(160);
    expect(result.perNode).toEqual([{ id: 'n1', valence: 0.9, arousal: 0.8 }]);
    expect(model.calls[0]!.prompt).toContain('id="n1" importance=0.900 keywords=["release","happy"]');
  });

  it('refuses a reply without emotion or mbti rather than wiping the profile', async () => {
    const model = new MockLanguageModel([{ personality: 'x' }, { mbti: {} }, { emotion: {} }]);
    const error = await rejection(new ModelSummarizer(model).distillProfile(samples));
    expect(error.reason).toBe('invalid-output');
    expect(model.calls).toHaveLength(3);
  });

  it('is neutral without samples and without a call', async () => {
    const model = new MockLanguageModel([]);
    const result = await new ModelSummarizer(model).distillProfile([]);
    expect(result.mbti).toEqual({ i_e: 0, n_s: 0, t_f: 0, j_p: 0 });
    expect(model.calls).toHaveLength(0);
  });
});
