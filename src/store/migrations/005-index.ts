import type { Migration } from './migration.js';

/**
 * The recall index: one row per indexed text in `search_docs` (its provenance only: the text
 * itself is read back from the verbatim tables), and a contentless FTS5 table over the same
 * rowids. Index text is derived and can always be rebuilt from the verbatim tables. Vectors
 * (sqlite-vec) live in a table created when an embedder is first configured, because its
 * dimension is known only then. `search_vocab` exposes each indexed term's document count (for
 * query-word weights and calibrated confidence).
 */
export const v5Index: Migration = {
  version: 5,
  name: 'index',
  up(db) {
    db.exec(`
      CREATE TABLE search_docs (
        rowid       INTEGER PRIMARY KEY,
        agent_id    INTEGER,
        layer       TEXT NOT NULL,
        ref         TEXT NOT NULL,
        part        TEXT NOT NULL DEFAULT '',
        line_id     TEXT,
        scene_id    TEXT,
        topic_id    TEXT,
        created_at  INTEGER NOT NULL,
        embed_state TEXT NOT NULL DEFAULT 'none' CHECK (embed_state IN ('none', 'pending', 'ready')),
        UNIQUE (layer, ref, part)
      ) STRICT;
      CREATE INDEX search_docs_agent ON search_docs(agent_id, layer, created_at);
      CREATE INDEX search_docs_scene ON search_docs(scene_id) WHERE scene_id IS NOT NULL;
      CREATE INDEX search_docs_topic ON search_docs(topic_id) WHERE topic_id IS NOT NULL;
      CREATE INDEX search_docs_pending ON search_docs(embed_state) WHERE embed_state = 'pending';
      CREATE VIRTUAL TABLE search_fts USING fts5(
        body,
        content = '',
        contentless_delete = 1,
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE VIRTUAL TABLE search_vocab USING fts5vocab(search_fts, 'row');
    `);
  },
};
