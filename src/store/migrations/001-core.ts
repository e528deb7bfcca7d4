import type { Migration } from './migration.js';

/** File metadata, agents (domains) and leases for background work. */
export const v1Core: Migration = {
  version: 1,
  name: 'core',
  up(db) {
    db.exec(`
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
      CREATE TABLE agents (
        id         INTEGER PRIMARY KEY,
        name       TEXT NOT NULL UNIQUE,
        is_primary INTEGER NOT NULL DEFAULT 0 CHECK (is_primary IN (0, 1)),
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE UNIQUE INDEX agents_one_primary ON agents(is_primary) WHERE is_primary = 1;
      CREATE TABLE leases (
        name       TEXT PRIMARY KEY,
        owner      TEXT NOT NULL,
        expires_at INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
