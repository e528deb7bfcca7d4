import { lastStatement, type PgQuery } from './pg-query.js';

/**
 * Small helpers shared by the PostgreSQL repositories. `bigint` and `count(*)` come back from
 * node-postgres as strings (and from PGlite as numbers or bigints); every number a repository
 * returns goes through {@link int}, so results are plain numbers on every driver, as in SQLite.
 */

/** A column value as a JavaScript number (`null` stays `null`). */
export function int(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint' || typeof value === 'string') return Number(value);
  throw new TypeError(`expected a number from PostgreSQL, got ${typeof value}`);
}

/** {@link int}, keeping `null`. */
export function intOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : int(value);
}

/** A LIMIT value as SQLite reads it: a negative limit means no limit (PostgreSQL: LIMIT NULL). */
export function sqlLimit(limit: number): number | null {
  return limit < 0 ? null : limit;
}

/** The first row of a query, or undefined. */
export async function first<R extends object>(
  db: PgQuery,
  text: string,
  values?: readonly unknown[],
): Promise<R | undefined> {
  const { rows } = await db.query<R>(text, values);
  return rows[0];
}

/** {@link first} of a statement run as its transaction's last when it may be (see {@link lastStatement}). */
export async function lastFirst<R extends object>(
  db: PgQuery,
  text: string,
  values?: readonly unknown[],
): Promise<R | undefined> {
  const { rows } = await lastStatement<R>(db, text, values);
  return rows[0];
}

/** In a `u` regular expression, surrogates that are not half of a pair. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The bytes SQLite stores for a text: its UTF-8, except that a lone surrogate (which UTF-8
 * cannot encode) is written as its own three-byte sequence (WTF-8), as better-sqlite3 hands
 * SQLite such a string. Read back, each of those bytes decodes to U+FFFD on both engines.
 */
export function utf8(text: string): Buffer {
  if (!LONE_SURROGATE.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const pair = c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (pair) {
      i++;
      continue;
    }
    parts.push(Buffer.from(text.slice(start, i), 'utf8'));
    parts.push(Buffer.from([0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]));
    start = i + 1;
  }
  parts.push(Buffer.from(text.slice(start), 'utf8'));
  return Buffer.concat(parts);
}

/** A `bytea` column read back as text. */
export function fromUtf8(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  throw new TypeError(`expected bytea from PostgreSQL, got ${typeof value}`);
}

/** SQLSTATE of a PostgreSQL error (node-postgres and PGlite both set `code`), or undefined. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

let savepoints = 0;

/**
 * Runs `work` under a savepoint of the caller's transaction: when it throws, only its own
 * statements are rolled back (a failed statement otherwise aborts the whole PostgreSQL
 * transaction) and the error is rethrown. Repositories never begin or commit; this is how one
 * retries part of a transaction, as SQLite's statement-level rollback allows.
 */
export async function withSavepoint<T>(db: PgQuery, work: () => Promise<T>): Promise<T> {
  const name = `hh_sp_${++savepoints}`;
  await db.query(`SAVEPOINT ${name}`);
  try {
    const result = await work();
    await db.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    await db.query(`ROLLBACK TO SAVEPOINT ${name}`);
    await db.query(`RELEASE SAVEPOINT ${name}`);
    throw error;
  }
}

/**
 * A text the library derived from a task's full context (its presentation levels), made
 * storable in a `text` column: NUL (`\u0000`), which a full context may hold (it is kept as
 * bytes) but PostgreSQL text cannot, is dropped. SQLite keeps it; nothing else changes. Text the
 * caller gives directly (labels, conversation summaries) is not touched: NUL there is refused
 * with INVALID_INPUT (docs/postgres.md).
 */
export function derivedText(text: string): string;
export function derivedText(text: string | null | undefined): string | null | undefined;
export function derivedText(text: string | null | undefined): string | null | undefined {
  return typeof text === 'string' && text.includes('\u0000') ? text.replaceAll('\u0000', '') : text;
}
