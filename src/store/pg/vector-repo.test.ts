import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { IndexDoc } from '../index-repo.js';
import type { Awaitable } from '../seam.js';
import type { PGliteOptions } from '@electric-sql/pglite';
import type { PgQuery } from './pg-query.js';
import { PgIndexRepo } from './index-repo.js';
import { PgVectorRepo } from './vector-repo.js';
import { indexSchema } from './schema/index.js';
import { openPair, type EnginePair, type Repos } from '../../../test/helpers/pg-pair.js';
import { startPgServer, type PgServer } from '../../../test/helpers/pg.js';

const server = startPgServer();
const reason = typeof server === 'string' ? server : '';
if (reason) console.log(`skipped: PostgreSQL vector repository tests (${reason})`);

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

describe.skipIf(reason !== '')(
  'PgVectorRepo (plain real[] column, no pgvector) gives what VectorRepo gives',
  () => {
    let pg: PgServer;
    let pair: EnginePair;

    beforeAll(() => {
      pg = server as PgServer;
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
  },
);

/** PGlite with pgvector, when the installed PGlite ships it (`@electric-sql/pglite/vector`). */
async function pgliteWithVector(): Promise<{ db: PgQuery; close: () => Promise<void> } | string> {
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const module = '@electric-sql/pglite/vector';
    const { vector } = (await import(/* @vite-ignore */ module)) as { vector: unknown };
    const lite = await PGlite.create({ extensions: { vector } } as PGliteOptions);
    const db: PgQuery = {
      query: async (text, values) => {
        const result = await lite.query(text, values as unknown[] | undefined);
        return { rows: result.rows as never[], rowCount: result.affectedRows ?? result.rows.length };
      },
    };
    return { db, close: () => lite.close() };
  } catch (error) {
    return `the installed PGlite has no pgvector (${(error as Error).message.split('\n')[0]})`;
  }
}

const lite = await pgliteWithVector();
if (typeof lite === 'string') console.log(`skipped: pgvector path of PgVectorRepo (${lite})`);
const liteDb = typeof lite === 'string' ? undefined : lite;

describe.skipIf(liteDb === undefined)('PgVectorRepo on pgvector (PGlite)', () => {
  it('stores a vector(n) column and finds the same nearest rows as the exact array search', async () => {
    if (!liteDb) throw new Error('unreachable: skipped without PGlite');
    const { db, close } = liteDb;
    try {
      await db.query('CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)');
      for (const statement of indexSchema) await db.query(statement);
      const vectors = new PgVectorRepo(db);
      const index = new PgIndexRepo(db, vectors);
      await vectors.configure(MODEL);
      const type = await db.query<{ t: string }>(
        "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute WHERE attrelid = 'search_vec'::regclass AND attname = 'embedding'",
      );
      expect(type.rows[0]?.t).toMatch(/vector\(4\)/u);
      for (let i = 1; i <= 8; i++) await index.upsert(doc(i, i % 2 === 0 ? 1 : null));
      for (let i = 1; i <= 8; i++) expect(await vectors.save(i, vectorOf(i))).toBe(true);
      const found = await vectors.nearest(vectorOf(2), 1, 3);
      const expected = [...Array(8).keys()]
        .map((i) => ({ rowid: i + 1, distance: cosineDistance(vectorOf(i + 1), vectorOf(2)) }))
        .sort((a, b) => a.distance - b.distance)
        .slice(0, 3);
      expectSameMatches(found, expected);
    } finally {
      await close();
    }
  });
});

function cosineDistance(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return 1 - dot / (Math.sqrt(na) * Math.sqrt(nb));
}
