import { describe } from 'vitest';
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

/** Every row of every table of a PostgreSQL memory's schema, hashed in a fixed order. */
async function pgDigest(url: string): Promise<string> {
  const memory = new URLSearchParams(url.split('?')[1] ?? '').get('memory') ?? 'default';
  const schema = `hedgehop_${memory}`;
  const tables = await pgAdmin<{ name: string }>(
    'SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 ORDER BY tablename',
    [schema],
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const [row] = await pgAdmin<{ digest: string }>(
      `SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text COLLATE "C"), '')) AS digest FROM "${schema}"."${name}" t`,
    );
    parts.push(`${name}:${row?.digest ?? ''}`);
  }
  return parts.join(' ');
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
    describe.skipIf(engine.skip !== undefined)(name, () => body(engine));
  }
}
