/**
 * What an agent reads from recall (issue 19, item 6): a turn is one unit, a topic hit shows its
 * turn, no line twice, nothing cut inside a sentence, hits in the order of their final scores,
 * and questions about the current or the earlier state get the newer or the older record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import type { Agent } from '../../src/api/agent.js';
import { countTokens } from '../../src/core/tokens.js';

const HOUR = 3600 * 1000;
const T0 = Date.UTC(2024, 2, 14, 9, 0);

let dir: string;
let db: MemoryDB;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hedgehop-recall-context-'));
  db = await openMemory(join(dir, 'm.db'), { durability: 'normal', dream: { auto: false } });
});

afterEach(async () => {
  if (!db.closed) await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function turns(
  agent: Agent,
  list: readonly { input: string; output: string; at: number }[],
): Promise<void> {
  let first = true;
  for (const turn of list) {
    await agent.search(first ? { newScene: true, sceneName: 'ops review' } : {});
    first = false;
    await agent.update({ input: turn.input, output: turn.output, createdAt: turn.at });
  }
}

const filler = (i: number): { input: string; output: string; at: number } => ({
  input: `Unrelated chat number ${i} about lunch plans and the weather in town.`,
  output: `Sure, lunch at noon works for item ${i}.`,
  at: T0 + (i + 1) * 60_000,
});

describe('recall context', () => {
  it('shows a turn as one unit: the question with its answer, under one compact label', async () => {
    const agent = db.primary();
    await turns(agent, [
      filler(0),
      {
        input: 'Which port does the metrics exporter listen on?',
        output: 'It listens on 9464. Restart it with systemctl if it stops.',
        at: T0 + HOUR,
      },
      filler(1),
    ]);
    const result = await agent.recall('metrics exporter port', { budgetTokens: 400 });
    const [first] = result.context.split('\n\n');
    expect(first).toBe(
      '[2024-03-14 10:00 · ops review]\nuser: Which port does the metrics exporter listen on?\nagent: It listens on 9464. Restart it with systemctl if it stops.',
    );
    expect(countTokens(result.context)).toBe(result.usedTokens);
  });

  it('never shows a line twice and never ends inside a sentence', async () => {
    const agent = db.primary();
    const long = Array.from({ length: 40 }, (_, i) => `Step ${i} of the deploy checks the canary.`).join(' ');
    await turns(agent, [
      { input: 'How does the deploy check the canary?', output: long, at: T0 },
      { input: 'And the canary deploy again, step by step?', output: long, at: T0 + HOUR },
    ]);
    const { context } = await agent.recall('canary deploy step', { budgetTokens: 150 });
    const lines = context.split('\n').filter((line) => line.length > 0 && !line.startsWith('['));
    expect(new Set(lines).size).toBe(lines.length);
    for (const line of lines) expect(line.replace(/ …$/u, '')).toMatch(/[.?!]$/u);
  });

  it('leaves out records holding no word of the query, unless nothing else matches', async () => {
    const agent = db.primary();
    await turns(agent, [
      { input: 'The kayak rental opens in June.', output: 'Noted.', at: T0 },
      { input: 'Okay.', output: 'Answered.', at: T0 + HOUR },
    ]);
    const { context } = await agent.recall('kayak rental', { budgetTokens: 400 });
    expect(context).toContain('kayak rental opens in June');
    expect(context).not.toContain('Answered.');
  });

  it('previews a topic hit by its dialogue, never its keyword list, and lists a turn once', async () => {
    const agent = db.primary();
    await turns(agent, [
      filler(5),
      {
        input: 'Which port does the metrics exporter listen on?',
        output: 'The metrics exporter listens on port 9464.',
        at: T0 + HOUR,
      },
    ]);
    const topics = await agent.recall('metrics exporter port', { layers: ['topic'], budgetTokens: 0 });
    expect(topics.hits[0]?.layer).toBe('topic');
    // The utterance that holds most of the query's words (the first of equals), with who said it.
    expect(topics.hits[0]?.preview).toBe('user: Which port does the metrics exporter listen on?');
    const all = await agent.recall('metrics exporter port', { budgetTokens: 0 });
    const listed = all.hits.filter((hit) => hit.provenance.topicId === topics.hits[0]?.provenance.topicId);
    // Both utterances of the turn are listed, so its topic row would only repeat them.
    expect(listed.map((hit) => hit.layer).sort()).toEqual(['archive', 'archive']);
  });

  it('shows a turn whose utterances were appended and passed again on closing once, and lists them once', async () => {
    const agent = db.primary();
    const input = 'We are moving the staging database to pg-staging-2.internal on port 6432.';
    const output = 'Noted: staging database is pg-staging-2.internal:6432; I updated .env.staging.';
    await agent.search({ newScene: true, sceneName: 'ops review' });
    await agent.appendArchive({ kind: 'utterance', role: 'user', content: input, createdAt: T0 });
    await agent.appendArchive({ kind: 'utterance', role: 'agent', content: output, createdAt: T0 });
    await agent.update({ input, output, createdAt: T0 });
    const result = await agent.recall('staging database port', { budgetTokens: 400 });
    expect(result.context).toBe(`[2024-03-14 09:00 · ops review]\nuser: ${input}\nagent: ${output}`);
    const texts = result.hits.filter((hit) => hit.layer === 'archive').map((hit) => hit.preview);
    expect(texts.sort()).toEqual([output, input].sort());
  });

  it("keeps the agent's answer to a request even when the answer repeats no word of the query", async () => {
    const agent = db.primary();
    await turns(agent, [
      filler(0),
      {
        input: 'The healthcheck should also report the git sha.',
        output:
          'GET /healthz now includes "version" read from the BUILD_SHA env var set when the image is built.',
        at: T0 + HOUR,
      },
      filler(1),
    ]);
    const { context } = await agent.recall('what does the healthcheck report?', { budgetTokens: 400 });
    expect(context.split('\n\n')[0]).toBe(
      '[2024-03-14 10:00 · ops review]\nuser: The healthcheck should also report the git sha.\nagent: GET /healthz now includes "version" read from the BUILD_SHA env var set when the image is built.',
    );
  });

  it('previews a long record by its whole sentences nearest the query', async () => {
    const agent = db.primary();
    const padding = Array.from({ length: 12 }, (_, i) => `Padding sentence ${i} talks about nothing much.`);
    const output = [...padding, 'The canary stage waits ten minutes before promoting.', ...padding].join(' ');
    await turns(agent, [{ input: 'Tell me about the deploy.', output, at: T0 }]);
    const { hits } = await agent.recall('canary stage promoting', { layers: ['archive'], budgetTokens: 0 });
    const preview = hits.find((hit) => hit.text === output)?.preview ?? '';
    expect(preview).toContain('The canary stage waits ten minutes before promoting.');
    expect([...preview].length).toBeLessThanOrEqual(200);
    // Whole sentences of the text, marked where text was left out.
    for (const part of preview.split(' … ').map((p) => p.replace(/^… |\s…$/gu, '')))
      expect(output).toContain(part);
    expect(preview.replace(/ …$/u, '')).toMatch(/[.?!]$/u);
  });

  it("previews a task found by its transcript with its label and the transcript's sentence nearest the query, without block markers", async () => {
    const agent = db.primary();
    await agent.radial.createLine('ops', 'Operations');
    await agent.radial.completeTask({
      lineId: 'ops',
      taskLabel: 'Nightly backup stopped reaching S3',
      conversationSummary: '',
      fullContext: [
        '[user]',
        'The newest backup in the bucket is six days old. What is going on?',
        '[tool:bash]',
        '$ kubectl logs job/pg-backup | tail -1',
        'upload error: AccessDenied: not authorized to perform kms:GenerateDataKey',
        '[assistant]',
        'The bucket switched to a customer-managed encryption key on Tuesday, and the backup role was never allowed to use it.',
      ].join('\n'),
    });
    const { hits } = await agent.recall('customer-managed encryption key', {
      layers: ['radial'],
      budgetTokens: 0,
    });
    const preview = hits[0]?.preview ?? '';
    expect(preview).toMatch(/^Nightly backup stopped reaching S3 — /u);
    expect(preview).toContain('The bucket switched to a customer-managed encryption key on Tuesday');
    expect(preview).not.toMatch(/\[(?:user|assistant|tool:bash)\]/u);
    expect([...preview].length).toBeLessThanOrEqual(200);
  });

  it('returns hits in the order of their final scores', async () => {
    const agent = db.primary();
    await turns(agent, [
      { input: 'The replication lag alert fires at 30 s.', output: 'Set.', at: T0 },
      filler(2),
      {
        input: 'Replication lag alert thresholds are now 10 s warn and 20 s page.',
        output: 'Updated.',
        at: T0 + 6 * HOUR,
      },
    ]);
    const { hits } = await agent.recall('replication lag alert thresholds', { limit: 10 });
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
  });

  it('prefers the newer record on a question about now and the older one on a question about before', async () => {
    const agent = db.primary();
    await turns(agent, [
      {
        input:
          'Set the replication lag alert thresholds to 30 s warn and 60 s page for the primary database cluster.',
        output: 'Done: replication lag alert thresholds are 30 s warn, 60 s page.',
        at: T0,
      },
      filler(3),
      filler(4),
      {
        input: 'Lower the replication lag alert thresholds.',
        output: 'Done: replication lag alert thresholds are 10 s warn, 20 s page.',
        at: T0 + 6 * HOUR,
      },
    ]);
    const now = await agent.recall('What are the replication lag alert thresholds now?', { limit: 5 });
    expect(now.hits[0]?.provenance.createdAt).toBe(T0 + 6 * HOUR);
    const before = await agent.recall('What were the replication lag alert thresholds originally?', {
      limit: 5,
    });
    expect(before.hits[0]?.provenance.createdAt).toBe(T0);
  });
});

describe('recall over text that spells a tokenizer special token', () => {
  it('assembles its context (the marker is counted as plain text)', async () => {
    const agent = db.primary();
    await turns(agent, [
      {
        input: 'Why did the chat model stop mid-answer?',
        output: 'The template leaked <|im_end|> into the prompt, so generation stopped there.',
        at: T0,
      },
    ]);
    const result = await agent.recall('why did generation stop mid-answer', { budgetTokens: 300 });
    expect(result.context).toContain('<|im_end|>');
    expect(countTokens(result.context)).toBeLessThanOrEqual(300);
  });
});
