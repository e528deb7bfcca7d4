import { HedgehopError } from '../core/errors.js';
import type { TokenUsage } from './types.js';

/** Why a model call failed. `invalid-output` is the only reason a summariser retries on. */
export type LanguageModelFailure =
  | 'timeout'
  | 'connection'
  | 'rate-limit'
  | 'http'
  | 'invalid-output'
  | 'refused'
  | 'aborted'
  | 'unknown';

/**
 * A failed model call: a {@link HedgehopError} with code `LLM_FAILED`, plus why (`reason`),
 * the HTTP status when there was one, and how many attempts were made.
 *
 * @example
 * ```ts
 * catch (error) {
 *   if (LanguageModelError.isLanguageModelError(error) && error.reason === 'rate-limit') { … }
 * }
 * ```
 */
export class LanguageModelError extends HedgehopError {
  readonly reason: LanguageModelFailure;
  readonly status: number | undefined;
  readonly attempts: number;
  /** Tokens spent on the failed call, when a reply arrived but could not be used. */
  readonly usage: TokenUsage | undefined;

  constructor(
    reason: LanguageModelFailure,
    message: string,
    options: {
      cause?: unknown;
      status?: number | undefined;
      attempts?: number;
      usage?: TokenUsage | undefined;
    } = {},
  ) {
    super('LLM_FAILED', message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'LanguageModelError';
    this.reason = reason;
    this.status = options.status;
    this.attempts = options.attempts ?? 1;
    this.usage = options.usage;
  }

  /** True for a {@link LanguageModelError} (from any copy of the package). */
  static isLanguageModelError(value: unknown): value is LanguageModelError {
    return HedgehopError.isInstance(value) && value.code === 'LLM_FAILED' && 'reason' in value;
  }
}
