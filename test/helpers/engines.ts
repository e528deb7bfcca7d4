import { afterAll, beforeAll, describe } from 'vitest';
import type { MemoryDB } from '../../src/api/memory-db.js';
import { Store } from '../../src/store/store.js';
import { freshPgUrl, pgAdmin, PG_SKIP_REASON } from './pg-memory.js';
import { fileDigest, tempFile } from './temp.js';

/** One engine a behavioural suite runs against. */
export interface EngineUnderTest {
  readonly name: 'sqlite' | 'postgres';
  /** Why this engine's cases skip here (one line), or undefined when they run. */
  readonly skip: string | undefined;
  /** Where a fresh, empty memory lives: a new file path, or a URL naming a new PostgreSQL memory. */
  memoryPath(): string;
  /**
   * A digest of everything the memory at `path` holds, to prove a refused call changed nothing:
   * the file's bytes on SQLite (checkpoint first), every row of every table on PostgreSQL.
   */
  digest(path: string): Promise<string>;
}

/**
 * Every row of every table of a PostgreSQL memory's schema, hashed in a fixed order (one
 * statement: the table list is read, then each table's rows hashed, on one connection).
 */
async function pgDigest(url: string): Promise<string> {
  const memory = new URLSearchParams(url.split('?')[1] ?? '').get('memory') ?? 'default';
  const schema = `hedgehop_${memory}`;
  const tables = await pgAdmin<{ name: string }>(
    'SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename',
    [schema],
  );
  if (tables.length === 0) return '';
  const parts = tables.map(
    ({ name }) =>
      `SELECT '${name}' || ':' || md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text COLLATE "C"), '')) AS part FROM "${schema}"."${name}" t`,
  );
  const rows = await pgAdmin<{ part: string }>(parts.join(' UNION ALL '));
  return rows
    .map((row) => row.part)
    .sort()
    .join(' ');
}

const ALL: readonly EngineUnderTest[] = [
  { name: 'sqlite', skip: undefined, memoryPath: () => tempFile(), digest: async (path) => fileDigest(path) },
  { name: 'postgres', skip: PG_SKIP_REASON, memoryPath: () => freshPgUrl(), digest: pgDigest },
];

/**
 * The engines of this run: both by default (PostgreSQL skipping without a server), only
 * PostgreSQL under `npm run test:postgres` (`HEDGEHOP_TEST_ENGINES=postgres`), so the SQLite
 * cases are not run twice.
 */
export const ENGINES: readonly EngineUnderTest[] = ((): readonly EngineUnderTest[] => {
  const wanted = (process.env.HEDGEHOP_TEST_ENGINES ?? 'sqlite,postgres').split(',').map((s) => s.trim());
  return ALL.filter((engine) => wanted.includes(engine.name));
})();

/**
 * Runs `body` once per engine, as `title [sqlite]` and `title [postgres]`: one copy of a
 * behavioural suite for both engines (the seam's promise: same calls, same results).
 */
export function describeEngines(title: string, body: (engine: EngineUnderTest) => void): void {
  for (const engine of ENGINES) {
    const name = engine.skip ? `${title} [${engine.name}] (${engine.skip})` : `${title} [${engine.name}]`;
    describe.skipIf(engine.skip !== undefined)(name, () => {
      beforeAll(() => {
        current = engine;
      });
      afterAll(() => {
        current = undefined;
      });
      body(engine);
    });
  }
}

let current: EngineUnderTest | undefined;

/**
 * The engine of the {@link describeEngines} block whose tests are running (set before its first
 * test; a file's blocks run one after another), so a folder's helpers (`openTemp`, `fresh`,
 * `expectRefusal`) open a fresh memory and digest it on the right engine without every call
 * site passing it. Outside a matrix block: SQLite.
 */
export function engineUnderTest(): EngineUnderTest {
  return current ?? (ALL[0] as EngineUnderTest);
}

/** A fresh, empty memory on the engine under test: a new file path or a new PostgreSQL memory URL. */
export function freshMemoryPath(): string {
  return engineUnderTest().memoryPath();
}

type Row = Record<string, unknown>;

/**
 * Runs one SQL statement on an open memory, on either engine, for tests that check a table's
 * rows directly or simulate what no public call does (retention, a damaged row). `?` marks a
 * parameter on both engines (rewritten to `$n` for PostgreSQL); the statement must be valid on
 * both (standard SQL: `IS DISTINCT FROM`, `CAST`, no SQLite-only functions). Whole numbers come
 * back as numbers on both. A statement that returns no rows returns `[]`; on SQLite a write
 * runs in its own transaction, on PostgreSQL every statement does.
 */
export async function memorySql(db: MemoryDB, sql: string, ...params: unknown[]): Promise<Row[]> {
  const store = db.memoryStore;
  if (store instanceof Store) {
    const statement = store.engine.statement(sql);
    if (/^\s*(SELECT|WITH|PRAGMA)\b/i.test(sql)) return statement.pluck(false).all(...params) as Row[];
    store.engine.write('test sql', () => statement.run(...params));
    return [];
  }
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  const kind = /^\s*(SELECT|WITH)\b/i.test(sql) ? 'read' : 'write';
  return store.sql(kind, 'test sql', async (q) => (await q.query<Row>(text, params)).rows);
}

/** {@link EngineUnderTest.digest} of the engine under test: to prove a refused call changed nothing. */
export function memoryDigest(path: string): Promise<string> {
  return engineUnderTest().digest(path);
}
