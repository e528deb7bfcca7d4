import type { z } from 'zod';
import { parseJsonReply } from './json-reply.js';
import { LanguageModelError } from './language-model-error.js';
import type { GenerateOptions, LanguageModel, TokenUsage } from './types.js';

/** One scripted reply: text (JSON text for `generateObject`), an object, or an error to throw. */
export type MockReply = string | object | Error;

/** What {@link MockLanguageModel} answers: a list used in order, or a function of the call. */
export type MockScript =
  | readonly MockReply[]
  | ((options: GenerateOptions, call: number) => MockReply | Promise<MockReply>);

/**
 * A scripted {@link LanguageModel} for tests: no network, every call recorded in `calls`.
 * `generateObject` parses and checks the reply like the real adapter, so a reply of the wrong
 * shape fails with `LLM_FAILED` (`invalid-output`). Usage counts characters / 4 as tokens.
 *
 * @example
 * ```ts
 * const model = new MockLanguageModel(['{"summary":"Fixed the login bug."}']);
 * const summarizer = new ModelSummarizer(model);
 * ```
 */
export class MockLanguageModel implements LanguageModel {
  readonly specificationVersion = 'v1' as const;
  readonly modelId: string;
  /** Every call's options, in order. */
  readonly calls: GenerateOptions[] = [];
  readonly #script: MockScript;

  constructor(script: MockScript = [], options: { readonly modelId?: string } = {}) {
    this.#script = script;
    this.modelId = options.modelId ?? 'mock';
  }

  async generateText(options: GenerateOptions): Promise<{ text: string; usage: TokenUsage }> {
    const reply = await this.#next(options);
    const text = typeof reply === 'string' ? reply : JSON.stringify(reply);
    return { text, usage: usageOf(options, text) };
  }

  async generateObject<S extends z.ZodType>(
    options: GenerateOptions & { readonly schema: S; readonly schemaName?: string },
  ): Promise<{ object: z.output<S>; usage: TokenUsage }> {
    const reply = await this.#next(options);
    const text = typeof reply === 'string' ? reply : JSON.stringify(reply);
    const usage = usageOf(options, text);
    return { object: parseJsonReply(text, options.schema, usage), usage };
  }

  async #next(options: GenerateOptions): Promise<string | object> {
    const call = this.calls.length;
    this.calls.push(options);
    if (options.signal?.aborted) throw new LanguageModelError('aborted', 'mock: aborted');
    const reply =
      typeof this.#script === 'function'
        ? await this.#script(options, call)
        : (this.#script as readonly MockReply[])[call];
    if (reply === undefined) {
      throw new LanguageModelError('unknown', `mock: no scripted reply for call ${call + 1}`);
    }
    if (reply instanceof Error) throw reply;
    return reply;
  }
}

function usageOf(options: GenerateOptions, text: string): TokenUsage {
  const input = (options.system ?? '').length + options.prompt.length;
  return { inputTokens: Math.ceil(input / 4), outputTokens: Math.ceil(text.length / 4) };
}
