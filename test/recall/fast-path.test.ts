import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import { matchExpression, queryTerms } from '../../src/recall/query.js';
import { searchIndex, searchIndexResolved } from '../../src/recall/search.js';
import { stem, tokenize } from '../../src/recall/query.js';
import { describeEngines, freshMemoryPath } from '../helpers/engines.js';

/** A small seeded vocabulary: a few common words, many rarer ones, so queries hit many records. */
const COMMON = ['deploy', 'server', 'review', 'budget', 'meeting', 'client'];
const RARE = Array.from({ length: 60 }, (_, i) => `topic${i}`);
const T0 = Date.UTC(2025, 0, 1);
const words = fc.array(fc.oneof(fc.constantFrom(...COMMON), fc.constantFrom(...RARE)), {
  minLength: 1,
  maxLength: 4,
});

let db: MemoryDB;

/** Opens a fresh memory on the engine under test holding 1,500 seeded records, closed after the block. */
function seededMemory(): void {
  beforeAll(async () => {
    db = await seed();
  }, 120_000);
  afterAll(async () => {
    await db.close();
  });
}

async function seed(): Promise<MemoryDB> {
  const db = await openMemory(freshMemoryPath(), { durability: 'normal', dream: { auto: false } });
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
  return db;
}

describeEngines('searchArchive fast path', () => {
  seededMemory();
  it('returns the same records in the same order as a read of the best 1000 matches', async () => {
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

  it("marks the query's own FTS5 matches, which hold a query word (searchArchive skips their check)", async () => {
    const agentId = db.primary().info().id;
    let others = 0;
    await fc.assert(
      fc.asyncProperty(words, async (w) => {
        const query = w.join(' ');
        const stems = new Set(queryTerms(query).map((t) => t.stem));
        const ranked = await searchIndexResolved(db.memoryStore, {
          agentId,
          query,
          layers: ['archive'],
          limit: 200,
        });
        for (const item of ranked) {
          const holds = tokenize(item.resolved.text).some((word) => stems.has(stem(word)));
          if (item.matchesQuery) expect(holds).toBe(true);
          else others++;
        }
      }),
      { numRuns: 30, seed: 14 },
    );
    // Neighbours and feedback bring in rows the query did not match: the flag tells them apart.
    expect(others).toBeGreaterThan(0);
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

describeEngines('ranking reads', (engine) => {
  seededMemory();
  it('a longer read of a query starts with every shorter read (re-ranked head, then BM25 order)', async () => {
    const agentId = db.primary().info().id;
    await fc.assert(
      fc.asyncProperty(
        words,
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 200 }),
        async (w, a, more) => {
          const query = w.join(' ');
          // A small re-ranked pool, so that most reads run past it into the BM25 tail.
          const weights = { candidates: 20 };
          const short = await searchIndex(db.memoryStore, { agentId, query, limit: a, weights });
          const long = await searchIndex(db.memoryStore, { agentId, query, limit: a + more, weights });
          expect(long.slice(0, short.length).map((h) => h.rowid)).toEqual(short.map((h) => h.rowid));
          for (let i = 1; i < long.length; i++)
            expect(long[i]!.score).toBeLessThanOrEqual(long[i - 1]!.score);
          expect(new Set(long.map((h) => h.rowid)).size).toBe(long.length);
        },
      ),
      { numRuns: 40, seed: 14 },
    );
  });

  // SQLite only: the reference is a plain FTS5 join ranked by SQLite's bm25(); the PostgreSQL
  // candidate query is compared with SQLite's in src/store/pg/recall-repo.test.ts.
  if (engine.name !== 'sqlite') return;
  it('the candidate query returns what a plain join-then-sort of the same match returns', () => {
    const store = db.store;
    const agentId = db.primary().info().id;
    const reference = store.engine.statement(
      `SELECT d.rowid AS rowid, -bm25(search_fts) AS bm25
       FROM search_fts JOIN search_docs d ON d.rowid = search_fts.rowid
       WHERE search_fts MATCH ? AND (d.agent_id = ? OR d.agent_id IS NULL) AND (? IS NULL OR d.layer = ?)
         AND (? IS NULL OR d.scene_id = ?) AND (? IS NULL OR d.created_at >= ?) AND (? IS NULL OR d.created_at < ?)
       ORDER BY bm25 DESC`,
    );
    const scenes = store.engine
      .statement('SELECT DISTINCT scene_id FROM search_docs WHERE scene_id IS NOT NULL')
      .pluck()
      .all() as string[];
    // Every combination of filters is its own statement (only the conditions in use are written).
    fc.assert(
      fc.property(
        words,
        fc.integer({ min: 1, max: 400 }),
        fc.boolean(),
        fc.option(fc.constantFrom(...scenes), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: undefined }),
        fc.option(fc.integer({ min: 0, max: 50_000 }), { nil: undefined }),
        (w, limit, archiveOnly, sceneId, fromOffset, toOffset) => {
          const match = matchExpression(queryTerms(w.join(' ')).map((t) => t.word)) as string;
          const layer = archiveOnly ? 'archive' : null;
          const from = fromOffset === undefined ? undefined : T0 + fromOffset;
          const to = toOffset === undefined ? undefined : T0 + toOffset;
          const scene = sceneId ?? null;
          const all = reference.all(
            match,
            agentId,
            layer,
            layer,
            scene,
            scene,
            from ?? null,
            from ?? null,
            to ?? null,
            to ?? null,
          ) as {
            rowid: number;
            bm25: number;
          }[];
          const got = store.engine.read('t', () =>
            store.direct.recall.match(
              match,
              { agentId, layers: archiveOnly ? ['archive'] : undefined, sceneId, from, to },
              limit,
            ),
          );
          expect(got.length).toBe(Math.min(limit, all.length));
          // Same scores in the same order; rows tied at a score may come in another order.
          expect(got.map((d) => d.bm25)).toEqual(all.slice(0, got.length).map((r) => r.bm25));
          const cut = got.at(-1)?.bm25;
          const strict = (rows: readonly { rowid: number; bm25: number }[]) =>
            rows
              .filter((r) => r.bm25 !== cut)
              .map((r) => r.rowid)
              .sort((x, y) => x - y);
          expect(strict(got)).toEqual(strict(all.slice(0, got.length)));
        },
      ),
      { numRuns: 80, seed: 14 },
    );
  });
});

describeEngines('candidates crowded out by another agent', () => {
  it("reads past another agent's better matches to the asking agent's own", async () => {
    const memory = await openMemory(freshMemoryPath(), { durability: 'normal', dream: { auto: false } });
    try {
      const own = memory.primary();
      const other = await memory.agent('other');
      // The other agent's rows hold the word twice in short texts: they outrank every own row, and
      // fill any window of the best matches a few times the asked-for count wide.
      await other.search({ newScene: true });
      await other.appendArchiveMany(
        Array.from({ length: 700 }, (_, i) => ({
          kind: 'event' as const,
          eventType: 'tool_result',
          content: `quill quill ${RARE[i % RARE.length]}`,
        })),
      );
      await other.update({ outcome: 'seeded' });
      await own.search({ newScene: true });
      await own.appendArchiveMany(
        Array.from({ length: 40 }, (_, i) => ({
          kind: 'event' as const,
          eventType: 'tool_result',
          content: `quill ${COMMON.join(' ')} ${RARE.slice(0, 1 + (i % 20)).join(' ')}`,
        })),
      );
      await own.update({ outcome: 'seeded' });
      const agentId = own.info().id;
      for (const limit of [1, 10, 40]) {
        const hits = await searchIndex(memory.memoryStore, {
          agentId,
          query: 'quill',
          layers: ['archive'],
          limit,
          weights: { candidates: limit },
        });
        expect(hits).toHaveLength(limit);
        expect(hits.every((hit) => hit.agentId === agentId)).toBe(true);
      }
      const records = await own.searchArchive({ text: 'quill', limit: 40 });
      expect(records).toHaveLength(40);
    } finally {
      await memory.close();
    }
  });
});
