import { describe, expect, it } from 'vitest';
import { openMemory, type Embedder, type MemoryDB, type PartialSummarizer } from '../../src/index.js';
import { backfillEmbeddings } from '../../src/recall/vectors.js';
import { tempFile } from '../helpers/temp.js';

// A reworded question that shares no word (nor stem) with the node it is about.
const QUESTION = 'how do we keep people signed in once their pass expires?';

/** A "model" that knows that signing in again after expiry is about refresh tokens. */
function meaningModel(asked: string[]): PartialSummarizer {
  return {
    summarize: (text, maxChars) => text.slice(0, maxChars),
    verifyMatch(query, summary) {
      asked.push(summary);
      const aboutRefresh = /refresh/iu.test(summary) && /signed in|expires/iu.test(query);
      return aboutRefresh ? [true, 0.9] : [false, 0.1];
    },
  };
}

async function fill(db: MemoryDB): Promise<string> {
  const radial = db.primary().radial;
  await radial.createLine('auth', 'Authentication', 'Login');
  await radial.createLine('infra', 'Infrastructure', 'Deployments');
  await radial.createLine('billing', 'Billing', 'Invoices');
  const target = await radial.completeTask({
    lineId: 'auth',
    taskLabel: 'Refresh-token rotation',
    fullContext: 'Rotate the refresh token on each use; a reused token revokes its family.',
    conversationSummary: 'Rotate refresh tokens; reuse revokes the family.',
  });
  await radial.completeTask({
    lineId: 'infra',
    taskLabel: 'Docker images',
    fullContext: 'Multi-stage builds for the API.',
    conversationSummary: 'Smaller images with multi-stage builds.',
  });
  await radial.completeTask({
    lineId: 'billing',
    taskLabel: 'Invoice totals',
    fullContext: 'Rounding of VAT per line.',
    conversationSummary: 'VAT is rounded per line, not per invoice.',
  });
  return target.id;
}

describe('model-verified navigation reaches paraphrases', () => {
  it('offline, a question with no shared word finds nothing', async () => {
    const db = await openMemory(tempFile(), { dream: { auto: false } });
    await fill(db);
    expect(await db.primary().radial.navigate(QUESTION)).toBeUndefined();
    await db.close();
  });

  it('with a model and no vectors, the line briefs are shown to it and it confirms the right node', async () => {
    const asked: string[] = [];
    const db = await openMemory(tempFile(), { summarizer: meaningModel(asked), dream: { auto: false } });
    const target = await fill(db);
    const session = await db.primary().radial.navigate(QUESTION);
    expect(session?.node.id).toBe(target);
    expect(session?.confidence).toBe(0.9);
    // Bounded: one question per line's newest node here, never one per node of the file.
    expect(asked.length).toBe(3);
    // Scoped to a line, only that line's nodes are candidates.
    asked.length = 0;
    expect(await db.primary().radial.navigate(QUESTION, { lineId: 'billing' })).toBeUndefined();
    expect(asked.every((summary) => /VAT|Invoice/u.test(summary))).toBe(true);
    await db.close();
  });

  it('with vectors, the node is found by meaning, without asking the model about it', async () => {
    const asked: string[] = [];
    const embedder: Embedder = {
      specificationVersion: 'v1',
      modelId: 'meaning-2',
      dimensions: 2,
      embed: (texts) =>
        Promise.resolve(
          texts.map((t) =>
            /refresh|signed in|expires/iu.test(t) ? new Float32Array([1, 0.01]) : new Float32Array([0.01, 1]),
          ),
        ),
    };
    const db = await openMemory(tempFile(), {
      summarizer: meaningModel(asked),
      embedder,
      dream: { auto: false },
    });
    const target = await fill(db);
    await backfillEmbeddings(db.store, embedder);
    const session = await db.primary().radial.navigate(QUESTION);
    expect(session?.node.id).toBe(target);
    // The vector hit carries a confidence of its own (its similarity above the others'), so the
    // model's second opinion is not needed for it.
    expect(session?.confidence).toBeGreaterThanOrEqual(0.5);
    expect(asked.some((summary) => /refresh/iu.test(summary))).toBe(false);
    await db.close();
  });
});
