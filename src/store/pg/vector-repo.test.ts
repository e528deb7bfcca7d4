import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IndexDoc } from '../index-repo.js';
import type { Awaitable } from '../seam.js';
import { openPair, type EnginePair, type Repos } from '../../../test/helpers/pg-pair.js';
import { startPgServer, type PgServer } from '../../../test/helpers/pg.js';
import { startPgliteVector } from '../../../test/helpers/pglite-vector.js';

const server = startPgServer();
const reason = typeof server === 'string' ? server : '';
if (reason) console.log(`skipped: PostgreSQL vector repository tests (${reason})`);
const lite = await startPgliteVector();
const liteReason = typeof lite === 'string' ? lite : '';
if (liteReason) console.log(`skipped: pgvector path of PgVectorRepo (${liteReason})`);

const MODEL = { modelId: 'test-embedder', dimensions: 4 };

/** A deterministic vector per index (float32, as both engines store). */
function vectorOf(i: number): Float32Array {
  return Float32Array.from([Math.sin(i + 1), Math.cos(i * 0.7), (i % 3) - 1, 0.25 * i]);
}

function doc(i: number, agentId: number | null): IndexDoc {
  return { layer: 'archive', ref: String(i), agentId, createdAt: i, text: `text number ${i}` };
}

/** Nearest matches compared by rowid order, distances to float32 precision. */
function expectSameMatches(
  pg: readonly { rowid: number; distance: number }[],
  sqlite: readonly { rowid: number; distance: number }[],
): void {
  expect(pg.map((m) => m.rowid)).toEqual(sqlite.map((m) => m.rowid));
  for (const [i, m] of sqlite.entries()) expect(pg[i]?.distance).toBeCloseTo(m.distance, 5);
}

/** The server a suite runs on: its URL, the column type `configure` must create, how to stop it. */
interface Target {
  readonly url: string;
  readonly column: RegExp;
  stop(): Promise<void> | void;
}

/** The comparison with the SQLite repository, on one server. */
function comparison(title: string, skip: string, target: () => Target): void {
  describe.skipIf(skip !== '')(title, () => {
    let pg: Target;
    let pair: EnginePair;

    beforeAll(() => {
      pg = target();
    });
    afterAll(() => pg?.stop());
    beforeEach(async () => {
      pair = await openPair(pg.url);
    });
    afterEach(async () => {
      await pair.close();
    });

    async function same<T>(step: (repos: Repos) => Awaitable<T>): Promise<T> {
      const { sqlite, pg: fromPg } = await pair.both(step);
      expect(fromPg).toEqual(sqlite);
      return sqlite;
    }

    it('configures, embeds pending rows, finds the nearest per agent and forgets replaced text', async () => {
      await same(async (r) => {
        for (let i = 1; i <= 3; i++) await r.index.upsert(doc(i, 1));
      });
      expect(await same((r) => r.vectors.model())).toBeUndefined();
      expect(await same((r) => r.vectors.pendingCount())).toBe(0);
      expect(await same((r) => r.vectors.configure(MODEL))).toBe('created');
      const type = await pair.pg.db.query<{ t: string }>(
        "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'search_vec'::regclass AND attname = 'embedding'",
      );
      expect(type.rows[0]?.t).toMatch(pg.column);
      expect(await same((r) => r.vectors.configure(MODEL))).toBe('unchanged');
      const other = await same((r) => r.vectors.configure({ modelId: 'other', dimensions: 4 }));
      expect(other).toMatchObject({ error: { code: 'CONFLICT' } });
      await same(async (r) => {
        for (let i = 4; i <= 12; i++) await r.index.upsert(doc(i, i === 7 ? 2 : i === 9 ? null : 1));
      });
      expect(await same((r) => r.vectors.pendingCount())).toBe(12);
      await same((r) => r.vectors.pending(5));
      await same((r) => r.vectors.pending(5, 5));
      const wrong = await same((r) => r.vectors.save(1, Float32Array.from([1, 2])));
      expect(wrong).toMatchObject({ error: { code: 'INVALID_INPUT' } });
      const saved = await same(async (r) => {
        const out: boolean[] = [];
        for (let i = 1; i <= 12; i++) out.push(await r.vectors.save(i, vectorOf(i)));
        out.push(await r.vectors.save(1, vectorOf(1)), await r.vectors.save(99, vectorOf(1)));
        return out;
      });
      expect(saved.slice(-2)).toEqual([false, false]);
      expect(await same((r) => r.vectors.pendingCount())).toBe(0);
      for (const [query, agent, k] of [
        [vectorOf(3), 1, 5],
        [vectorOf(7), 2, 3],
        [vectorOf(9), 1, 20],
        [Float32Array.from([1, 0, 0, 0]), 1, 4],
      ] as const) {
        const { sqlite, pg: fromPg } = await pair.both((r) => r.vectors.nearest(query, agent, k));
        expectSameMatches(fromPg, sqlite);
      }
      expect(await same((r) => r.vectors.nearest(Float32Array.from([1, 2]), 1, 3))).toEqual([]);
      expect(await same((r) => r.vectors.nearest(vectorOf(1), 1, 0))).toEqual([]);
      // New text drops the old vector: the row is pending again and no longer found.
      await same((r) => r.index.upsert({ ...doc(3, 1), text: 'new words' }));
      await same((r) => r.vectors.pending(10));
      const after = await pair.both((r) => r.vectors.nearest(vectorOf(3), 1, 3));
      expectSameMatches(after.pg, after.sqlite);
      expect(after.pg.map((m) => m.rowid)).not.toContain(3);
      await same((r) => r.index.remove('archive', '4'));
      await same((r) => r.vectors.invalidateAll());
      expect(await same((r) => r.vectors.pendingCount())).toBe(11);
      expect(await same((r) => r.vectors.nearest(vectorOf(1), 1, 3))).toEqual([]);
      expect(await same((r) => r.vectors.configure({ modelId: 'other', dimensions: 3 }, true))).toBe(
        'replaced',
      );
      await same((r) => r.vectors.model());
    });
  });
}

comparison('PgVectorRepo (plain real[] column, no pgvector) gives what VectorRepo gives', reason, () => {
  const started = server as PgServer;
  return { url: started.url, column: /^real\[\]$/u, stop: () => started.stop() };
});

comparison(
  'PgVectorRepo on a pgvector vector(n) column (PGlite over a socket) gives what VectorRepo gives',
  liteReason,
  () => {
    if (typeof lite === 'string') throw new Error(lite);
    return { url: lite.url, column: /^(public\.)?vector\(4\)$/u, stop: () => lite.stop() };
  },
);
