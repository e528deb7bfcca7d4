import { LanguageModelError } from './language-model-error.js';

/**
 * Runs at most `limit` tasks at once; the others wait in arrival order. A waiting task whose
 * signal aborts leaves the queue at once.
 */
export class ConcurrencyLimiter {
  readonly limit: number;
  #active = 0;
  readonly #waiting: { start: () => void; cancel: () => void }[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('concurrency must be an integer >= 1');
    this.limit = limit;
  }

  /** Tasks running now. */
  get active(): number {
    return this.#active;
  }

  /** Tasks waiting for a slot. */
  get pending(): number {
    return this.#waiting.length;
  }

  /** Runs `task` when a slot is free. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await task();
    } finally {
      this.#release();
    }
  }

  #acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(aborted(signal));
    if (this.#active < this.limit) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const at = this.#waiting.indexOf(entry);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(aborted(signal));
      };
      const entry = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.#active++;
          resolve();
        },
        cancel: onAbort,
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  #release(): void {
    this.#active--;
    this.#waiting.shift()?.start();
  }
}

function aborted(signal: AbortSignal | undefined): LanguageModelError {
  return new LanguageModelError('aborted', 'model call aborted while waiting for a free slot', {
    cause: signal?.reason,
    attempts: 0,
  });
}
