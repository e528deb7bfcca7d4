import type { Migration } from './migration.js';

/**
 * Radial memory: lines and their nodes. A node's position is derived from `line_seq`
 * (position = lines.next_seq - line_seq), so a commit never rewrites older rows.
 * `full_context` is the last column of `nodes` on purpose: SQLite stores a row's columns in
 * order, and a multi-megabyte value spills into overflow pages that every later column would
 * have to be read through.
 */
export const v2Radial: Migration = {
  version: 2,
  name: 'radial',
  up(db) {
    db.exec(`
      CREATE TABLE lines (
        agent_id    INTEGER NOT NULL REFERENCES agents(id),
        id          TEXT NOT NULL,
        name        TEXT NOT NULL,
        description TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        ord         INTEGER NOT NULL,
        next_seq    INTEGER NOT NULL DEFAULT 1 CHECK (next_seq >= 1),
        extra       TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (agent_id, id),
        UNIQUE (agent_id, ord)
      ) STRICT;
      CREATE TABLE nodes (
        seq                  INTEGER PRIMARY KEY,
        id                   TEXT NOT NULL UNIQUE,
        agent_id             INTEGER NOT NULL,
        line_id              TEXT NOT NULL,
        line_seq             INTEGER NOT NULL CHECK (line_seq >= 1),
        task_label           TEXT NOT NULL,
        created_at           INTEGER NOT NULL,
        conversation_summary TEXT NOT NULL,
        file_changes         TEXT NOT NULL DEFAULT '[]',
        todos                TEXT NOT NULL DEFAULT '[]',
        env_snapshot         TEXT NOT NULL DEFAULT '{}',
        history              TEXT NOT NULL DEFAULT '',
        s_origin             TEXT,
        s_brief              TEXT,
        s_summary            TEXT,
        s_detailed           TEXT,
        summaries_state      TEXT NOT NULL DEFAULT 'pending' CHECK (summaries_state IN ('ready', 'pending')),
        summaries_tier       INTEGER NOT NULL DEFAULT 0 CHECK (summaries_tier BETWEEN 0 AND 3),
        extra                TEXT NOT NULL DEFAULT '{}',
        full_bytes           INTEGER NOT NULL DEFAULT 0,
        full_context         TEXT NOT NULL,
        FOREIGN KEY (agent_id, line_id) REFERENCES lines(agent_id, id),
        UNIQUE (agent_id, line_id, line_seq)
      ) STRICT;
      CREATE INDEX nodes_pending ON nodes(agent_id, seq) WHERE summaries_state = 'pending';
    `);
  },
};
