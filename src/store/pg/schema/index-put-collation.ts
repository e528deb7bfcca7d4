/**
 * Migration 8 on PostgreSQL: `hh_index_put` (migration 7) finds an existing index row through
 * the `(layer, ref, part)` unique index whatever the collation of its caller's arguments.
 * PL/pgSQL gives a function's text parameters the collation of the call's arguments, and
 * `hh_archive_write` passes the turn's and scene's ids, which are `COLLATE "C"` (topics,
 * scenes), while `search_docs`' columns have the database's default collation: compared under
 * "C", the unique index (built under the default) could not be used, and each archive record
 * written scanned the whole index table (a 5,000-record `appendArchiveMany` on a memory of
 * 10,000 rows took 30 s and hit the statement bound). Comparing under the columns' own
 * collation uses the index. Same rows, same locks, same result as migration 7's function.
 */
export const indexPutCollationSchema: readonly string[] = [
  `CREATE OR REPLACE FUNCTION hh_index_put(p_agent bigint, p_layer text, p_ref text, p_part text, p_line text,
     p_scene text, p_topic text, p_created bigint, p_body tsvector, p_len integer, p_heavy jsonb)
   RETURNS bigint LANGUAGE plpgsql AS $fn$
   DECLARE
     v_found record;
     v_rowid bigint;
   BEGIN
     LOOP
       SELECT d.rowid, d.embed_state INTO v_found FROM search_docs d
         WHERE d.layer = p_layer COLLATE "default" AND d.ref = p_ref COLLATE "default"
           AND d.part = p_part COLLATE "default"
         FOR UPDATE;
       IF FOUND THEN
         IF v_found.embed_state = 'ready' THEN
           DELETE FROM search_vec v WHERE v.rowid = v_found.rowid;
         END IF;
         UPDATE search_docs d SET agent_id = p_agent, line_id = p_line, scene_id = p_scene, topic_id = p_topic,
             created_at = p_created,
             embed_state = CASE d.embed_state WHEN 'none' THEN 'none' ELSE 'pending' END,
             body = p_body, body_len = p_len, heavy = p_heavy
           WHERE d.rowid = v_found.rowid;
         v_rowid := v_found.rowid;
         EXIT;
       END IF;
       INSERT INTO search_docs AS d (agent_id, layer, ref, part, line_id, scene_id, topic_id, created_at,
           embed_state, body, body_len, heavy)
         VALUES (p_agent, p_layer, p_ref, p_part, p_line, p_scene, p_topic, p_created,
           CASE WHEN EXISTS (SELECT 1 FROM meta m WHERE m.key = 'embedder.model') THEN 'pending' ELSE 'none' END,
           p_body, p_len, p_heavy)
         ON CONFLICT (layer, ref, part) DO NOTHING
         RETURNING d.rowid INTO v_rowid;
       EXIT WHEN v_rowid IS NOT NULL;
     END LOOP;
     INSERT INTO search_totals AS t (shard, docs, tokens) VALUES (pg_backend_pid() % 64, 1, p_len)
       ON CONFLICT (shard) DO UPDATE SET docs = t.docs + excluded.docs, tokens = t.tokens + excluded.tokens;
     RETURN v_rowid;
   END
   $fn$`,
];
