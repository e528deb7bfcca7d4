import type { Migration } from './migration.js';

/**
 * Nothing on SQLite. On PostgreSQL, version 9 adds `hh_turn_open`, the turn-opening half of
 * `search` as one server-side statement (src/store/pg/schema/turn-open.ts); the engines count
 * versions in step, as for versions 7 and 8.
 */
export const v9PgTurnOpen: Migration = {
  version: 9,
  name: 'pg-turn-open',
  up() {
    // No SQLite counterpart: the SQLite engine opens a turn in-process, where a statement costs no round trip.
  },
};
