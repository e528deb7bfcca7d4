import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import type { Agent } from '../../src/api/agent.js';
import { countTokens } from '../../src/core/tokens.js';
import { tempFile } from '../helpers/temp.js';

// What the agent reads from recall: turn units under compact labels, in the order of the final
// scores, without duplicates or cut lines, newer records first where the question asks for now.
const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 2, 14, 9, 0);

let db: MemoryDB;
let agent: Agent;

beforeEach(async () => {
  db = await openMemory(tempFile(), { durability: 'normal', dream: { auto: false } });
  agent = db.primary();
});

afterEach(async () => {
  if (!db.closed) await db.close();
});

async function turns(sceneName: string, exchanges: readonly [string, string][], start = T0): Promise<void> {
  for (const [i, [input, output]] of exchanges.entries()) {
    await agent.search(i === 0 ? { newScene: true, sceneName } : {});
    await agent.update({ input, output, createdAt: start + i * HOUR });
  }
}

const ops: [string, string][] = [
  [
    'What are the replication lag alert thresholds?',
    'Warning at 30 s of lag and critical at 120 s, set this morning.',
  ],
  [
    'Can you also check the disk usage on the replica?',
    'Disk usage on the replica is 61%, well below the alert.',
  ],
  ['Lunch plans?', 'The noodle place at noon.'],
  [
    'We changed the replication lag alert thresholds after the incident.',
    'Updated: warning at 10 s and critical at 45 s.',
  ],
];

describe('recall context', () => {
  it('shows a turn as one unit, question and answer together, under a compact label', async () => {
    await turns('ops review', ops);
    const { context } = await agent.recall('replica disk usage', { budgetTokens: 300 });
    const first = context.split('\n\n')[0]!;
    expect(first).toBe(
      '[2024-03-14 10:00 · ops review]\n' +
        'user: Can you also check the disk usage on the replica?\n' +
        'agent: Disk usage on the replica is 61%, well below the alert.',
    );
    expect(context).not.toMatch(/archive #|scene scn_|topic tpc_/u);
  });

  it('expands a topic hit to its turn, never a keyword list, and shows each turn once', async () => {
    await turns('ops review', ops);
    const { context, hits } = await agent.recall('replication lag alert thresholds', { budgetTokens: 1000 });
    expect(hits.some((h) => h.layer === 'topic')).toBe(true);
    expect(context).not.toMatch(/— |Keywords?:/u);
    const blocks = context.split('\n\n');
    expect(new Set(blocks).size).toBe(blocks.length);
    for (const line of context.split('\n').filter((l) => l.length > 0 && !l.startsWith('[')))
      expect(line).toMatch(/^(?:user|agent): /u);
    expect(context.match(/Warning at 30 s/gu)).toHaveLength(1);
  });

  it('orders hits by their final score and leaves out records holding no query word', async () => {
    await turns('ops review', ops);
    const { hits, context } = await agent.recall('noodle lunch', { budgetTokens: 500 });
    const scores = hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(hits.every((h) => h.confidence > 0)).toBe(true);
    expect(context).toContain('noodle place');
    expect(context).not.toContain('replication');
  });

  it('prefers the newer record on a question about now, the older on one about before', async () => {
    await turns('ops review', ops);
    const now = await agent.recall('what are the replication lag alert thresholds now?', {
      budgetTokens: 500,
    });
    expect(now.context.split('\n\n')[0]).toContain('warning at 10 s');
    const before = await agent.recall('what were the replication lag alert thresholds originally?', {
      budgetTokens: 500,
    });
    expect(before.context.split('\n\n')[0]).toContain('Warning at 30 s');
  });

  it('never exceeds the budget and never cuts a line mid-sentence', async () => {
    const long = Array.from(
      { length: 40 },
      (_, i) => `Step ${i + 1} of the replica failover went fine.`,
    ).join(' ');
    await turns('failover', [
      ['How did the replica failover go?', long],
      ['Any replica failover issues left?', 'None; the replica failover runbook is updated.'],
    ]);
    for (const budget of [40, 80, 150, 300, 1000]) {
      const { context, usedTokens } = await agent.recall('replica failover', { budgetTokens: budget });
      expect(usedTokens).toBeLessThanOrEqual(budget);
      expect(countTokens(context)).toBe(usedTokens);
      for (const line of context.split('\n').filter((l) => l.length > 0 && !l.startsWith('[')))
        expect(line, line).toMatch(/[.?!…]$/u);
    }
  });
});
