import { pgBinDir, startPgServer, type PgServer } from './pg-server.js';

let server: PgServer | undefined;

/**
 * vitest globalSetup of `npm run test:postgres`: when `HEDGEHOP_TEST_PG_URL` is not set,
 * starts a throwaway PostgreSQL server (Debian's `postgresql` package) for the whole run and
 * hands its URL to the test processes through that variable; {@link teardown} stops it.
 */
export async function setup(): Promise<void> {
  if (process.env.HEDGEHOP_TEST_PG_URL) return;
  const bin = pgBinDir();
  if (!bin) {
    console.warn(
      'test:postgres: no PostgreSQL server binaries (apt-get install postgresql); PostgreSQL cases skip',
    );
    return;
  }
  server = await startPgServer(bin);
  process.env.HEDGEHOP_TEST_PG_URL = server.url;
  process.env.HEDGEHOP_TEST_PG_DIR = server.dir;
}

/** Stops the server {@link setup} started. */
export function teardown(): void {
  server?.stop();
  server = undefined;
}
