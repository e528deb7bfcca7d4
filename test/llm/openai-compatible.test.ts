import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { HedgehopError } from '../../src/core/errors.js';
import { LanguageModelError } from '../../src/llm/language-model-error.js';
import { ModelSummarizer } from '../../src/llm/model-summarizer.js';
import {
  createOpenAICompatible,
  createOpenAICompatibleEmbedder,
  type OpenAICompatibleModel,
} from '../../src/llm/openai-compatible.js';
import { type OpenAICompatibleOptions, normalizeBaseURL } from '../../src/llm/openai-options.js';
import {
  chatReply,
  closedPort,
  embeddingReply,
  startScriptedServer,
  type ScriptHandler,
  type ScriptedServer,
} from './scripted-openai-server.js';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: ScriptHandler): Promise<ScriptedServer> {
  const server = await startScriptedServer(handler);
  servers.push(server);
  return server;
}

function modelFor(
  server: ScriptedServer,
  options: Partial<OpenAICompatibleOptions> = {},
): OpenAICompatibleModel {
  return createOpenAICompatible({
    baseURL: server.baseURL,
    model: 'test-model',
    apiKey: 'sk-test',
    retryDelayMs: 5,
    maxRetries: 2,
    timeoutMs: 5000,
    ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<LanguageModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(HedgehopError.isInstance(error)).toBe(true);
  expect((error as HedgehopError).code).toBe('LLM_FAILED');
  expect(LanguageModelError.isLanguageModelError(error)).toBe(true);
  return error as LanguageModelError;
}

const answerSchema = z.object({ answer: z.string(), score: z.number() });

describe('OpenAI-compatible adapter over HTTP', () => {
  it('generates text, sends the model, messages, key and settings, and meters tokens', async () => {
    const server = await serve(() => ({ json: chatReply('Hello there.') }));
    const model = modelFor(server);
    const result = await model.generateText({ system: 'Be brief.', prompt: 'Say hello', operation: 'greet' });
    expect(result).toEqual({ text: 'Hello there.', usage: { inputTokens: 11, outputTokens: 7 } });
    const [request] = server.requests;
    expect(request!.path).toBe('/v1/chat/completions');
    expect(request!.headers.authorization).toBe('Bearer sk-test');
    expect(request!.body).toMatchObject({
      model: 'test-model',
      temperature: 0,
      max_tokens: 1024,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(request!.body['response_format']).toBeUndefined();
    expect(model.usage.get('greet')).toEqual({ calls: 1, failures: 0, inputTokens: 11, outputTokens: 7 });
    expect(model.modelId).toBe('openai-compatible:test-model');
  });

  it('generates a schema-checked object in JSON mode, tolerating a code fence', async () => {
    const server = await serve(() => ({ json: chatReply('```json\n{"answer":"yes","score":0.5}\n```') }));
    const model = modelFor(server);
    const { object } = await model.generateObject({ prompt: 'Answer in JSON', schema: answerSchema });
    expect(object).toEqual({ answer: 'yes', score: 0.5 });
    expect(server.requests[0]!.body['response_format']).toEqual({ type: 'json_object' });
    expect(model.usage.get('generateObject').calls).toBe(1);
  });

  it('counts tokens locally when the server reports none', async () => {
    const server = await serve(() => ({ json: chatReply('a short reply', { usage: false }) }));
    const { usage } = await modelFor(server).generateText({ prompt: 'hello world' });
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
  });

  it('times out a slow server, retries a bounded number of times, then fails with reason timeout', async () => {
    const server = await serve(() => ({ hang: true }));
    const model = modelFor(server, { timeoutMs: 150, maxRetries: 1 });
    const error = await failure(model.generateText({ prompt: 'hi' }));
    expect(error.reason).toBe('timeout');
    expect(error.attempts).toBe(2);
    expect(error.message).toMatch(/did not answer in time after 2 attempts/u);
    expect(server.requests).toHaveLength(2);
    expect(model.usage.get('generateText')).toMatchObject({ calls: 2, failures: 2 });
  });

  it('retries HTTP 500 and reports the status when it persists', async () => {
    const server = await serve(() => ({ status: 500, json: { error: { message: 'boom' } } }));
    const error = await failure(modelFor(server).generateText({ prompt: 'hi' }));
    expect(error.reason).toBe('http');
    expect(error.status).toBe(500);
    expect(error.message).toMatch(/HTTP 500/u);
    expect(error.message).toMatch(/test-model at http:\/\/127\.0\.0\.1:\d+\/v1/u);
    expect(server.requests).toHaveLength(3);
  });

  it('waits out a 429 (honouring Retry-After) and then succeeds', async () => {
    const server = await serve((_, i) =>
      i === 0
        ? { status: 429, json: { error: { message: 'slow down' } }, headers: { 'retry-after-ms': '20' } }
        : { json: chatReply('ok now') },
    );
    const model = modelFor(server);
    expect((await model.generateText({ prompt: 'hi' })).text).toBe('ok now');
    expect(server.requests).toHaveLength(2);
    expect(model.usage.get('generateText')).toEqual({
      calls: 2,
      failures: 1,
      inputTokens: 11,
      outputTokens: 7,
    });
  });

  it('reports a persistent 429 as rate-limit', async () => {
    const server = await serve(() => ({ status: 429, json: { error: { message: 'quota' } } }));
    const error = await failure(modelFor(server, { maxRetries: 1 }).generateText({ prompt: 'hi' }));
    expect(error.reason).toBe('rate-limit');
    expect(error.attempts).toBe(2);
  });

  it('does not retry a client error such as 401', async () => {
    const server = await serve(() => ({ status: 401, json: { error: { message: 'bad key' } } }));
    const error = await failure(modelFor(server).generateText({ prompt: 'hi' }));
    expect(error.status).toBe(401);
    expect(error.attempts).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('rejects malformed JSON once, without transport retries', async () => {
    const server = await serve(() => ({ json: chatReply('{"answer": "yes", ') }));
    const model = modelFor(server);
    const error = await failure(model.generateObject({ prompt: 'json please', schema: answerSchema }));
    expect(error.reason).toBe('invalid-output');
    expect(error.message).toMatch(/not JSON/u);
    expect(error.usage).toEqual({ inputTokens: 11, outputTokens: 7 });
    expect(server.requests).toHaveLength(1);
    expect(model.usage.get('generateObject')).toMatchObject({ calls: 1, failures: 1 });
  });

  it('rejects JSON of the wrong shape, naming the field', async () => {
    const server = await serve(() => ({ json: chatReply('{"answer": "yes", "score": "high"}') }));
    const error = await failure(modelFor(server).generateObject({ prompt: 'json', schema: answerSchema }));
    expect(error.reason).toBe('invalid-output');
    expect(error.message).toMatch(/schema: score/u);
  });

  it('says when the output was cut off by the token limit', async () => {
    const server = await serve(() => ({ json: chatReply('{"answer": "ye', { finishReason: 'length' }) }));
    const error = await failure(modelFor(server).generateObject({ prompt: 'json', schema: answerSchema }));
    expect(error.message).toMatch(/cut off/u);
  });

  it('reports a refusal and a reply without choices', async () => {
    const refusing = await serve(() => ({ json: chatReply(null, { refusal: 'I cannot help with that' }) }));
    expect((await failure(modelFor(refusing).generateText({ prompt: 'x' }))).reason).toBe('refused');
    const empty = await serve(() => ({ json: { id: 'x', object: 'chat.completion', choices: [] } }));
    expect((await failure(modelFor(empty).generateText({ prompt: 'x' }))).message).toMatch(/no choices/u);
  });

  it('fails fast with reason connection when nothing listens', async () => {
    const port = await closedPort();
    const model = createOpenAICompatible({
      baseURL: `http://127.0.0.1:${port}`,
      model: 'm',
      maxRetries: 2,
      retryDelayMs: 5,
    });
    const error = await failure(model.generateText({ prompt: 'hi' }));
    expect(error.reason).toBe('connection');
    expect(error.attempts).toBe(3);
    expect(error.message).toMatch(/cannot reach the model endpoint/u);
  });

  it('treats a dropped connection as retryable', async () => {
    const server = await serve((_, i) =>
      i === 0 ? { destroy: true } : { json: chatReply('second time lucky') },
    );
    expect((await modelFor(server).generateText({ prompt: 'hi' })).text).toBe('second time lucky');
  });

  it('stops when the caller aborts, without retrying', async () => {
    const server = await serve(() => ({ hang: true }));
    const controller = new AbortController();
    const pending = modelFor(server).generateText({ prompt: 'hi', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    const error = await failure(pending);
    expect(error.reason).toBe('aborted');
    expect(server.requests).toHaveLength(1);
  });

  it('keeps at most `concurrency` requests in flight', async () => {
    const server = await serve(() => ({ json: chatReply('done'), delayMs: 30 }));
    const model = modelFor(server, { concurrency: 2 });
    const results = await Promise.all(
      Array.from({ length: 7 }, (_, i) => model.generateText({ prompt: `n${i}` })),
    );
    expect(results.every((r) => r.text === 'done')).toBe(true);
    expect(server.requests).toHaveLength(7);
    expect(server.maxInFlight).toBe(2);
  });

  it('sends max_completion_tokens and no temperature when configured so, and no JSON mode when off', async () => {
    const server = await serve(() => ({ json: chatReply('{"answer":"a","score":1}') }));
    const model = modelFor(server, {
      maxTokensParameter: 'max_completion_tokens',
      temperature: null,
      jsonMode: false,
    });
    await model.generateObject({ prompt: 'json', schema: answerSchema, maxOutputTokens: 99 });
    const body = server.requests[0]!.body;
    expect(body['max_completion_tokens']).toBe(99);
    expect(body['max_tokens']).toBeUndefined();
    expect(body['temperature']).toBeUndefined();
    expect(body['response_format']).toBeUndefined();
  });
});

describe('ModelSummarizer over HTTP when the model misbehaves', () => {
  it('asks again after unusable output, with a reminder, then fails with LLM_FAILED', async () => {
    const server = await serve(() => ({ json: chatReply('Sure! Here is your summary: it went well.') }));
    const summarizer = new ModelSummarizer(modelFor(server), { outputRetries: 2 });
    const error = await failure(summarizer.summarize('A sentence that is long enough. '.repeat(10), 80));
    expect(error.reason).toBe('invalid-output');
    expect(error.message).toMatch(/^summarize: no usable reply after 3 attempts/u);
    expect(server.requests).toHaveLength(3);
    const lastUser = (server.requests[2]!.body['messages'] as { content: string }[]).at(-1)!.content;
    expect(lastUser).toMatch(/previous reply could not be used/u);
    expect(summarizer.usage.get('summarize')).toMatchObject({ calls: 3, failures: 3 });
  });

  it('recovers when a retry gives usable output', async () => {
    const server = await serve((_, i) => ({
      json: chatReply(i === 0 ? '{"keywords": "not a list"}' : '{"keywords": ["Alice", "billing", "Alice"]}'),
    }));
    const summarizer = new ModelSummarizer(modelFor(server));
    expect(
      await summarizer.distillKeywords([{ role: 'user', content: 'Alice asked about billing.' }]),
    ).toEqual(['Alice', 'billing']);
    expect(server.requests).toHaveLength(2);
  });

  it('does not pile output retries on top of transport failures', async () => {
    const server = await serve(() => ({ status: 503, json: { error: { message: 'down' } } }));
    const summarizer = new ModelSummarizer(modelFor(server, { maxRetries: 1 }), { outputRetries: 3 });
    const error = await failure(summarizer.verifyMatch('auth', 'auth service'));
    expect(error.reason).toBe('http');
    expect(error.message).toMatch(/^verifyMatch: /u);
    expect(server.requests).toHaveLength(2);
  });

  it('cuts an overlong summary back to the budget at a word boundary', async () => {
    const long = 'The quick brown fox jumps over the lazy dog again and again. '.repeat(5);
    const server = await serve(() => ({ json: chatReply(JSON.stringify({ summary: long })) }));
    const summarizer = new ModelSummarizer(modelFor(server));
    const out = await summarizer.summarize('Some long input sentence here. '.repeat(20), 80, {
      level: 'origin',
    });
    expect([...out].length).toBeLessThanOrEqual(80);
    expect(out.endsWith('…')).toBe(true);
    expect(long.startsWith(out.slice(0, -1))).toBe(true);
    expect(out.slice(0, -1)).toMatch(/\p{L}$/u);
  });
});

describe('OpenAI-compatible embeddings', () => {
  it('embeds in batches, in input order, checking the dimension', async () => {
    const server = await serve((request) => {
      const input = request.body['input'] as string[];
      const vectors = input.map((text) => [text.length, 1, 0]);
      return { json: embeddingReply(vectors, [...input.keys()].reverse()) };
    });
    const model = modelFor(server, { embeddingModel: 'embed-small', dimensions: 3, embeddingBatchSize: 2 });
    const embedder = model.embedder!;
    expect(embedder.modelId).toBe('openai-compatible:embed-small');
    expect(embedder.dimensions).toBe(3);
    const vectors = await embedder.embed(['a', 'bb', 'ccc']);
    expect(vectors.map((v) => Array.from(v))).toEqual([
      [1, 1, 0],
      [2, 1, 0],
      [3, 1, 0],
    ]);
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/embeddings']);
    expect(server.requests[0]!.body).toMatchObject({ model: 'embed-small', encoding_format: 'float' });
    expect(server.requests[0]!.body['dimensions']).toBeUndefined();
    expect(model.usage.get('embed').calls).toBe(2);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('rejects vectors of the wrong dimension with LLM_FAILED', async () => {
    const server = await serve(() => ({ json: embeddingReply([[1, 2]]) }));
    const embedder = createOpenAICompatibleEmbedder({
      baseURL: server.baseURL,
      embeddingModel: 'embed-small',
      dimensions: 3,
      sendDimensions: true,
    });
    const error = await failure(embedder.embed(['x']));
    expect(error.message).toMatch(/2 dimensions, expected 3/u);
    expect(server.requests[0]!.body['dimensions']).toBe(3);
  });

  it('has no embedder without embeddingModel and dimensions', async () => {
    const server = await serve(() => ({ json: chatReply('x') }));
    expect(modelFor(server).embedder).toBeUndefined();
  });
});

describe('adapter options', () => {
  it('normalises base URLs', () => {
    expect(normalizeBaseURL('http://localhost:11434')).toBe('http://localhost:11434/v1');
    expect(normalizeBaseURL('http://localhost:11434/')).toBe('http://localhost:11434/v1');
    expect(normalizeBaseURL(' http://localhost:8000/v1/ ')).toBe('http://localhost:8000/v1');
    expect(normalizeBaseURL('http://localhost:8000/v1/chat/completions')).toBe('http://localhost:8000/v1');
    expect(normalizeBaseURL('https://proxy.example/litellm/v1')).toBe('https://proxy.example/litellm/v1');
  });

  it('rejects bad options with INVALID_INPUT naming the field', () => {
    const cases: [unknown, string][] = [
      [{ model: '' }, 'createOpenAICompatible.model'],
      [{ model: 'm', baseURL: 'ftp://x' }, 'createOpenAICompatible.baseURL'],
      [{ model: 'm', baseURL: 'not a url' }, 'createOpenAICompatible.baseURL'],
      [{ model: 'm', concurrency: 0 }, 'createOpenAICompatible.concurrency'],
      [{ model: 'm', timeoutMs: -1 }, 'createOpenAICompatible.timeoutMs'],
      [{ model: 'm', maxRetries: 1.5 }, 'createOpenAICompatible.maxRetries'],
      [{ model: 'm', dimensions: 0 }, 'createOpenAICompatible.dimensions'],
      [{ model: 'm', colour: 'red' }, 'createOpenAICompatible'],
    ];
    for (const [options, field] of cases) {
      let error: unknown;
      try {
        createOpenAICompatible(options as OpenAICompatibleOptions);
      } catch (e) {
        error = e;
      }
      expect(HedgehopError.isInstance(error), JSON.stringify(options)).toBe(true);
      expect((error as HedgehopError).code).toBe('INVALID_INPUT');
      expect((error as HedgehopError).field).toBe(field);
    }
    expect(() =>
      createOpenAICompatibleEmbedder({ dimensions: 3 } as unknown as Parameters<
        typeof createOpenAICompatibleEmbedder
      >[0]),
    ).toThrow(/embeddingModel/u);
  });
});
