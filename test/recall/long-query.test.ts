import { describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import { MAX_QUERY_CHARS } from '../../src/core/model/recall.js';
import { tempFile } from '../helpers/temp.js';

// A query up to the documented limits costs CPU linear in its length and at most 50 ms beyond
// the index lookup (issue 14): the searched terms are capped, and only a bounded part of a long
// query is read for words. Bound here: 10x the target, measured as what a query of the limit
// costs beyond the same call with a query a tenth as long (both search as many terms), so the
// machine's speed cancels out. A 99,000-character CJK query once took 12.6 s in recall, and
// navigation segmented the whole query again for its word pairs (1.4 s at 100,000 characters).

const WORDS = Array.from({ length: 3_000 }, (_, i) => `w${(i * 2_654_435_761) % 1_000_003}x`);
const HAN = Array.from({ length: 3_000 }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7_919) % 20_000)));

function latin(chars: number, seed: number): string {
  const words: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const word = WORDS[(i * 37 + seed * 101) % WORDS.length] as string;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ').slice(0, chars);
}

function cjk(chars: number, seed: number): string {
  let text = '';
  for (let i = 0; text.length < chars; i++) {
    text += HAN[(i * 13 + seed * 7) % HAN.length] as string;
    if (i % 40 === 39) text += '。';
  }
  return text.slice(0, chars);
}

/** Latin words and CJK runs in turn, as a pasted bilingual document reads. */
function mixed(chars: number, seed: number): string {
  let text = '';
  for (let i = 0; text.length < chars; i++) text += `${latin(200, seed + i)} ${cjk(120, seed + i)} `;
  return text.slice(0, chars);
}

async function seeded(): Promise<MemoryDB> {
  const db = await openMemory(tempFile(), { durability: 'normal' });
  const agent = db.primary();
  await agent.search({ newScene: true });
  await agent.appendArchiveMany(
    Array.from({ length: 2_000 }, (_, i) => ({
      kind: 'event' as const,
      eventType: 'tool_result',
      content: i % 2 === 0 ? latin(240, i) : cjk(120, i),
    })),
  );
  await agent.update({ outcome: 'seeded' });
  await agent.radial.createLine('work', 'Work', 'tasks');
  for (let i = 0; i < 40; i++) {
    await agent.radial.completeTask({
      lineId: 'work',
      taskLabel: `task ${i} ${latin(30, i)}`,
      fullContext: `${latin(300, i)} ${cjk(100, i)}`,
      conversationSummary: latin(60, i),
      todos: [],
    });
  }
  await db.knowledge.import({
    graph: 'g',
    nodes: Array.from({ length: 300 }, (_, i) => ({
      title: `node ${i}`,
      type: 't',
      content: `${latin(100, i)} ${cjk(40, i)}`,
    })),
    edges: [],
  });
  return db;
}

async function fastest(fn: () => Promise<unknown>): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < 2; i++) {
    const started = performance.now();
    await fn();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

describe('long queries', () => {
  it('recall, navigate, searchArchive and knowledge search cost little more at their limits', async () => {
    const db = await seeded();
    const agent = db.primary();
    try {
      const calls: [string, number, (query: string) => Promise<unknown>][] = [
        ['recall', MAX_QUERY_CHARS, (q) => agent.recall(q, { budgetTokens: 1000 })],
        ['navigate', MAX_QUERY_CHARS, (q) => agent.radial.navigate(q)],
        // The documented limits of these two: 4,096 bytes and 2,048 characters.
        ['searchArchive', 1_365, (q) => agent.searchArchive({ text: q, limit: 10 })],
        ['knowledge search', 2_048, (q) => db.knowledge.search(q, { limit: 20 })],
      ];
      for (const [name, limit, call] of calls) {
        for (const [kind, make] of [
          ['latin', latin],
          ['cjk', cjk],
          ['cjk and latin', mixed],
        ] as const) {
          const long = make(limit, 1);
          expect(long.length).toBe(limit);
          const short = make(Math.floor(limit / 10), 1);
          await call(long);
          const longMs = await fastest(() => call(long));
          const shortMs = await fastest(() => call(short));
          expect(
            longMs - shortMs,
            `${name}, ${kind}: ${longMs.toFixed(0)} vs ${shortMs.toFixed(0)} ms`,
          ).toBeLessThan(500);
        }
      }
    } finally {
      await db.close();
    }
  }, 240_000);
});
