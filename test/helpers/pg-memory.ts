import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

/**
 * The PostgreSQL server the tests use: `HEDGEHOP_TEST_PG_URL` (set by hand, or by
 * `npm run test:postgres`, which starts a throwaway server). Undefined without one.
 */
export const PG_TEST_URL: string | undefined = process.env.HEDGEHOP_TEST_PG_URL || undefined;

/** Why PostgreSQL cases skip here (one line), or undefined when they run. */
export const PG_SKIP_REASON: string | undefined = PG_TEST_URL
  ? undefined
  : 'PostgreSQL cases skipped: no server (run `npm run test:postgres`, or set HEDGEHOP_TEST_PG_URL)';

const created: string[] = [];

/** `url` with `?memory=<name>` set (replacing any). */
export function withMemory(url: string, memory: string): string {
  const [base, query = ''] = url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query);
  params.set('memory', memory);
  return `${base}?${params.toString()}`;
}

/** A URL naming a fresh memory (its own schema) on the test server, dropped after the file's tests. */
export function freshPgUrl(): string {
  if (!PG_TEST_URL) throw new Error(PG_SKIP_REASON);
  const memory = `t_${randomBytes(6).toString('hex')}`;
  created.push(memory);
  return withMemory(PG_TEST_URL, memory);
}

/** Runs one statement on the test server's database, outside any memory (for setup and faults). */
export async function pgAdmin<T extends object = Record<string, unknown>>(
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  if (!PG_TEST_URL) throw new Error(PG_SKIP_REASON);
  const client = new pg.Client({ connectionString: PG_TEST_URL.replace(/([?&])memory=[^&]*&?/, '$1') });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  const names = created.splice(0);
  if (!PG_TEST_URL || names.length === 0) return;
  // One schema per statement (and so per transaction): dropping a file's dozens of memories in
  // one transaction takes a lock on each of their thousands of relations at once and can fill the
  // server's lock table ("out of shared memory") under another test file's transaction.
  for (const name of names)
    await pgAdmin(`DROP SCHEMA IF EXISTS "hedgehop_${name}" CASCADE`).catch(() => undefined);
});
