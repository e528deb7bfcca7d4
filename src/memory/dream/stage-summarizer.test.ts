import { describe, expect, it } from 'vitest';
import { OfflineSummarizer } from '../../llm/offline-summarizer.js';
import type { Summarizer } from '../../llm/types.js';
import { raceCall, StageSummarizer } from './stage-summarizer.js';

const never = new Promise<never>(() => undefined);

describe('StageSummarizer', () => {
  it('counts calls and failures, including a summariser that throws synchronously', async () => {
    const broken = {
      ...new OfflineSummarizer(),
      id: 'broken',
      specificationVersion: 'v1',
      distillKeywords: () => {
        throw new Error('sync boom');
      },
    } as unknown as Summarizer;
    const stage = new StageSummarizer(broken, new AbortController().signal);
    await expect(stage.distillKeywords([{ role: 'user', content: 'x' }])).rejects.toThrow('sync boom');
    expect(stage.id).toBe('broken');
    expect([stage.calls, stage.failures]).toEqual([1, 1]);
  });

  it('gives up on a call that does not answer in time, or when the pass is cancelled', async () => {
    const slow = new AbortController();
    await expect(raceCall(never, slow.signal, 20, 'groupTopics')).rejects.toMatchObject({
      code: 'LLM_FAILED',
      reason: 'timeout',
      message: 'groupTopics: no answer within 20 ms',
    });
    const pending = raceCall(never, slow.signal, 60_000, 'distillProfile');
    slow.abort();
    await expect(pending).rejects.toMatchObject({ code: 'LLM_FAILED', reason: 'aborted' });
    await expect(raceCall(Promise.resolve(1), slow.signal, 10, 'x')).rejects.toMatchObject({
      reason: 'aborted',
    });
    await expect(raceCall(Promise.resolve(7), new AbortController().signal, 10, 'x')).resolves.toBe(7);
  });
});
