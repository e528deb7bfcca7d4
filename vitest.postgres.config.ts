import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/** Test files that run on both engines: those built on test/helpers/engines.ts's matrix. */
function matrixSuites(root: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.test.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    if (/helpers\/engines\.js['"]/.test(readFileSync(path, 'utf8'))) found.push(path);
  }
  return found;
}

/**
 * `npm run test:postgres`: the PostgreSQL engine's own tests (src/store/pg/), its fault tests
 * (test/postgres/faults*.test.ts: killed clients, a restarted server, racing writers) and the PostgreSQL
 * half of every matrix suite, against HEDGEHOP_TEST_PG_URL or a throwaway server started by
 * test/helpers/pg-global-setup.ts.
 */
export default defineConfig({
  test: {
    include: [
      'src/store/pg/**/*.test.ts',
      'test/postgres/faults*.test.ts',
      'test/postgres/write-functions.test.ts',
      'test/postgres/recall-engines.test.ts',
      ...matrixSuites('test'),
      ...matrixSuites('src'),
    ],
    exclude: ['node_modules/**', 'dist/**'],
    globalSetup: ['test/helpers/pg-global-setup.ts'],
    env: { HEDGEHOP_TEST_ENGINES: 'postgres' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
