import type { SqlDatabase } from '../sql-database.js';

/** One forward-only schema step. `up` runs inside the migration transaction. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  up(db: SqlDatabase): void;
}
