import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from './concurrency-limiter.js';

describe('ConcurrencyLimiter', () => {
  it('runs at most `limit` tasks at once, in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) => async () => {
      started.push(i);
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return i;
    };
    const results = await Promise.all([0, 1, 2, 3, 4].map((i) => limiter.run(task(i))));
    expect(results).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(limiter.active).toBe(0);
  });

  it('releases the slot when a task throws, and drops an aborted waiter', async () => {
    const limiter = new ConcurrencyLimiter(1);
    let release!: () => void;
    const blocker = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const waiting = limiter.run(() => Promise.resolve('never'), controller.signal);
    expect(limiter.pending).toBe(1);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'LLM_FAILED', reason: 'aborted' });
    expect(limiter.pending).toBe(0);
    release();
    await blocker;
    await expect(limiter.run(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    expect(await limiter.run(() => Promise.resolve('ok'))).toBe('ok');
  });

  it('rejects a bad limit', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(RangeError);
  });
});
