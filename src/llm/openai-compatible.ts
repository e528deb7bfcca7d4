import type { OpenAI } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import type { z } from 'zod';
import { invalidInput } from '../core/errors.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';
import { parseJsonReply } from './json-reply.js';
import { LanguageModelError } from './language-model-error.js';
import { OpenAICompatibleEmbedder } from './openai-embedder.js';
import { createClient, type OpenAISdk } from './openai-sdk.js';
import {
  parseOpenAICompatibleOptions,
  type OpenAICompatibleOptions,
  type ResolvedOptions,
} from './openai-options.js';
import { withRetries } from './request-retry.js';
import { UsageMeter } from './usage-meter.js';
import type { Embedder, GenerateOptions, LanguageModel, TokenUsage } from './types.js';

/**
 * A {@link LanguageModel} over any server that speaks OpenAI's chat-completions API: OpenAI
 * itself, Ollama (`http://localhost:11434/v1`), vLLM, LiteLLM and others. Built by
 * {@link createOpenAICompatible}.
 *
 * Every call goes through a concurrency limiter, has a timeout, and is retried with backoff on
 * 408/409/425/429/5xx, timeouts and connection errors, at most `maxRetries` times; any failure
 * rejects with `LLM_FAILED` ({@link LanguageModelError}, whose `reason` says why). JSON replies
 * are requested with `response_format: json_object` and checked with the caller's zod schema.
 */
export class OpenAICompatibleModel implements LanguageModel {
  readonly specificationVersion = 'v1' as const;
  readonly modelId: string;
  /** Calls, failures and tokens per operation (`GenerateOptions.operation`). */
  readonly usage: UsageMeter;
  /** The embedder on the same server, when `embeddingModel` and `dimensions` were given. */
  readonly embedder: Embedder | undefined;
  /** The normalised base URL requests go to. */
  readonly baseURL: string;
  #client: Promise<{ sdk: OpenAISdk; client: OpenAI }> | undefined;
  readonly #options: ResolvedOptions;
  readonly #limiter: ConcurrencyLimiter;

