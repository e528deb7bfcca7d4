import type { Migration } from './migration.js';

/**
 * Nothing on SQLite. On PostgreSQL, version 7 adds the server-side write functions
 * (src/store/pg/schema/write-functions.ts) that make a public write one statement; the two
 * engines count versions in step (a dump's `schemaVersion` means the same on both), so SQLite
 * takes the number too, with no change to the file's tables.
 */
export const v7PgWriteFunctions: Migration = {
  version: 7,
  name: 'pg-write-functions',
  up() {
    // No SQLite counterpart: the SQLite engine writes in-process, one call per statement is free.
  },
};
