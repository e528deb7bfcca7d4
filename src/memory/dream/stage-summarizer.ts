import { LanguageModelError } from '../../llm/language-model-error.js';
import type {
  ProfileDistillation,
  ProfileSample,
  SummarizeContext,
  Summarizer,
  TopicForGrouping,
  TopicGroup,
  TurnUtterance,
} from '../../llm/types.js';

/** Default bound on one summariser call made by Dream (the adapter has its own timeouts too). */
export const DREAM_CALL_TIMEOUT_MS = 120_000;

/**
 * Rejects with `LLM_FAILED` (`aborted`) as soon as `signal` aborts, or (`timeout`) after
 * `timeoutMs`, whichever comes first; otherwise settles like `promise`. The abandoned call
 * keeps running, but nothing waits for it any more.
 */
export function raceCall<T>(
  promise: Promise<T>,
  signal: AbortSignal,
  timeoutMs: number,
  what: string,
): Promise<T> {
  if (signal.aborted)
    return Promise.reject(new LanguageModelError('aborted', `${what}: Dream was cancelled`));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      cleanup();
      reject(new LanguageModelError('aborted', `${what}: Dream was cancelled`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new LanguageModelError('timeout', `${what}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const cleanup = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        cleanup();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * The summariser as one Dream stage sees it: counts the calls the stage makes, and bounds each
 * call by the pass's cancellation signal and a timeout, so a hung model never hangs the pass
 * (nor `db.close()`, which cancels it).
 */
export class StageSummarizer implements Summarizer {
  readonly specificationVersion = 'v1' as const;
  readonly id: string;
  calls = 0;
  failures = 0;
  readonly #inner: Summarizer;
  readonly #signal: AbortSignal;
  readonly #timeoutMs: number;

  constructor(inner: Summarizer, signal: AbortSignal, timeoutMs = DREAM_CALL_TIMEOUT_MS) {
    this.#inner = inner;
    this.#signal = signal;
    this.#timeoutMs = timeoutMs;
    this.id = inner.id;
  }

  summarize(text: string, maxChars: number, context?: SummarizeContext): Promise<string> {
    return this.#call('summarize', () => this.#inner.summarize(text, maxChars, context));
  }

  verifyMatch(query: string, summary: string): Promise<{ match: boolean; confidence: number }> {
    return this.#call('verifyMatch', () => this.#inner.verifyMatch(query, summary));
  }

  distillKeywords(utterances: readonly TurnUtterance[]): Promise<string[]> {
    return this.#call('distillKeywords', () => this.#inner.distillKeywords(utterances));
  }

  groupTopics(
    topics: readonly TopicForGrouping[],
    options: { readonly target: number },
  ): Promise<TopicGroup[]> {
    return this.#call('groupTopics', () => this.#inner.groupTopics(topics, options));
  }

  distillProfile(samples: readonly ProfileSample[]): Promise<ProfileDistillation> {
    return this.#call('distillProfile', () => this.#inner.distillProfile(samples));
  }

  async #call<T>(operation: string, run: () => Promise<T>): Promise<T> {
    this.calls++;
    try {
      // `run` may throw synchronously (a broken custom summariser): that is a failed call too.
      return await raceCall(Promise.resolve().then(run), this.#signal, this.#timeoutMs, operation);
    } catch (error) {
      this.failures++;
      throw error;
    }
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
