/**
 * Bounded retries for HTTP model calls: which failures are worth another attempt, how long to
 * wait (exponential backoff, or the server's Retry-After), and how a failure is reported.
 */
import { LanguageModelError, type LanguageModelFailure } from './language-model-error.js';
import type { ConcurrencyLimiter } from './concurrency-limiter.js';
import type { OpenAISdk } from './openai-sdk.js';
import type { UsageMeter } from './usage-meter.js';

/** How an adapter retries. */
interface RetryPolicy {
  readonly maxRetries: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
}

interface Classified {
  readonly reason: LanguageModelFailure;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  readonly message: string;
}

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

/**
 * Runs `attempt` through the limiter, retrying retryable failures at most
 * `policy.maxRetries` times; the slot is released while waiting. Every failed attempt is
 * metered; the last failure is thrown as a {@link LanguageModelError}.
 */
export async function withRetries<T>(
  what: string,
  context: {
    sdk: OpenAISdk;
    policy: RetryPolicy;
    limiter: ConcurrencyLimiter;
    usage: UsageMeter;
    operation: string;
  },
  attempt: (signal: AbortSignal | undefined) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  const { sdk, policy, limiter, usage, operation } = context;
  for (let n = 1; ; n++) {
    try {
      return await limiter.run(() => attempt(signal), signal);
    } catch (error) {
      if (LanguageModelError.isLanguageModelError(error)) {
        if (error.reason !== 'aborted') usage.recordFailure(operation, error.usage);
        throw new LanguageModelError(error.reason, error.message, { ...errorFields(error), attempts: n });
      }
      const failure = classify(sdk, error, signal);
      usage.recordFailure(operation);
      if (!failure.retryable || n > policy.maxRetries) {
        const tries = n === 1 ? '' : ` after ${n} attempts`;
        throw new LanguageModelError(failure.reason, `${what}: ${failure.message}${tries}`, {
          cause: error,
          status: failure.status,
          attempts: n,
        });
      }
      await sleep(delayFor(n, failure, policy), signal);
    }
  }
}

function errorFields(error: LanguageModelError): {
  cause: unknown;
  status: number | undefined;
  usage: LanguageModelError['usage'];
} {
  return { cause: error.cause, status: error.status, usage: error.usage };
}

function classify(sdk: OpenAISdk, error: unknown, signal: AbortSignal | undefined): Classified {
  const base = { status: undefined, retryAfterMs: undefined };
  if (error instanceof sdk.APIUserAbortError || signal?.aborted) {
    return { ...base, reason: 'aborted', retryable: false, message: 'aborted by the caller' };
  }
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return { ...base, reason: 'timeout', retryable: true, message: 'the model did not answer in time' };
  }
  if (error instanceof sdk.APIConnectionError) {
    const detail = causeMessage(error);
    return {
      ...base,
      reason: 'connection',
      retryable: true,
      message: `cannot reach the model endpoint${detail}`,
    };
  }
  if (error instanceof sdk.APIError && typeof error.status === 'number') {
    const status = error.status;
    const reason = status === 429 ? 'rate-limit' : 'http';
    return {
      reason,
      retryable: RETRYABLE_STATUS.has(status),
      status,
      retryAfterMs: retryAfter(error.headers),
      message: `HTTP ${status}: ${error.message.replace(/^\d{3}\s*/u, '')}`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { ...base, reason: 'unknown', retryable: false, message };
}

function causeMessage(error: Error): string {
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const text = typeof cause?.message === 'string' ? cause.message : undefined;
  const detail = code ?? text;
  return detail ? ` (${detail})` : '';
}

function retryAfter(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && headers?.has('retry-after-ms')) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function delayFor(attempt: number, failure: Classified, policy: RetryPolicy): number {
  const backoff = policy.retryDelayMs * 2 ** (attempt - 1);
  // Jitter spreads the retries of many concurrent calls so they do not hit the server together.
  const jittered = backoff * (0.8 + Math.random() * 0.4);
  return Math.min(policy.maxRetryDelayMs, failure.retryAfterMs ?? jittered);
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(
        new LanguageModelError('aborted', 'model call aborted while waiting to retry', {
          cause: signal?.reason,
        }),
      );
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
