import { describe } from 'vitest';
import { freshPgUrl, PG_SKIP_REASON } from './pg.js';
import { tempFile } from './temp.js';

/** One engine a behavioural suite runs against. */
export interface EngineUnderTest {
  readonly name: 'sqlite' | 'postgres';
  /** Why this engine's cases skip here (one line), or undefined when they run. */
  readonly skip: string | undefined;
  /** Where a fresh, empty memory lives: a new file path, or a URL naming a new PostgreSQL memory. */
  memoryPath(): string;
}

const ALL: readonly EngineUnderTest[] = [
  { name: 'sqlite', skip: undefined, memoryPath: () => tempFile() },
  { name: 'postgres', skip: PG_SKIP_REASON, memoryPath: () => freshPgUrl() },
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
