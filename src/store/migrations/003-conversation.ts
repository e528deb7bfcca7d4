import type { Migration } from './migration.js';

/**
 * Conversation memory: profile, scenes, turns/topics, archive records and plan trees.
 * Unlike MemHop, the open turn is a row (`topics.status = 'open'`, at most one per agent), so it
 * survives a reopen and is visible to every process on the file.
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
        current_scene_id TEXT
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
        depth          INTEGER NOT NULL DEFAULT 1 CHECK (depth >= 1),
        name           TEXT,
        keywords       TEXT NOT NULL DEFAULT '[]',
        keywords_state TEXT NOT NULL DEFAULT 'pending' CHECK (keywords_state IN ('ready', 'pending')),
        outcome        TEXT,
        user_ts        INTEGER,
        agent_ts       INTEGER,
        opened_at      INTEGER NOT NULL,
        closed_at      INTEGER,
        dream_id       TEXT,
        CHECK (status = 'closed' OR kind = 'turn'),
        CHECK ((status = 'closed') = (closed_at IS NOT NULL))
      ) STRICT;
      CREATE INDEX topics_scene ON topics(scene_id, depth, user_ts);
      CREATE INDEX topics_parent ON topics(parent_id) WHERE parent_id IS NOT NULL;
      CREATE INDEX topics_pending ON topics(agent_id, keywords_state) WHERE keywords_state = 'pending';
      CREATE UNIQUE INDEX topics_one_open ON topics(agent_id) WHERE status = 'open';
      CREATE TABLE archive (
        id           INTEGER PRIMARY KEY,
        agent_id     INTEGER NOT NULL REFERENCES agents(id),
        topic_id     TEXT NOT NULL REFERENCES topics(id),
        seq          INTEGER NOT NULL CHECK (seq >= 1),
        kind         TEXT NOT NULL CHECK (kind IN ('utterance', 'event')),
        role         TEXT CHECK (role IN ('user', 'agent', 'system', 'dream')),
        speaker      TEXT,
        content_type TEXT NOT NULL DEFAULT 'text'
                     CHECK (content_type IN ('text', 'image', 'video', 'document', 'audio', 'code', 'other')),
        event_type   TEXT,
        plan_step    INTEGER,
        content      TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        UNIQUE (topic_id, seq),
        CHECK ((kind = 'utterance') = (role IS NOT NULL)),
        CHECK ((kind = 'event') = (event_type IS NOT NULL)),
        CHECK (kind = 'event' OR plan_step IS NULL)
      ) STRICT;
      CREATE INDEX archive_time ON archive(agent_id, created_at);
      CREATE INDEX archive_plan_step ON archive(topic_id, plan_step) WHERE plan_step IS NOT NULL;
      CREATE TABLE plan_nodes (
        topic_id       TEXT NOT NULL REFERENCES topics(id),
        seq            INTEGER NOT NULL CHECK (seq >= 1),
        agent_id       INTEGER NOT NULL REFERENCES agents(id),
        parent_seq     INTEGER NOT NULL DEFAULT 0 CHECK (parent_seq >= 0),
        status         TEXT NOT NULL CHECK (status IN ('in_progress', 'done', 'failed')),
        title          TEXT NOT NULL DEFAULT '',
        summary        TEXT NOT NULL DEFAULT '',
        summary_folded INTEGER NOT NULL DEFAULT 0 CHECK (summary_folded IN (0, 1)),
        created_at     INTEGER NOT NULL,
        finished_at    INTEGER,
        updated_at     INTEGER NOT NULL,
        PRIMARY KEY (topic_id, seq)
      ) STRICT;
      CREATE INDEX plan_nodes_updated ON plan_nodes(agent_id, updated_at);
    `);
  },
};
