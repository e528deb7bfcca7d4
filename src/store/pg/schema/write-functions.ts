/**
 * Server-side functions that make a public write one statement on PostgreSQL (migration 7):
 * each does in one round trip what the repositories used to send as several (lock, read the
 * open turn, find the next slot, write the row, write its index row, count it), with the same
 * locks and the same rows as before. They live in each memory's schema, beside its tables, and
 * name those tables unqualified: the engine's `SET LOCAL search_path` points them at the
 * memory they are called for. Everything the SQLite engine computes in TypeScript (index texts,
 * their lexemes, CJK segmentation, term counts) is still computed there and passed in; the
 * functions only store. Refusals whose message TypeScript words (no open turn, a step that is
 * not in the plan, a line that does not exist) come back as a status, not an exception, so the
 * messages stay the ones the SQLite engine gives.
 */
export const writeFunctionsSchema: readonly string[] = [
  // One recall-index row inserted or replaced, counted in search_totals as FTS5 counts it (every
  // insert, a replacement too, adds its tokens); a replaced row's vector is dropped (it is stale).
  // A concurrent insert of the same (layer, ref, part) is waited for by ON CONFLICT, then updated.
  `CREATE FUNCTION hh_index_put(p_agent bigint, p_layer text, p_ref text, p_part text, p_line text,
     p_scene text, p_topic text, p_created bigint, p_body tsvector, p_len integer, p_heavy jsonb)
   RETURNS bigint LANGUAGE plpgsql AS $fn$
   DECLARE
     v_found record;
     v_rowid bigint;
   BEGIN
     LOOP
       SELECT d.rowid, d.embed_state INTO v_found FROM search_docs d
         WHERE d.layer = p_layer AND d.ref = p_ref AND d.part = p_part FOR UPDATE;
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
  // Archive records written into a turn: p_topic names it (the caller holds the agent's lock),
  // or, when null, the agent's lock is taken here and its open turn read (status 'no-turn'
  // when there is none) and every plan step checked against the turn's plan (status
  // 'bad-step' with the index of the first record naming a step the plan lacks). A record
  // without a seq takes the next slot (3 at the least: 1 and 2 are the turn's user and agent
  // messages); one with a seq replaces what is there. Index rows are written when p_bodies is
  // given (else the caller writes them through its own index). A plan step is checked whatever the
  // record's kind (as SQLite checks it) and stored on events only. One row per record, in order.
  `CREATE FUNCTION hh_archive_write(p_agent bigint, p_topic text, p_seqs integer[], p_kinds text[],
     p_roles text[], p_speakers text[], p_content_types text[], p_event_types text[], p_plan_steps integer[],
     p_contents text[], p_created bigint[], p_bodies text[], p_lens integer[], p_heavy text[])
   RETURNS TABLE (o_status text, o_index integer, o_id bigint, o_topic text, o_seq integer, o_agent bigint,
     o_scene text)
   LANGUAGE plpgsql AS $fn$
   DECLARE
     v_turn record;
     v_highest integer;
     v_seq integer;
     v_id bigint;
     v_n integer := coalesce(array_length(p_kinds, 1), 0);
   BEGIN
     IF p_topic IS NULL THEN
       PERFORM pg_advisory_xact_lock(hashtextextended('hedgehop.agent:' || current_schema() || ':' || p_agent::text, 0));
       SELECT t.id, t.agent_id, t.scene_id INTO v_turn FROM topics t WHERE t.agent_id = p_agent AND t.status = 'open';
       IF NOT FOUND THEN
         RETURN QUERY SELECT 'no-turn'::text, NULL::integer, NULL::bigint, NULL::text, NULL::integer, NULL::bigint,
           NULL::text;
         RETURN;
       END IF;
       FOR i IN 1 .. v_n LOOP
         IF p_plan_steps[i] IS NOT NULL AND NOT EXISTS (
             SELECT 1 FROM plan_nodes p WHERE p.topic_id = v_turn.id AND p.seq = p_plan_steps[i]) THEN
           RETURN QUERY SELECT 'bad-step'::text, i - 1, NULL::bigint, NULL::text, NULL::integer, NULL::bigint,
             NULL::text;
           RETURN;
         END IF;
       END LOOP;
     ELSE
       SELECT t.id, t.agent_id, t.scene_id INTO STRICT v_turn FROM topics t WHERE t.id = p_topic;
     END IF;
     SELECT coalesce(max(a.seq), 0) INTO v_highest FROM archive a WHERE a.topic_id = v_turn.id;
     FOR i IN 1 .. v_n LOOP
       v_seq := coalesce(p_seqs[i], greatest(v_highest, 2) + 1);
       v_highest := greatest(v_highest, v_seq);
       -- Replace first, insert only when the slot is free: INSERT … ON CONFLICT would take an id
       -- from the sequence even when it updates, and ids would drift from SQLite's.
       UPDATE archive a SET kind = p_kinds[i], role = p_roles[i], speaker = p_speakers[i],
           content_type = p_content_types[i], event_type = p_event_types[i],
           plan_step = CASE WHEN p_kinds[i] = 'event' THEN p_plan_steps[i] END,
           content = p_contents[i], created_at = p_created[i]
         WHERE a.topic_id = v_turn.id AND a.seq = v_seq RETURNING a.id INTO v_id;
       IF NOT FOUND THEN
         INSERT INTO archive AS a (topic_id, seq, kind, role, speaker, content_type, event_type, plan_step,
             content, created_at, agent_id)
           VALUES (v_turn.id, v_seq, p_kinds[i], p_roles[i], p_speakers[i], p_content_types[i], p_event_types[i],
             CASE WHEN p_kinds[i] = 'event' THEN p_plan_steps[i] END, p_contents[i], p_created[i], v_turn.agent_id)
           RETURNING a.id INTO v_id;
       END IF;
       IF p_bodies IS NOT NULL THEN
         PERFORM hh_index_put(v_turn.agent_id, 'archive', v_id::text, '', NULL, v_turn.scene_id, v_turn.id,
           p_created[i], p_bodies[i]::tsvector, p_lens[i], p_heavy[i]::jsonb);
       END IF;
       RETURN QUERY SELECT 'ok'::text, i - 1, v_id, v_turn.id::text, v_seq, v_turn.agent_id::bigint,
         v_turn.scene_id::text;
     END LOOP;
   END
   $fn$`,
  // A radial node inserted at line_seq p_line_seq (the caller holds the line's row lock and
  // read its tip), the line advanced past it, and the node's index rows written (parts with
  // an empty text are skipped). Returns the node's seq.
  `CREATE FUNCTION hh_node_write(p_id text, p_agent bigint, p_line text, p_line_seq bigint, p_label text,
     p_created bigint, p_conversation text, p_file_changes text, p_todos text, p_env text, p_history text,
     p_origin text, p_brief text, p_summary text, p_detailed text, p_state text, p_tier integer, p_extra text,
     p_full_bytes bigint, p_full bytea, p_parts text[], p_bodies text[], p_lens integer[], p_heavy text[])
   RETURNS bigint LANGUAGE plpgsql AS $fn$
   DECLARE
     v_seq bigint;
   BEGIN
     INSERT INTO nodes AS n (id, agent_id, line_id, line_seq, task_label, created_at, conversation_summary,
         file_changes, todos, env_snapshot, history, s_origin, s_brief, s_summary, s_detailed,
         summaries_state, summaries_tier, extra, full_bytes, full_context)
       VALUES (p_id, p_agent, p_line, p_line_seq, p_label, p_created, p_conversation, p_file_changes, p_todos,
         p_env, p_history, p_origin, p_brief, p_summary, p_detailed, p_state, p_tier, p_extra, p_full_bytes, p_full)
       RETURNING n.seq INTO v_seq;
     UPDATE lines l SET next_seq = p_line_seq + 1 WHERE l.agent_id = p_agent AND l.id = p_line;
     FOR i IN 1 .. coalesce(array_length(p_parts, 1), 0) LOOP
       PERFORM hh_index_put(p_agent, 'radial', p_id, p_parts[i], p_line, NULL, NULL, p_created,
         p_bodies[i]::tsvector, p_lens[i], p_heavy[i]::jsonb);
     END LOOP;
     RETURN v_seq;
   END
   $fn$`,
  // A line's tip for a new node: its row locked (until commit) and then, in a statement of its
  // own, its newest node read. One SELECT cannot do both: when the lock waited for another
  // writer's commit, the row it locks is the new version but a join in the same statement still
  // sees the snapshot from before the wait (it would miss the node just committed).
  `CREATE FUNCTION hh_line_tip(p_agent bigint, p_line text)
   RETURNS TABLE (o_next_seq bigint, o_latest_id text) LANGUAGE plpgsql AS $fn$
   DECLARE
     v_next bigint;
   BEGIN
     SELECT l.next_seq INTO v_next FROM lines l WHERE l.agent_id = p_agent AND l.id = p_line FOR UPDATE;
     IF NOT FOUND THEN
       RETURN;
     END IF;
     RETURN QUERY SELECT v_next, (SELECT n.id::text FROM nodes n
       WHERE n.agent_id = p_agent AND n.line_id = p_line AND n.line_seq = v_next - 1);
   END
   $fn$`,
];
