import { HedgehopError } from '../../core/errors.js';
import { COUNTED_TABLES, type CheckReport, type FileStats } from '../maintenance.js';
import { dumpLayout } from './dump.js';
import { PG_SCHEMA_VERSION, VERSION_TABLE } from './migrations.js';
import type { PgQuery } from './pg-query.js';

const count = async (db: PgQuery, sql: string): Promise<number> =>
  (await db.query<{ n: number }>(sql)).rows[0]?.n ?? 0;

/**
 * Sizes and live row counts of a memory on PostgreSQL. `fileBytes` is the on-disk size of the
 * memory's tables and indexes on the server; `walBytes` is 0 (the server's WAL is shared by
 * every database on it and is the server's to manage). Runs inside a read transaction.
 */
export async function pgStats(db: PgQuery, path: string): Promise<FileStats> {
  const rows: Record<string, number> = {};
  for (const [name, table] of Object.entries(COUNTED_TABLES))
    rows[name] = await count(db, `SELECT count(*) AS n FROM ${table}`);
  const version = await db.query<{ version: number }>(`SELECT version FROM ${VERSION_TABLE}`);
  return {
    path,
    fileBytes: await count(
      db,
      `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS n FROM pg_class c
       WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'm')`,
    ),
    walBytes: 0,
    schemaVersion: version.rows[0]?.version ?? 0,
    agents: await count(db, 'SELECT count(*) AS n FROM agents'),
    rows,
    pending: {
      summaries: await count(db, "SELECT count(*) AS n FROM nodes WHERE summaries_state = 'pending'"),
      keywords: await count(
        db,
        "SELECT count(*) AS n FROM topics WHERE keywords_state = 'pending' AND status = 'closed'",
      ),
      embeddings: await count(db, "SELECT count(*) AS n FROM search_docs WHERE embed_state = 'pending'"),
    },
  };
}

/** Checks that every table and column the dump layout (the SQLite schema) names exists, in order. */
async function checkSchema(db: PgQuery): Promise<void> {
  const { rows } = await db.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const actual = new Map<string, string[]>();
  for (const row of rows)
    actual.set(row.table_name, [...(actual.get(row.table_name) ?? []), row.column_name]);
  const problems: string[] = [];
  for (const table of [...dumpLayout(), { name: 'leases', columns: ['name', 'owner', 'expires_at'] }]) {
    const columns = actual.get(table.name);
    if (!columns) {
      problems.push(`table ${table.name} is missing`);
      continue;
    }
    const missing = table.columns.filter((c) => !columns.includes(c));
    if (missing.length > 0) problems.push(`table ${table.name} lacks ${missing.join(', ')}`);
  }
  if (problems.length > 0) throw new Error(problems.slice(0, 20).join('; '));
}

/**
 * Integrity check on PostgreSQL: the schema version, every table and column this build uses,
 * every constraint validated and every index valid. Pages are the server's own (checked by
 * `pg_amcheck` and its checksums), so that check is reported as skipped. Throws `CORRUPT`
 * listing what was found. Runs inside a read transaction.
 */
export async function pgCheck(db: PgQuery, path: string): Promise<CheckReport> {
  const problems: string[] = [];
  const checked: string[] = [];
  const attempt = async (name: string, fn: () => Promise<void>): Promise<void> => {
    try {
      await db.query('SAVEPOINT hedgehop_check');
      await fn();
      await db.query('RELEASE SAVEPOINT hedgehop_check');
      checked.push(name);
    } catch (error) {
      await db.query('ROLLBACK TO SAVEPOINT hedgehop_check');
      problems.push(`${name}: ${(error as Error).message}`);
    }
  };
  await attempt('version', async () => {
    const { rows } = await db.query<{ version: number }>(`SELECT version FROM ${VERSION_TABLE}`);
    if (rows[0]?.version !== PG_SCHEMA_VERSION)
      throw new Error(`schema version ${String(rows[0]?.version)}, expected ${PG_SCHEMA_VERSION}`);
  });
  await attempt('schema', () => checkSchema(db));
  await attempt('constraints', async () => {
    const { rows } = await db.query<{ name: string }>(
      `SELECT conrelid::regclass || '.' || conname AS name FROM pg_constraint
       WHERE connamespace = current_schema()::regnamespace AND NOT convalidated`,
    );
    if (rows.length > 0) throw new Error(`not validated: ${rows.map((r) => r.name).join(', ')}`);
  });
  await attempt('indexes', async () => {
    const { rows } = await db.query<{ name: string }>(
      `SELECT i.indexrelid::regclass::text AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE c.relnamespace = current_schema()::regnamespace AND NOT (i.indisvalid AND i.indisready)`,
    );
    if (rows.length > 0) throw new Error(`invalid: ${rows.map((r) => r.name).join(', ')}`);
  });
  if (problems.length > 0)
    throw new HedgehopError('CORRUPT', `${path} failed its integrity check: ${problems.join(' | ')}`);
  return {
    ok: true,
    checked,
    skipped: [
      {
        check: 'pages',
        reason: "PostgreSQL's pages belong to the server: check them with pg_amcheck and data checksums",
      },
    ],
  };
}

/** What `checkpoint()` reports on PostgreSQL, where it does nothing. */
export const PG_CHECKPOINT = {
  walFramesCheckpointed: 0,
  busy: false,
  note: 'nothing to do on PostgreSQL: the server checkpoints its own WAL (see checkpoint_timeout); every acknowledged commit is already durable',
} as const;
