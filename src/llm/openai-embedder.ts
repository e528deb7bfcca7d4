import type { OpenAI } from 'openai';
import type { OpenAISdk } from './openai-sdk.js';
import type { ConcurrencyLimiter } from './concurrency-limiter.js';
import { LanguageModelError } from './language-model-error.js';
import type { ResolvedOptions } from './openai-options.js';
import { withRetries } from './request-retry.js';
import type { UsageMeter } from './usage-meter.js';
import type { Embedder } from './types.js';

const OPERATION = 'embed';

/**
 * An {@link Embedder} over an OpenAI-compatible `/embeddings` endpoint, sharing the chat
 * model's client, limiter, retries and usage meter. Every vector is checked to have exactly
 * `dimensions` numbers, so vectors of another model are never stored.
 */
export class OpenAICompatibleEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId: string;
  readonly dimensions: number;
  readonly #connect: () => Promise<{ sdk: OpenAISdk; client: OpenAI }>;
  readonly #options: ResolvedOptions;
  readonly #limiter: ConcurrencyLimiter;
  readonly #usage: UsageMeter;

  /** @internal Built by `createOpenAICompatible` with `embeddingModel` and `dimensions`. */
  constructor(
    connect: () => Promise<{ sdk: OpenAISdk; client: OpenAI }>,
    options: ResolvedOptions,
    limiter: ConcurrencyLimiter,
    usage: UsageMeter,
  ) {
    if (options.embeddingModel === undefined || options.dimensions === undefined) {
      throw new TypeError('embeddingModel and dimensions are required');
    }
    this.#connect = connect;
    this.#options = options;
    this.#limiter = limiter;
    this.#usage = usage;
    this.modelId = `openai-compatible:${options.embeddingModel}`;
    this.dimensions = options.dimensions;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let start = 0; start < texts.length; start += this.#options.embeddingBatchSize) {
      out.push(...(await this.#batch(texts.slice(start, start + this.#options.embeddingBatchSize))));
    }
    return out;
  }

  async #batch(texts: readonly string[]): Promise<Float32Array[]> {
    const model = this.#options.embeddingModel ?? '';
    const { sdk, client } = await this.#connect();
    const response = await withRetries(
      `embed (${model} at ${this.#options.baseURL})`,
      { sdk, policy: this.#options, limiter: this.#limiter, usage: this.#usage, operation: OPERATION },
      () =>
        client.embeddings.create({
          model,
          input: [...texts],
          encoding_format: 'float',
          ...(this.#options.sendDimensions ? { dimensions: this.dimensions } : {}),
        }),
      undefined,
    );
    const usage = { inputTokens: response.usage?.prompt_tokens ?? 0, outputTokens: 0 };
    const rows = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
    if (rows.length !== texts.length) {
      this.#usage.recordFailure(OPERATION, usage);
      throw new LanguageModelError(
        'invalid-output',
        `embed: asked for ${texts.length} vectors, got ${rows.length}`,
        {
          usage,
        },
      );
    }
    const vectors = rows.map((row) => toVector(row.embedding as unknown));
    const wrong = vectors.find((v) => v.length !== this.dimensions);
    if (wrong) {
      this.#usage.recordFailure(OPERATION, usage);
      throw new LanguageModelError(
        'invalid-output',
        `embed: ${model} returned vectors of ${wrong.length} dimensions, expected ${this.dimensions}`,
        { usage },
      );
    }
    this.#usage.recordCall(OPERATION, usage);
    return vectors;
  }
}

/** A vector from a JSON number array, or from base64 float32 (what some servers send anyway). */
function toVector(value: unknown): Float32Array {
  if (Array.isArray(value) && value.every((x) => typeof x === 'number'))
    return Float32Array.from(value as number[]);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    return new Float32Array(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength - (bytes.byteLength % 4)),
    );
  }
  return new Float32Array(0);
}
