/**
 * Migration 6 on PostgreSQL (SQLite: src/store/migrations/006-knowledge-search.ts): indexes
 * for the knowledge substring search. A pg_trgm GIN index over exactly the expression
 * `scanNodes` filters with (the node's text folded as SQLite folds it, ASCII only), so its
 * `LIKE '%needle%'` is read from the index instead of every row; and a partial index of the
 * rare rows holding U+0130 or U+212A (the characters whose JavaScript lower case is ASCII),
 * so the arms of the filter that look for them need no scan either. pg_trgm is created when
 * the server offers it (a trusted extension since PostgreSQL 13); without it the search
 * stays correct and scans, as before.
 */
const NODE_TEXT =
  '(title || chr(10) || type || chr(10) || content || chr(10) || keywords || chr(10) || observations)';

export const knowledgeSearchSchema: readonly string[] = [
  `DO $$
   BEGIN
     CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
   EXCEPTION WHEN OTHERS THEN
     RAISE NOTICE 'pg_trgm is not available: knowledge search scans';
   END $$`,
  `DO $$
   DECLARE
     home text;
   BEGIN
     SELECT n.nspname INTO home FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pg_trgm';
     IF home IS NOT NULL THEN
       EXECUTE format(
         'CREATE INDEX kg_nodes_text_trgm ON kg_nodes USING gin ((lower(${NODE_TEXT} COLLATE "C")) %I.gin_trgm_ops)',
         home);
     END IF;
   END $$`,
  `CREATE INDEX kg_nodes_dotted_i ON kg_nodes (seq) WHERE strpos(${NODE_TEXT}, chr(304)) > 0`,
  `CREATE INDEX kg_nodes_kelvin ON kg_nodes (seq) WHERE strpos(${NODE_TEXT}, chr(8490)) > 0`,
];
