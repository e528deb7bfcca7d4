import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAICompatible, openMemory, type MemoryDB } from '../../src/index.js';
import { tempFile } from '../helpers/temp.js';
import { chatReply, startScriptedServer, type ScriptedServer } from './scripted-openai-server.js';

// A LiteLLM proxy as hedgehop sees it: the OpenAI chat-completions API on one base URL, a
// virtual key as the bearer token, and provider-prefixed model names routed by the proxy.
// HedgehogMemory's LiteLLMSummarizer(model="anthropic/claude-3-5-sonnet") becomes
// createOpenAICompatible({ baseURL, apiKey, model: 'anthropic/claude-3-5-sonnet' }).
const ROUTES = new Set(['anthropic/claude-3-5-sonnet', 'ollama/llama3.2']);
const KEY = 'sk-litellm-virtual-key';

const servers: ScriptedServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function liteLLM(): Promise<ScriptedServer> {
  const server = await startScriptedServer((request) => {
    if (request.headers.authorization !== `Bearer ${KEY}`)
      return {
        status: 401,
        json: { error: { message: 'Authentication Error', type: 'auth_error', code: '401' } },
      };
    const model = String(request.body['model']);
    if (!ROUTES.has(model))
      return {
        status: 400,
        json: {
          error: { message: `Invalid model name passed in model=${model}`, type: 'invalid_request_error' },
        },
      };
    const prompt = JSON.stringify(request.body['messages']);
    if (prompt.includes('keywords')) return { json: chatReply('{"keywords":["refresh tokens"]}') };
    return { json: chatReply(`{"summary":"Summary by ${model}."}`) };
  });
  servers.push(server);
  return server;
}

const LONG = 'We rotated refresh tokens on every use and revoked a family on reuse. '.repeat(40);

/** Commits one long task on a new line `auth` of the primary agent. */
async function commitRotation(db: MemoryDB) {
  const radial = db.primary().radial;
  await radial.createLine('auth', 'Authentication', 'Tokens');
  const node = await radial.completeTask({
    lineId: 'auth',
    taskLabel: 'Refresh-token rotation',
    fullContext: LONG,
    conversationSummary: LONG,
  });
  return { radial, node };
}

describe('a LiteLLM proxy through createOpenAICompatible', () => {
  it('sends provider-prefixed model names unchanged to the proxy, with the virtual key', async () => {
    const server = await liteLLM();
    // The proxy's address as LiteLLM prints it (no /v1): hedgehop adds /v1.
    const model = createOpenAICompatible({
      baseURL: server.origin,
      apiKey: KEY,
      model: 'anthropic/claude-3-5-sonnet',
      retryDelayMs: 5,
    });
    const db = await openMemory(tempFile(), { llm: model, dream: { auto: false } });
    const { node } = await commitRotation(db);
    expect(node.summariesState).toBe('ready');
    expect(node.summaries.detailed).toBe('Summary by anthropic/claude-3-5-sonnet.');
    expect(server.requests.length).toBeGreaterThan(0);
    for (const request of server.requests) {
      expect(request.path).toBe('/v1/chat/completions');
      expect(request.body['model']).toBe('anthropic/claude-3-5-sonnet');
    }
    // Another agent of the same file on another route of the same proxy.
    const local = createOpenAICompatible({ baseURL: server.baseURL, apiKey: KEY, model: 'ollama/llama3.2' });
    const sub = await db.agent('local', { llm: local });
    await sub.search();
    const { topic } = await sub.update({ input: LONG, createdAt: Date.now() });
    expect(topic.keywords).toEqual(['refresh tokens']);
    expect(server.requests.at(-1)?.body['model']).toBe('ollama/llama3.2');
    await db.close();
  });

  it('a model the proxy does not route fails as LLM_FAILED, and the task is still kept verbatim', async () => {
    const server = await liteLLM();
    const model = createOpenAICompatible({
      baseURL: server.baseURL,
      apiKey: KEY,
      model: 'anthropic/claude-9',
      maxRetries: 0,
    });
    const db = await openMemory(tempFile(), { llm: model, dream: { auto: false } });
    const { radial, node } = await commitRotation(db);
    expect(node.summariesState).toBe('pending');
    expect(await radial.loadFullState(node.id)).toBe(LONG);
    await db.close();
  });
});
