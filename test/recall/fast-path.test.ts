import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';

/** A small seeded vocabulary: a few common words, many rarer ones, so queries hit many records. */
const COMMON = ['deploy', 'server', 'review', 'budget', 'meeting', 'client'];
const RARE = Array.from({ length: 60 }, (_, i) => `topic${i}`);
const T0 = Date.UTC(2025, 0, 1);

let dir: string;
let db: MemoryDB;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hedgehop-fast-path-'));
  db = await openMemory(join(dir, 'm.db'), { durability: 'normal', dream: { auto: false } });
  const agent = db.primary();
  const texts = fc.sample(
    fc.array(fc.oneof(fc.constantFrom(...COMMON), fc.constantFrom(...RARE)), { minLength: 4, maxLength: 12 }),
    { numRuns: 1_500, seed: 14 },
  );
  for (let turn = 0; turn < 5; turn++) {
    await agent.search({ newScene: true });
    await agent.appendArchiveMany(
      texts.slice(turn * 300, (turn + 1) * 300).map((words, i) => ({
        kind: i % 3 === 0 ? ('utterance' as const) : ('event' as const),
        ...(i % 3 === 0 ? { role: 'user' as const } : { eventType: 'tool_result' }),
        content: words.join(' '),
        createdAt: T0 + turn * 10_000 + i,
      })),
    );
    await agent.update({ createdAt: T0 + turn * 10_000, outcome: 'seeded' });
  }
}, 120_000);

afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('searchArchive fast path', () => {
  it('returns the same records in the same order as the full ranking of the best 1000 matches', async () => {
    const agent = db.primary();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constantFrom(...COMMON), fc.constantFrom(...RARE)), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 20 }),
        async (words, limit) => {
          const text = words.join(' ');
          const fast = await agent.searchArchive({ text, limit });
          // A limit of 1000 reads the whole ranking in one pass: what every call did before.
          const full = await agent.searchArchive({ text, limit: 1000 });
          expect(fast.map((r) => r.id)).toEqual(full.slice(0, limit).map((r) => r.id));
        },
      ),
      { numRuns: 40, seed: 14 },
    );
  });

  it('widens when a condition rejects most ranked records, and still finds them', async () => {
    const agent = db.primary();
    const text = `${COMMON[0]} ${RARE[3]}`;
    const full = await agent.searchArchive({ text, kind: 'utterance', limit: 1000 });
    expect(full.length).toBeGreaterThan(10);
    const fast = await agent.searchArchive({ text, kind: 'utterance', limit: 10 });
    expect(fast.map((r) => r.id)).toEqual(full.slice(0, 10).map((r) => r.id));
    expect(fast.every((r) => r.kind === 'utterance')).toBe(true);
  });
});
