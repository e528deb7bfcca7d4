import { afterEach, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/index.js';
import { MockEmbedder } from '../../src/llm/mock-embedder.js';
import type { Embedder } from '../../src/llm/types.js';
import { DEFAULT_CONFIDENCE_THRESHOLD } from '../../src/api/radial-memory.js';
import { describeEngines } from '../helpers/engines.js';
import { embeddingReply, startScriptedServer, type ScriptedServer } from '../llm/scripted-openai-server.js';
import { createOpenAICompatible } from '../../src/llm/openai-compatible.js';
import { task } from '../helpers/radial.js';
import { tempFile } from '../helpers/temp.js';

/** Words that mean the same here, folded onto one before hashing (a deterministic "meaning" model). */
const SAME_MEANING: Readonly<Record<string, string>> = {
  pictographs: 'emoji',
  pictograph: 'emoji',
  conversations: 'chat',
  conversation: 'chat',
  messages: 'chat',
  appear: 'render',
  displayed: 'render',
};

function folded(text: string): string {
  return text.replace(/\p{L}+/gu, (word) => SAME_MEANING[word.toLowerCase()] ?? word);
}

/** The mock embedder over texts whose synonyms are folded: paraphrases share a direction. */
class MeaningEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly #inner = new MockEmbedder({ dimensions: 256, modelId: 'meaning-256' });
  readonly modelId = this.#inner.modelId;
  readonly dimensions = this.#inner.dimensions;
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return this.#inner.embed(texts.map(folded));
  }
}

const QUESTION = 'how do pictographs appear in conversations?';

async function seed(db: MemoryDB): Promise<string> {
  const radial = db.primary().radial;
  await radial.createLine('ui', 'User interface');
  await radial.createLine('db', 'Database');
  const emoji = await radial.completeTask(
    task('ui', 'Render emoji in chat messages', {
      fullContext: 'Emoji now render in chat messages through the Twemoji sprite sheet; skin tones are kept.',
      conversationSummary: 'Chat messages render emoji.',
    }),
  );
  await radial.completeTask(
    task('db', 'Tune the connection pool', {
      fullContext: 'Pool size raised to 20; idle connections close after 30 seconds.',
      conversationSummary: 'Database pool tuned.',
    }),
  );
  await radial.completeTask(
    task('ui', 'Dark theme for settings', {
      fullContext: 'Added a theme toggle and CSS variables for the dark palette.',
      conversationSummary: 'Dark theme shipped.',
    }),
  );
  return emoji.id;
}

const open: MemoryDB[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) if (!db.closed) await db.close();
});

describeEngines('navigation by meaning', (engine) => {
  it('finds a paraphrase that shares no word with its task when an embedder is configured', async () => {
    const path = engine.memoryPath();
    const plain = await openMemory(path);
    open.push(plain);
    const id = await seed(plain);
    // Words alone: the question shares none with any task.
    expect(await plain.primary().radial.navigate(QUESTION)).toBeUndefined();
    await plain.close();

    const db = await openMemory(path, { embedder: new MeaningEmbedder() });
    open.push(db);
    const session = await db.primary().radial.navigate(QUESTION);
    expect(session?.node.id).toBe(id);
    // A calibrated confidence of its own (no word overlaps, so words alone would give 0).
    expect(session?.confidence).toBeGreaterThanOrEqual(DEFAULT_CONFIDENCE_THRESHOLD);
    expect(session?.confidence).toBeLessThan(1);
    // The unrelated tasks stand no higher than it.
    for (const other of session?.candidates.slice(1) ?? [])
      expect(other.confidence).toBeLessThanOrEqual(session?.confidence ?? 0);
    // A question by words still ranks by words.
    const byWords = await db.primary().radial.navigate('connection pool size');
    expect(byWords?.node.taskLabel).toBe('Tune the connection pool');
  });

  it('navigates by words alone when the embedder fails', async () => {
    const embedder = new MeaningEmbedder();
    const path = engine.memoryPath();
    const db = await openMemory(path, { embedder });
    open.push(db);
    await seed(db);
    const failing: Embedder = {
      specificationVersion: 'v1',
      modelId: embedder.modelId,
      dimensions: embedder.dimensions,
      embed: () => Promise.reject(new Error('embedder down')),
    };
    await db.close();
    const again = await openMemory(path, { embedder: failing });
    open.push(again);
    expect((await again.primary().radial.navigate('connection pool size'))?.node.taskLabel).toBe(
      'Tune the connection pool',
    );
    expect(await again.primary().radial.navigate(QUESTION)).toBeUndefined();
  });
});

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it('finds a paraphrase through an OpenAI-compatible embeddings endpoint', async () => {
  const meaning = new MeaningEmbedder();
  server = await startScriptedServer(async (request) => {
    const input = request.body.input as string[];
    const vectors = await meaning.embed(input);
    return { json: embeddingReply(vectors.map((v) => [...v])) };
  });
  const model = createOpenAICompatible({
    baseURL: server.baseURL,
    model: 'test-model',
    apiKey: 'sk-test',
    embeddingModel: 'scripted-embed',
    dimensions: meaning.dimensions,
    retryDelayMs: 5,
    maxRetries: 1,
    timeoutMs: 5000,
  });
  const embedder = model.embedder;
  if (!embedder) throw new Error('the model has no embedder');
  const db = await openMemory(tempFile(), { embedder });
  open.push(db);
  const id = await seed(db);
  const session = await db.primary().radial.navigate(QUESTION);
  expect(session?.node.id).toBe(id);
  expect(server.requests.some((r) => r.path === '/v1/embeddings')).toBe(true);
});
