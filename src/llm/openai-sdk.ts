import type * as Sdk from 'openai';
import type { OpenAI } from 'openai';
import type { ResolvedOptions } from './openai-options.js';

/** The `openai` module, as loaded. */
export type OpenAISdk = typeof Sdk;

let loading: Promise<OpenAISdk> | undefined;

/**
 * Loads the `openai` package on first use: users of the offline default (and quick CLI
 * commands) never pay for importing it.
 */
function loadOpenAISdk(): Promise<OpenAISdk> {
  loading ??= import('openai');
  return loading;
}

/** A client for the options, with the SDK's own retries off (ours are bounded and metered). */
export async function createClient(options: ResolvedOptions): Promise<{ sdk: OpenAISdk; client: OpenAI }> {
  const sdk = await loadOpenAISdk();
  const client = new sdk.OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    timeout: options.timeoutMs,
    maxRetries: 0,
    logLevel: 'off',
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
  });
  return { sdk, client };
}
