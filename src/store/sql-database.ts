/**
 * The few things `store/` needs from an SQLite driver (a seam in the manner of kysely's
 * `SqliteDatabase`): better-sqlite3 satisfies it, and only `store/` ever names it.
 */
export interface SqlStatement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  pluck(toggle?: boolean): SqlStatement;
  /** Rows as arrays of column values, in column order (no object per row). */
  raw(toggle?: boolean): SqlStatement;
}

export interface SqlTransaction<A extends unknown[], R> {
  (...args: A): R;
  deferred(...args: A): R;
  immediate(...args: A): R;
  exclusive(...args: A): R;
}

export interface SqlDatabase {
  prepare(sql: string): SqlStatement;
  exec(sql: string): unknown;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): SqlTransaction<A, R>;
  close(): unknown;
  loadExtension(path: string): unknown;
  readonly inTransaction: boolean;
  readonly open: boolean;
}
