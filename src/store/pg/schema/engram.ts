/**
 * The engram graph in PostgreSQL: `engram_nodes` and `engram_edges` of
 * src/store/migrations/004-knowledge.ts, translated by the rules in ./conversation.ts.
 */
export const engramSchema: readonly string[] = [
  `CREATE TABLE engram_nodes (
    scene_id    TEXT COLLATE "C" PRIMARY KEY,
    agent_id    BIGINT NOT NULL REFERENCES agents(id),
    topic_ids   TEXT NOT NULL DEFAULT '[]',
    keywords    TEXT NOT NULL DEFAULT '[]',
    importance  DOUBLE PRECISION NOT NULL DEFAULT 1.0,
    valence     DOUBLE PRECISION NOT NULL DEFAULT 0.5,
    arousal     DOUBLE PRECISION NOT NULL DEFAULT 0,
    emotion_set INTEGER NOT NULL DEFAULT 0 CHECK (emotion_set IN (0, 1)),
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    faded_at    BIGINT
  )`,
  'CREATE INDEX engram_nodes_agent ON engram_nodes(agent_id, scene_id)',
  `CREATE TABLE engram_edges (
    agent_id      BIGINT NOT NULL REFERENCES agents(id),
    a             TEXT COLLATE "C" NOT NULL,
    b             TEXT COLLATE "C" NOT NULL,
    weight        DOUBLE PRECISION NOT NULL,
    created_at    BIGINT NOT NULL,
    last_decay_at BIGINT NOT NULL,
    PRIMARY KEY (a, b),
    CHECK (a < b)
  )`,
  'CREATE INDEX engram_edges_agent ON engram_edges(agent_id)',
  'CREATE INDEX engram_edges_b ON engram_edges(b)',
];
