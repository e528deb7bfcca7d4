import type { Migration } from './migration.js';

/**
 * Knowledge graphs (file-wide, no agent column), the per-agent engram graph of scenes, and
 * the record of Dream passes (with what each changed, so a pass can be undone).
 * Knowledge ids are deterministic hashes (see src/memory/knowledge/ids.ts); `seq` keeps
 * insertion order, which every knowledge read follows.
 */
export const v4Knowledge: Migration = {
  version: 4,
  name: 'knowledge',
  up(db) {
    db.exec(`
      CREATE TABLE kg_graphs (
        id         TEXT PRIMARY KEY,
        label      TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE kg_nodes (
        seq          INTEGER PRIMARY KEY,
        id           TEXT NOT NULL UNIQUE,
        graph_id     TEXT NOT NULL REFERENCES kg_graphs(id),
        title        TEXT NOT NULL,
        type         TEXT NOT NULL DEFAULT '',
        content      TEXT NOT NULL DEFAULT '',
        keywords     TEXT NOT NULL DEFAULT '[]',
        observations TEXT NOT NULL DEFAULT '[]',
        source_ref   TEXT,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL,
        UNIQUE (graph_id, title)
      ) STRICT;
      CREATE INDEX kg_nodes_type ON kg_nodes(graph_id, type);
      CREATE TABLE kg_edges (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        graph_id   TEXT NOT NULL REFERENCES kg_graphs(id),
        kind       TEXT NOT NULL
                   CHECK (kind IN ('related', 'causal', 'part_of', 'sequence', 'dependency', 'custom')),
        label      TEXT NOT NULL DEFAULT '',
        directed   INTEGER NOT NULL DEFAULT 0 CHECK (directed IN (0, 1)),
        members    TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX kg_edges_graph ON kg_edges(graph_id, seq);
      CREATE TABLE kg_edge_members (
        node_id TEXT NOT NULL REFERENCES kg_nodes(id),
        edge_id TEXT NOT NULL REFERENCES kg_edges(id),
        PRIMARY KEY (node_id, edge_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX kg_edge_members_edge ON kg_edge_members(edge_id);
      CREATE TABLE engram_nodes (
        scene_id    TEXT PRIMARY KEY,
        agent_id    INTEGER NOT NULL REFERENCES agents(id),
        topic_ids   TEXT NOT NULL DEFAULT '[]',
        keywords    TEXT NOT NULL DEFAULT '[]',
        importance  REAL NOT NULL DEFAULT 1.0,
        valence     REAL NOT NULL DEFAULT 0.5,
        arousal     REAL NOT NULL DEFAULT 0,
        emotion_set INTEGER NOT NULL DEFAULT 0 CHECK (emotion_set IN (0, 1)),
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        faded_at    INTEGER
      ) STRICT;
      CREATE INDEX engram_nodes_agent ON engram_nodes(agent_id, scene_id);
      CREATE TABLE engram_edges (
        agent_id      INTEGER NOT NULL REFERENCES agents(id),
        a             TEXT NOT NULL,
        b             TEXT NOT NULL,
        weight        REAL NOT NULL,
        created_at    INTEGER NOT NULL,
        last_decay_at INTEGER NOT NULL,
        PRIMARY KEY (a, b),
        CHECK (a < b)
      ) STRICT;
      CREATE INDEX engram_edges_agent ON engram_edges(agent_id);
      CREATE INDEX engram_edges_b ON engram_edges(b);
      CREATE TABLE dream_runs (
        id          TEXT PRIMARY KEY,
        agent_id    INTEGER NOT NULL REFERENCES agents(id),
        scene_id    TEXT,
        started_by  TEXT NOT NULL DEFAULT 'explicit' CHECK (started_by IN ('explicit', 'background')),
        status      TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'ok', 'partial', 'cancelled')),
        owner       TEXT NOT NULL DEFAULT '',
        started_at  INTEGER NOT NULL,
        finished_at INTEGER,
        report      TEXT NOT NULL DEFAULT '{}',
        undo        TEXT NOT NULL DEFAULT '{}',
        undone_at   INTEGER
      ) STRICT;
      CREATE INDEX dream_runs_agent ON dream_runs(agent_id, started_at);
    `);
  },
};
