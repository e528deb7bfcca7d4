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
}