  /** @internal Use {@link createOpenAICompatible}. */
  constructor(options: ResolvedOptions) {
    this.#options = options;
    this.baseURL = options.baseURL;
    this.modelId = `openai-compatible:${options.model}`;
    this.usage = options.usage ?? new UsageMeter();
    this.#limiter = new ConcurrencyLimiter(options.concurrency);
    this.embedder =
      options.embeddingModel !== undefined && options.dimensions !== undefined
        ? new OpenAICompatibleEmbedder(() => this.#connect(), options, this.#limiter, this.usage)
        : undefined;
  }

  /** Current number of requests in flight and waiting (for diagnostics). */
  get load(): { readonly active: number; readonly pending: number } {
    return { active: this.#limiter.active, pending: this.#limiter.pending };
  }

  async generateText(options: GenerateOptions): Promise<{ text: string; usage: TokenUsage }> {
    const operation = options.operation ?? 'generateText';
    const completion = await this.#complete(options, operation, false);
    const { text, usage } = await readCompletion(completion, options);
    this.usage.recordCall(operation, usage);
    return { text, usage };
  }

  async generateObject<S extends z.ZodType>(
    options: GenerateOptions & { readonly schema: S; readonly schemaName?: string },
  ): Promise<{ object: z.output<S>; usage: TokenUsage }> {
    const operation = options.operation ?? 'generateObject';
    const completion = await this.#complete(options, operation, this.#options.jsonMode);
    const { text, usage, truncated } = await readCompletion(completion, options);
    try {
      const object = parseJsonReply(
        text,
        options.schema,
        usage,
        truncated ? ' (cut off: output token limit)' : '',
      );
      this.usage.recordCall(operation, usage);
      return { object, usage };
    } catch (error) {
      this.usage.recordFailure(operation, usage);
      if (LanguageModelError.isLanguageModelError(error)) {
        throw new LanguageModelError(error.reason, `${operation}: ${error.message}`, {
          cause: error.cause,
          usage,
        });
      }
      throw error;
    }
  }

  /** The SDK and client, created on first use (so importing hedgehop never loads `openai`). */
  #connect(): Promise<{ sdk: OpenAISdk; client: OpenAI }> {
    this.#client ??= createClient(this.#options);
    return this.#client;
  }

  async #complete(options: GenerateOptions, operation: string, json: boolean): Promise<ChatCompletion> {
    const body = this.#body(options, json);
    const { sdk, client } = await this.#connect();
    return withRetries(
      `${operation} (${this.#options.model} at ${this.baseURL})`,
      { sdk, policy: this.#options, limiter: this.#limiter, usage: this.usage, operation },
      (signal) => client.chat.completions.create(body, signal ? { signal } : {}),
      options.signal,
    );
  }

  #body(options: GenerateOptions, json: boolean): ChatCompletionCreateParamsNonStreaming {
    const messages: ChatCompletionCreateParamsNonStreaming['messages'] = [];
    if (options.system) messages.push({ role: 'system', content: options.system });
    messages.push({ role: 'user', content: options.prompt });
    const maxTokens = options.maxOutputTokens ?? this.#options.maxOutputTokens;
    return {
      model: this.#options.model,
      messages,
      [this.#options.maxTokensParameter]: maxTokens,
      ...(this.#options.temperature === null ? {} : { temperature: this.#options.temperature }),
      ...(json ? { response_format: { type: 'json_object' as const } } : {}),
    };
  }
}

async function readCompletion(
  completion: ChatCompletion,
  options: GenerateOptions,
): Promise<{ text: string; usage: TokenUsage; truncated: boolean }> {
  const choice = completion.choices?.[0];
  const text = choice?.message?.content ?? '';
  const usage = await usageOf(completion, options, text);
  if (!choice) throw new LanguageModelError('invalid-output', 'the reply has no choices', { usage });
  if (choice.message?.content == null && choice.message?.refusal) {
    throw new LanguageModelError('refused', `the model refused: ${choice.message.refusal}`, { usage });
  }
  return { text, usage, truncated: choice.finish_reason === 'length' };
}

/** Token counts from the server, or counted locally (o200k) when a server does not report them. */
async function usageOf(
  completion: ChatCompletion,
  options: GenerateOptions,
  text: string,
): Promise<TokenUsage> {
  const reported = completion.usage;
  if (reported && Number.isFinite(reported.prompt_tokens) && Number.isFinite(reported.completion_tokens)) {
    return { inputTokens: reported.prompt_tokens, outputTokens: reported.completion_tokens };
  }
  // The tokenizer's tables are large: load them only for servers that report no usage.
  const { countTokens } = await import('../core/tokens.js');
  return {
    inputTokens: countTokens((options.system ?? '') + options.prompt),
    outputTokens: countTokens(text),
  };
}

/**
 * Creates a {@link LanguageModel} (and, with `embeddingModel` and `dimensions`, an
 * {@link Embedder} as `.embedder`) for any OpenAI-compatible server. Options are checked at
 * once: a bad value throws `INVALID_INPUT` naming it.
 *
 * @example
 * ```ts
 * // OpenAI (the key is read from OPENAI_API_KEY when not given)
 * const openai = createOpenAICompatible({ model: 'gpt-4o-mini' });
 * // Ollama on this machine, with embeddings
 * const ollama = createOpenAICompatible({
 *   baseURL: 'http://localhost:11434', model: 'llama3.2',
 *   embeddingModel: 'nomic-embed-text', dimensions: 768,
 * });
 * const db = await openMemory('agent.db', { llm: ollama, embedder: ollama.embedder });
 * ```
 */
export function createOpenAICompatible(options: OpenAICompatibleOptions): OpenAICompatibleModel {
  return new OpenAICompatibleModel(parseOpenAICompatibleOptions(options));
}

/**
 * Creates only an {@link Embedder} for an OpenAI-compatible `/embeddings` endpoint;
 * `embeddingModel` and `dimensions` are required, `model` is not.
 *
 * @example
 * ```ts
 * const embedder = createOpenAICompatibleEmbedder({ embeddingModel: 'text-embedding-3-small', dimensions: 1536 });
 * ```
 */
export function createOpenAICompatibleEmbedder(
  options: Omit<OpenAICompatibleOptions, 'model' | 'embeddingModel' | 'dimensions'> & {
    readonly model?: string;
    readonly embeddingModel: string;
    readonly dimensions: number;
  },
): Embedder {
  const what = 'createOpenAICompatibleEmbedder';
  if (typeof options?.embeddingModel !== 'string')
    throw invalidInput(`${what}.embeddingModel`, 'is required');
  if (typeof options.dimensions !== 'number') throw invalidInput(`${what}.dimensions`, 'is required');
  const model = new OpenAICompatibleModel(
    parseOpenAICompatibleOptions({ ...options, model: options.model ?? options.embeddingModel }, what),
  );
  return model.embedder!;
}
