import type { Migration } from './migration.js';

/**
 * Nothing on SQLite. On PostgreSQL, version 10 adds `hh_node_commit`, a radial commit as one
 * statement keyed by the node's id, so it is sent with its BEGIN and COMMIT in one round trip
 * and can be run again safely after a lost connection (src/store/pg/schema/node-commit.ts); the
 * engines count versions in step, as for versions 7 to 9.
 */
export const v10PgNodeCommit: Migration = {
  version: 10,
  name: 'pg-node-commit',
  up() {
    // No SQLite counterpart: a SQLite commit is in-process, with no reply to lose.
  },
};
