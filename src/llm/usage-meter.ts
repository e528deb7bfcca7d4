import type { TokenUsage } from './types.js';

/** What one operation (e.g. `summarize`, `distillKeywords`) has cost so far. */
export interface OperationUsage {
  /** Model calls made, retries included. */
  readonly calls: number;
  /** Calls that failed (transport error, refusal or unusable output). */
  readonly failures: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

const ZERO: OperationUsage = { calls: 0, failures: 0, inputTokens: 0, outputTokens: 0 };

/**
 * Counts model calls and tokens per operation, so users can see what memory costs them.
 * Both the OpenAI-compatible adapter (`model.usage`) and `ModelSummarizer` (`summarizer.usage`)
 * keep one; the operation name comes from `GenerateOptions.operation`.
 *
 * @example
 * ```ts
 * const model = createOpenAICompatible({ model: 'gpt-4o-mini' });
 * // … use memory …
 * console.table(model.usage.snapshot()); // { summarize: { calls, failures, inputTokens, outputTokens }, … }
 * ```
 */
export class UsageMeter {
  readonly #operations = new Map<string, OperationUsage>();

  /** Records one successful call. */
  recordCall(operation: string, usage: TokenUsage): void {
    const current = this.get(operation);
    this.#operations.set(operation, {
      calls: current.calls + 1,
      failures: current.failures,
      inputTokens: current.inputTokens + usage.inputTokens,
      outputTokens: current.outputTokens + usage.outputTokens,
    });
  }

  /** Records one failed call; tokens are counted when the reply arrived but was unusable. */
  recordFailure(operation: string, usage: TokenUsage = { inputTokens: 0, outputTokens: 0 }): void {
    const current = this.get(operation);
    this.#operations.set(operation, {
      calls: current.calls + 1,
      failures: current.failures + 1,
      inputTokens: current.inputTokens + usage.inputTokens,
      outputTokens: current.outputTokens + usage.outputTokens,
    });
  }

  /** The usage of one operation (zeros when it never ran). */
  get(operation: string): OperationUsage {
    return this.#operations.get(operation) ?? ZERO;
  }

  /** Every operation's usage, by name (a copy). */
  snapshot(): Record<string, OperationUsage> {
    return Object.fromEntries([...this.#operations].sort(([a], [b]) => a.localeCompare(b)));
  }

  /** All operations added up. */
  total(): OperationUsage {
    let total = ZERO;
    for (const usage of this.#operations.values()) {
      total = {
        calls: total.calls + usage.calls,
        failures: total.failures + usage.failures,
        inputTokens: total.inputTokens + usage.inputTokens,
        outputTokens: total.outputTokens + usage.outputTokens,
      };
    }
    return total;
  }

  /** Forgets everything counted so far. */
  reset(): void {
    this.#operations.clear();
  }
}
