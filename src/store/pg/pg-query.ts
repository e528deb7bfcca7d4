/**
 * What a PostgreSQL repository needs of the transaction it runs in: one parameterised statement
 * at a time (`$1`, `$2`, …). The PostgreSQL engine hands each repository a client already inside
 * `BEGIN` with the memory's schema on its search path, so repositories write unqualified table
 * names and never begin, commit or roll back themselves. node-postgres' `PoolClient` and PGlite
 * both fit behind it (the engine adapts them).
 */
export interface PgQuery {
  /** Runs one statement and resolves to its rows (and how many rows it touched). */
  query<R extends object = Record<string, unknown>>(
    text: string,
    values?: readonly unknown[],
  ): Promise<{ rows: R[]; rowCount: number }>;
  /**
   * Runs one statement as the last of its transaction, COMMIT sent right behind it (one round
   * trip for both), when the engine allows it for this transaction (a write whose callback is
   * one repository call); absent otherwise. No statement may follow it. A repository uses it
   * only where nothing it does afterwards can need a rollback (its refusals write nothing).
   */
  queryLast?<R extends object = Record<string, unknown>>(
    text: string,
    values?: readonly unknown[],
  ): Promise<{ rows: R[]; rowCount: number }>;
}

/** `text` as `db`'s last statement when it may be ({@link PgQuery.queryLast}), else as any other. */
export function lastStatement<R extends object>(
  db: PgQuery,
  text: string,
  values?: readonly unknown[],
): Promise<{ rows: R[]; rowCount: number }> {
  return db.queryLast ? db.queryLast<R>(text, values) : db.query<R>(text, values);
}
