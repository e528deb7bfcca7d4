/**
 * Model faults: hedgehop talks to an OpenAI-compatible server on loopback that never answers
 * well: 500 and 503 errors, malformed JSON bodies, replies whose text is garbage or far too long,
 * and replies slower than the client's timeout. Radial commits, turns and a Dream pass run
 * against it. Nothing verbatim may be lost, every call either succeeds or fails with a typed
 * error, derived work is left pending, and once a working summariser is back (the offline one)
 * the pending summaries and keywords are all filled.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/harness.js';
import { createOpenAICompatible, HedgehopError, openMemory, type Agent } from '../../src/index.js';
import { fillPendingKeywords } from '../../src/memory/scenes/turn-loop.js';
import { recordFigure, scratch } from './helpers.js';

type Fault = '500' | '503' | 'malformed JSON' | 'garbage text' | 'too long' | 'timeout';
const FAULTS: readonly Fault[] = ['500', '503', 'malformed JSON', 'garbage text', 'too long', 'timeout'];

const served = new Map<Fault, number>();
let server: Server;
let baseURL = '';

function completion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-fault',
    object: 'chat.completion',
    created: 0,
    model: 'faulty',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  });
}

beforeAll(async () => {
  const random = seededRandom(777);
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const fault = FAULTS[Math.floor(random() * FAULTS.length)] as Fault;
      served.set(fault, (served.get(fault) ?? 0) + 1);
      const json = { 'content-type': 'application/json' };
      switch (fault) {
        case '500':
        case '503':
          response.writeHead(Number(fault), json).end('{"error":{"message":"model is down"}}');
          return;
        case 'malformed JSON':
          response.writeHead(200, json).end('{"id": "chatcmpl-x", "choices": [ {"message": ');
          return;
        case 'garbage text':
          response.writeHead(200, json).end(completion('}{ not json ]] ~~ \u0000 garbage'));
          return;
        case 'too long':
          response.writeHead(200, json).end(completion('word '.repeat(20_000)));
          return;
        case 'timeout':
          setTimeout(() => response.writeHead(200, json).end(completion('too late')), 400).unref();
          return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const LIMITS = { origin: 80, brief: 200, summary: 600, detailed: 1800 } as const;

async function attempt<T>(errors: Map<string, number>, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    if (!HedgehopError.isInstance(error)) throw error;
    errors.set(error.code, (errors.get(error.code) ?? 0) + 1);
    return undefined;
  }
}

describe('model faults', () => {
  it('timeouts, 5xx, malformed and garbage replies: nothing verbatim lost, pending work completed later', async () => {
    const path = join(scratch(), 'memory.db');
    const llm = createOpenAICompatible({
      baseURL,
      apiKey: 'k',
      model: 'faulty',
      timeoutMs: 150,
      maxRetries: 1,
      retryDelayMs: 10,
    });
    const db = await openMemory(path, { llm, dream: { auto: false } });
    const agent: Agent = db.primary();
    const errors = new Map<string, number>();
    await agent.radial.createLine('work', 'Work', 'Tasks committed while the model fails');
    const contexts = new Map<string, string>();
    const summaryLengthsOk: boolean[] = [];
    for (let i = 0; i < 20; i++) {
      const fullContext = `Verbatim working state ${i}: ${'the exact bytes that must survive, '.repeat(30)}(end ${i})`;
      const node = await agent.radial.completeTask({
        lineId: 'work',
        taskLabel: `task ${i}`,
        fullContext,
        conversationSummary: `We did task ${i}.`,
      });
      contexts.set(node.id, fullContext);
      summaryLengthsOk.push(
        Object.entries(LIMITS).every(
          ([level, max]) => [...(node.summaries[level as keyof typeof LIMITS] ?? '')].length <= max,
        ),
      );
    }
    const turns: string[] = [];
    let keywordsPending = 0;
    for (let t = 0; t < 20; t++) {
      await agent.search(t === 0 ? { newScene: true } : {});
      await agent.appendArchive({
        kind: 'event',
        eventType: 'tool_call',
        content: `tool call ${t}`,
        createdAt: Date.now(),
      });
      const result = await agent.update({
        input: `question ${t}`,
        output: `answer ${t}`,
        createdAt: Date.now(),
      });
      if (result.keywordsPending) keywordsPending++;
      turns.push(`question ${t}`, `answer ${t}`, `tool call ${t}`);
    }
    // Reads and Dream may fail while the model is down, but only with typed errors.
    await attempt(errors, () => agent.radial.navigate('task 3'));
    await attempt(errors, () => agent.recall('answer', { budgetTokens: 300 }));
    const dreamt = typeof (agent as unknown as { dream?: unknown }).dream === 'function';
    if (dreamt) await attempt(errors, () => agent.dream());
    const pendingDuringOutage = (await db.stats()).pending;
    await db.check();
    await db.close();

    // The model is back (here: the offline summariser); pending work is completed.
    const healed = await openMemory(path, { dream: { auto: false } });
    const same = healed.primary();
    const filled = await same.radial.fillPendingSummaries({ limit: 1000 });
    const keywords = await fillPendingKeywords(same.memoryContext, { limit: 1000 });
    const pendingAfter = (await healed.stats()).pending;
    for (const [nodeId, fullContext] of contexts)
      expect(await same.radial.loadFullState(nodeId)).toBe(fullContext);
    const archive = new Set((await same.searchArchive({ limit: 10_000 })).map((record) => record.content));
    expect(turns.filter((content) => !archive.has(content))).toEqual([]);
    await healed.check();
    await healed.close();

    recordFigure({
      suite: 'model-faults',
      served: Object.fromEntries(served),
      commits: contexts.size,
      turns: 20,
      verbatimLost: 0,
      summariesPendingDuringOutage: pendingDuringOutage.summaries,
      keywordsPendingDuringOutage: pendingDuringOutage.keywords,
      turnsClosedWithKeywordsPending: keywordsPending,
      typedErrorsOnReads: Object.fromEntries(errors),
      dreamRanDuringOutage: dreamt,
      filledSummaries: filled.filled,
      filledKeywords: keywords.filled,
      pendingAfter,
    });
    expect(summaryLengthsOk.every(Boolean)).toBe(true);
    expect(pendingDuringOutage.summaries + pendingDuringOutage.keywords).toBeGreaterThan(0);
    expect(pendingAfter.summaries).toBe(0);
    expect(pendingAfter.keywords).toBe(0);
  }, 180_000);
});
