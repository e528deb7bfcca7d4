/**
 * The record of Dream passes in PostgreSQL: `dream_runs` of src/store/migrations/004-knowledge.ts,
 * translated by the rules in ./conversation.ts. SQLite orders runs that started in the same
 * millisecond by their implicit rowid (insertion order); here an identity column `seq` keeps
 * that order (the last column, so the shared columns keep SQLite's order).
 */
export const dreamSchema: readonly string[] = [
  `CREATE TABLE dream_runs (
    id          TEXT COLLATE "C" PRIMARY KEY,
    agent_id    BIGINT NOT NULL REFERENCES agents(id),
    scene_id    TEXT COLLATE "C",
    started_by  TEXT NOT NULL DEFAULT 'explicit' CHECK (started_by IN ('explicit', 'background')),
    status      TEXT NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'ok', 'partial', 'cancelled')),
    owner       TEXT NOT NULL DEFAULT '',
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    report      TEXT NOT NULL DEFAULT '{}',
    undo        TEXT NOT NULL DEFAULT '{}',
    undone_at   BIGINT,
    seq         BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE
  )`,
  'CREATE INDEX dream_runs_agent ON dream_runs(agent_id, started_at)',
];
