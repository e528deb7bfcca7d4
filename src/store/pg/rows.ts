import type { PgQuery } from './pg-query.js';

/**
 * Helpers the PostgreSQL repositories share: reading rows into the plain shapes the SQLite side
 * reads (so the engine-neutral mappers of src/store/*-rows.ts apply unchanged), and the per-agent
 * lock every conversation write takes.
 */

/**
 * BIGINT columns (times, agent ids) by name. node-postgres returns BIGINT as a string (it may
 * exceed 2^53); hedgehop's values are milliseconds and small ids, so they are read as numbers.
 * Archive ids are BIGINT too but stay strings: the public record carries them as strings.
 */
const BIGINT_COLUMNS: ReadonlySet<string> = new Set([
  'agent_id',
  'created_at',
  'last_used_at',
  'opened_at',
  'closed_at',
  'user_ts',
  'agent_ts',
  'finished_at',
  'updated_at',
  'faded_at',
  'last_decay_at',
  'started_at',
  'undone_at',
  'expires_at',
]);

/** The row with its BIGINT columns as numbers (NULL stays null). */
export function numeric<R extends object>(row: Record<string, unknown>): R {
  const out: Record<string, unknown> = { ...row };
  for (const key of Object.keys(out)) {
    const value = out[key];
    if (typeof value === 'string' && BIGINT_COLUMNS.has(key)) out[key] = Number(value);
    else if (typeof value === 'bigint') out[key] = Number(value);
  }
  return out as R;
}

/** Every row of `text`, BIGINT columns as numbers. */
export async function all<R extends object>(
  db: PgQuery,
  text: string,
  values: readonly unknown[] = [],
): Promise<R[]> {
  const { rows } = await db.query(text, values);
  return rows.map((row) => numeric<R>(row));
}

/** The first row of `text`, or `undefined`. */
export async function one<R extends object>(
  db: PgQuery,
  text: string,
  values: readonly unknown[] = [],
): Promise<R | undefined> {
  const { rows } = await db.query(text, values);
  const row = rows[0];
  return row === undefined ? undefined : numeric<R>(row);
}

/** The first column of the first row (`undefined` when there is no row). */
export async function scalar<T>(
  db: PgQuery,
  text: string,
  values: readonly unknown[] = [],
): Promise<T | undefined> {
  const { rows } = await db.query(text, values);
  const row = rows[0];
  if (row === undefined) return undefined;
  return Object.values(row)[0] as T;
}

/**
 * `pending` (a statement already sent) to be awaited later, after statements sent behind it:
 * they share one round trip (the pool's clients are in pipeline mode). Its rejection is marked
 * handled here, because a caller that stops at an earlier statement's refusal never awaits it
 * (its transaction is then rolled back, and a failed statement fails those behind it alike).
 */
export function later<T>(pending: Promise<T>): Promise<T> {
  pending.catch(() => undefined);
  return pending;
}

/** How many rows a statement touched. */
export async function run(db: PgQuery, text: string, values: readonly unknown[] = []): Promise<number> {
  return (await db.query(text, values)).rowCount;
}

/**
 * Takes the agent's conversation lock until the transaction ends: every write to its scenes,
 * turns, records, plans, engram and Dream passes takes it first, so writers on other connections
 * (other processes, other machines) queue behind one another exactly as SQLite's single writer
 * does, and a read-then-write (the open turn, the next slot, the next plan step) never races.
 * A transaction-scoped advisory lock: PostgreSQL releases it at COMMIT or ROLLBACK, also when the
 * client dies. The key includes the schema, so memories in one database do not contend.
 */
export async function lockAgent(db: PgQuery, agentId: number): Promise<void> {
  await db.query(
    "SELECT pg_advisory_xact_lock(hashtextextended('hedgehop.agent:' || current_schema() || ':' || $1::text, 0))",
    [agentId],
  );
}
