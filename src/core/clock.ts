/** A source of wall-clock milliseconds; injectable so tests can control time. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A clock that never goes backwards and never repeats within one process, so that
 * "newest" is always well defined even for calls in the same millisecond.
 */
export class MonotonicClock implements Clock {
  readonly #source: Clock;
  #last = 0;

  constructor(source: Clock = systemClock) {
    this.#source = source;
  }

  now(): number {
    const value = Math.max(this.#source.now(), this.#last + 1);
    this.#last = value;
    return value;
  }
}
