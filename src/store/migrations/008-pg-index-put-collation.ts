import type { Migration } from './migration.js';

/**
 * Nothing on SQLite. On PostgreSQL, version 8 replaces the server-side `hh_index_put` so that
 * its lookup uses the recall index's unique index whatever collation its caller's arguments
 * carry (src/store/pg/schema/index-put-collation.ts); the engines count versions in step, as
 * for version 7.
 */
export const v8PgIndexPutCollation: Migration = {
  version: 8,
  name: 'pg-index-put-collation',
  up() {
    // No SQLite counterpart: the SQLite engine's index writes are its own statements.
  },
};
