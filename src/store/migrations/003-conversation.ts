import type { Migration } from './index.js';

/**
 * Conversation memory: profile, scenes, turns/topics, archive records and plan trees.
 * Unlike MemHop, the open turn is a row (`topics.status = 'open'`), so it survives a reopen
 * and is visible to every process on the file.
 */
export const v3Conversation: Migration = {
  version: 3,
  name: 'conversation',
  up(db) {
    db.exec(`
      CREATE TABLE profiles (
        agent_id    INTEGER PRIMARY KEY REFERENCES agents(id),
        name        TEXT NOT NULL DEFAULT '',
        role        TEXT NOT NULL DEFAULT '',
        personality TEXT NOT NULL DEFAULT '',
        preferences TEXT NOT NULL DEFAULT '{}',
        emotion     TEXT NOT NULL DEFAULT '{"valence":0,"arousal":0,"dominance":0}',
        mbti        TEXT NOT NULL DEFAULT '{"i_e":0,"n_s":0,"t_f":0,"j_p":0}',
        updated_at  INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE agent_state (
        agent_id         INTEGER PRIMARY KEY REFERENCES agents(id),
        current_scene_id TEXT,
        open_turn_id     TEXT
      ) STRICT;
      CREATE TABLE scenes (
        id           TEXT PRIMARY KEY,
        agent_id     INTEGER NOT NULL REFERENCES agents(id),
        name         TEXT NOT NULL,
        knowledge_id TEXT,
        turn_seq     INTEGER NOT NULL DEFAULT 0,
        created_at   INTEGER NOT NULL,
        last_used_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX scenes_agent ON scenes(agent_id, last_used_at);
      CREATE TABLE topics (
        id             TEXT PRIMARY KEY,
        agent_id       INTEGER NOT NULL REFERENCES agents(id),
        scene_id       TEXT NOT NULL REFERENCES scenes(id),
        turn_seq       INTEGER,
        kind           TEXT NOT NULL CHECK (kind IN ('turn', 'fused')),
        status         TEXT NOT NULL CHECK (status IN ('open', 'closed')),
        parent_id      TEXT REFERENCES topics(id),
        depth          INTEGER NOT NULL DEFAULT 1,
        name           TEXT,
        keywords       TEXT NOT NULL DEFAULT '[]',
        keywords_state TEXT NOT NULL DEFAULT 'pending' CHECK (keywords_state IN ('ready', 'pending')),
        outcome        TEXT,
        user_ts        INTEGER,
        agent_ts       INTEGER,
        opened_at      INTEGER NOT NULL,
        closed_at      INTEGER,
        dream_id       TEXT
      ) STRICT;
      CREATE INDEX topics_scene ON topics(scene_id, depth, user_ts);
      CREATE INDEX topics_parent ON topics(parent_id) WHERE parent_id IS NOT NULL;
      CREATE INDEX topics_pending ON topics(keywords_state) WHERE keywords_state = 'pending';
      CREATE TABLE archive (
        id           INTEGER PRIMARY KEY,
        agent_id     INTEGER NOT NULL REFERENCES agents(id),
        topic_id     TEXT NOT NULL REFERENCES topics(id),
        seq          INTEGER NOT NULL,
        kind         TEXT NOT NULL CHECK (kind IN ('utterance', 'event')),
        role         TEXT CHECK (role IN ('user', 'agent', 'system', 'dream')),
        content_type TEXT NOT NULL DEFAULT 'text',
        event_type   TEXT,
        plan_step    INTEGER,
        content      TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        UNIQUE (topic_id, seq)
      ) STRICT;
      CREATE INDEX archive_time ON archive(agent_id, created_at);
      CREATE TABLE plan_nodes (
        topic_id       TEXT NOT NULL REFERENCES topics(id),
        seq            INTEGER NOT NULL,
        agent_id       INTEGER NOT NULL REFERENCES agents(id),
        parent_seq     INTEGER NOT NULL DEFAULT 0,
        status         TEXT NOT NULL CHECK (status IN ('in_progress', 'done', 'failed')),
        title          TEXT NOT NULL DEFAULT '',
        summary        TEXT NOT NULL DEFAULT '',
        summary_folded INTEGER NOT NULL DEFAULT 0,
        created_at     INTEGER NOT NULL,
        finished_at    INTEGER,
        updated_at     INTEGER NOT NULL,
        PRIMARY KEY (topic_id, seq)
      ) STRICT;
    `);
  },
};
