import { z } from 'zod';
import { parseInput } from '../core/validate.js';
import { UsageMeter } from './usage-meter.js';

/** Options of `createOpenAICompatible`. Every duration is in milliseconds. */
export interface OpenAICompatibleOptions {
  /**
   * The server's base URL. Default `https://api.openai.com/v1`. A trailing slash or
   * `/chat/completions` is removed, and `/v1` is added to a bare host
   * (`http://localhost:11434` → `http://localhost:11434/v1`).
   */
  readonly baseURL?: string;
  /** The API key. Default: `OPENAI_API_KEY` from the environment, else a placeholder (local servers need none). */
  readonly apiKey?: string;
  /** The chat model, e.g. `gpt-4o-mini`, `llama3.2`. */
  readonly model: string;
  /** Time allowed for one HTTP attempt. Default 60 000. */
  readonly timeoutMs?: number;
  /** Extra attempts after a retryable failure (429, 5xx, timeout, connection). Default 2. */
  readonly maxRetries?: number;
  /** First backoff delay; doubled at each retry, with ±20 % jitter. Default 500. */
  readonly retryDelayMs?: number;
  /** Upper bound of one wait, including a server's Retry-After. Default 10 000. */
  readonly maxRetryDelayMs?: number;
  /** Requests in flight at once (embeddings included); the rest wait in order. Default 4. */
  readonly concurrency?: number;
  /** Sampling temperature; `null` sends none (for models that reject it). Default 0. */
  readonly temperature?: number | null;
  /** Output token ceiling of one call, unless the call sets its own. Default 1024. */
  readonly maxOutputTokens?: number;
  /** Which request field carries the ceiling: newer OpenAI models want `max_completion_tokens`. */
  readonly maxTokensParameter?: 'max_tokens' | 'max_completion_tokens';
  /** Ask for `response_format: json_object` in `generateObject`. Turn off for servers that reject it. Default true. */
  readonly jsonMode?: boolean;
  /** Extra HTTP headers sent with every request (e.g. for a proxy). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Where call and token counts go; one is created when omitted (read it as `model.usage`). */
  readonly usage?: UsageMeter;
  /** The embedding model, e.g. `text-embedding-3-small`, `nomic-embed-text`. */
  readonly embeddingModel?: string;
  /** The embedding dimension; every returned vector is checked against it. */
  readonly dimensions?: number;
  /** Send `dimensions` in the request (only models that can shorten vectors accept it). Default false. */
  readonly sendDimensions?: boolean;
  /** Texts per embeddings request. Default 64. */
  readonly embeddingBatchSize?: number;
}

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * Normalises a base URL: trims it, drops trailing slashes and a trailing `/chat/completions`
 * or `/embeddings`, and adds `/v1` when the URL has no path at all.
 */
export function normalizeBaseURL(input: string): string {
  let url = input.trim().replace(/\/+$/u, '');
  url = url.replace(/\/(chat\/completions|completions|embeddings)$/u, '').replace(/\/+$/u, '');
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TypeError('must be an http(s) URL');
  return parsed.pathname === '/' || parsed.pathname === '' ? `${url}/v1` : url;
}

const baseURLSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .transform((value, context) => {
    try {
      return normalizeBaseURL(value);
    } catch {
      context.addIssue({ code: 'custom', message: 'must be an http(s) URL' });
      return z.NEVER;
    }
  });

const duration = (max: number) => z.number().int().min(0).max(max);

const optionsSchema = z.strictObject({
  baseURL: baseURLSchema.default(DEFAULT_BASE_URL),
  apiKey: z.string().min(1, 'must not be empty').optional(),
  model: z.string().trim().min(1, 'must not be empty'),
  timeoutMs: duration(3_600_000).min(1, 'must be at least 1').default(60_000),
  maxRetries: z.number().int().min(0).max(10).default(2),
  retryDelayMs: duration(60_000).default(500),
  maxRetryDelayMs: duration(600_000).default(10_000),
  concurrency: z.number().int().min(1).max(1024).default(4),
  temperature: z.number().min(0).max(2).nullable().default(0),
  maxOutputTokens: z.number().int().min(1).max(1_000_000).default(1024),
  maxTokensParameter: z.enum(['max_tokens', 'max_completion_tokens']).default('max_tokens'),
  jsonMode: z.boolean().default(true),
  headers: z.record(z.string(), z.string()).optional(),
  usage: z.instanceof(UsageMeter, { message: 'must be a UsageMeter' }).optional(),
  embeddingModel: z.string().trim().min(1, 'must not be empty').optional(),
  dimensions: z.number().int().min(1).max(65_536).optional(),
  sendDimensions: z.boolean().default(false),
  embeddingBatchSize: z.number().int().min(1).max(2048).default(64),
});

/** Options after defaults and normalisation (the API key resolved). */
export type ResolvedOptions = Omit<z.output<typeof optionsSchema>, 'apiKey'> & { readonly apiKey: string };

/** Checks and completes the options; a bad value throws `INVALID_INPUT` naming it. */
export function parseOpenAICompatibleOptions(
  options: unknown,
  what = 'createOpenAICompatible',
): ResolvedOptions {
  const parsed = parseInput(optionsSchema, options, what);
  const apiKey = parsed.apiKey ?? process.env['OPENAI_API_KEY'] ?? 'no-key';
  return { ...parsed, apiKey };
}
