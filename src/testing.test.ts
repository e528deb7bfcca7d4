import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ModelSummarizer } from './llm/model-summarizer.js';
import { MockEmbedder, MockLanguageModel, MockSummarizer } from './testing.js';

describe('hedgehop/testing', () => {
  it('MockLanguageModel replays scripted replies and records calls', async () => {
    const model = new MockLanguageModel(['plain text', { answer: 42 }, new Error('down')]);
    expect((await model.generateText({ prompt: 'a' })).text).toBe('plain text');
    const { object } = await model.generateObject({ prompt: 'b', schema: z.object({ answer: z.number() }) });
    expect(object).toEqual({ answer: 42 });
    await expect(model.generateText({ prompt: 'c' })).rejects.toThrow('down');
    await expect(model.generateText({ prompt: 'd' })).rejects.toMatchObject({ code: 'LLM_FAILED' });
    expect(model.calls.map((c) => c.prompt)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('MockLanguageModel checks objects against the schema', async () => {
    const model = new MockLanguageModel(() => '{"answer": "forty-two"}');
    await expect(
      model.generateObject({ prompt: 'x', schema: z.object({ answer: z.number() }) }),
    ).rejects.toMatchObject({ code: 'LLM_FAILED', reason: 'invalid-output' });
    const summarizer = new ModelSummarizer(new MockLanguageModel(() => ({ summary: 'Short.' })));
    expect(await summarizer.summarize('Long text. '.repeat(30), 80)).toBe('Short.');
  });

  it('MockSummarizer is predictable and can be made to fail', async () => {
    const s = new MockSummarizer();
    expect(await s.summarize('alpha beta gamma delta', 12)).toBe('alpha beta…');
    expect(await s.verifyMatch('beta', 'alpha beta')).toEqual({ match: true, confidence: 1 });
    expect(
      await s.distillKeywords([{ role: 'user', content: 'The Auth service and the auth token' }]),
    ).toEqual(['auth', 'service', 'token']);
    const groups = await s.groupTopics(
      [
        { id: 'a', keywords: ['x', 'y'] },
        { id: 'b', keywords: ['y'] },
        { id: 'c', keywords: ['z'] },
      ],
      { target: 1 },
    );
    expect(groups).toEqual([{ topicIds: ['a', 'b'], mergedSummary: 'Keywords: x, y.' }]);
    s.failing = new Set(['distillKeywords']);
    await expect(s.distillKeywords([])).rejects.toMatchObject({ code: 'LLM_FAILED' });
    expect(await s.summarize('ok', 80)).toBe('ok');
    s.failing = true;
    await expect(s.summarize('ok', 80)).rejects.toMatchObject({ code: 'LLM_FAILED' });
    expect(s.calls.map((c) => c.operation)).toContain('groupTopics');
  });

  it('MockEmbedder gives deterministic unit vectors of a fixed dimension, closer for shared words', async () => {
    const e = new MockEmbedder({ dimensions: 32 });
    expect(e.modelId).toBe('mock-hash-32');
    const [a, b, c, again, empty] = await e.embed([
      'postgres migration plan',
      'the postgres migration',
      'holiday flights to Lisbon',
      'postgres migration plan',
      '',
    ]);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((sum, v, i) => sum + v * y[i]!, 0);
    expect(a!.length).toBe(32);
    expect(dot(a!, a!)).toBeCloseTo(1);
    expect(dot(a!, b!)).toBeGreaterThan(dot(a!, c!));
    expect(Array.from(again!)).toEqual(Array.from(a!));
    expect(Array.from(empty!).every((v) => v === 0)).toBe(true);
    e.failing = true;
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'LLM_FAILED' });
    expect(() => new MockEmbedder({ dimensions: 0 })).toThrow(RangeError);
  });
});
