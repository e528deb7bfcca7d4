import { describe, expect, it } from 'vitest';
import { ModelSummarizer } from '../../src/llm/model-summarizer.js';
import { OfflineSummarizer } from '../../src/llm/offline-summarizer.js';
import { createOpenAICompatible, type OpenAICompatibleModel } from '../../src/llm/openai-compatible.js';
import { sensibleReply } from './sensible-model.js';
import { startScriptedServer, type ScriptedServer } from './scripted-openai-server.js';
import { describeSummarizer } from './summarizer-suite.js';

describeSummarizer('OfflineSummarizer', () => Promise.resolve({ summarizer: new OfflineSummarizer() }));

let server: ScriptedServer | undefined;
let model: OpenAICompatibleModel | undefined;
let summarizer: ModelSummarizer | undefined;

describeSummarizer('ModelSummarizer over the OpenAI-compatible adapter (HTTP)', async () => {
  server = await startScriptedServer(sensibleReply);
  model = createOpenAICompatible({ baseURL: server.origin, model: 'scripted', apiKey: 'test-key' });
  summarizer = new ModelSummarizer(model);
  return { summarizer, close: () => server!.close() };
});

describe('the model-backed run of the suite', () => {
  it('went over HTTP and metered every operation', () => {
    expect(server!.requests.length).toBeGreaterThan(5);
    expect(server!.requests.every((r) => r.path === '/v1/chat/completions')).toBe(true);
    const usage = model!.usage.snapshot();
    for (const operation of [
      'summarize',
      'verifyMatch',
      'distillKeywords',
      'groupTopics',
      'distillProfile',
    ]) {
      expect(usage[operation]?.calls, operation).toBeGreaterThan(0);
      expect(usage[operation]?.inputTokens, operation).toBeGreaterThan(0);
      expect(summarizer!.usage.get(operation).calls, operation).toBe(usage[operation]!.calls);
    }
    expect(model!.usage.total().failures).toBe(0);
  });
});
