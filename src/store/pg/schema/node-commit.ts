/**
 * Migration 10 on PostgreSQL: `hh_node_commit`, a radial commit (`completeTask`, `extendTask`) as
 * one statement, so the engine sends `BEGIN`, it and `COMMIT` together (one round trip). What the
 * client used to read first (`hh_line_tip`: the next position and, for `extendTask`, the node it
 * extends) is read here, under the line's row lock. The write is keyed by the node's id, which
 * the client makes: when the line already holds that id (an earlier run of the same commit whose
 * reply was lost, or one the lock waited for), the function returns that node and writes nothing,
 * so the engine may run the commit again after any lost connection without doubling it.
 *
 * Statuses: `ok` (written), `existed` (found, nothing written), `no-line` (nothing written),
 * `taken` (the id is another line's or agent's node; nothing written). `o_extra` is the node's
 * `extra` column as written or found: `{}` or `{"extendsNodeId":…}`, the text
 * `JSON.stringify` gives (`to_json` escapes a text as it does). `hh_line_tip` stays for builds
 * of version 9 still running against a migrated memory.
 */
export const nodeCommitSchema: readonly string[] = [
  `CREATE FUNCTION hh_node_commit(p_id text, p_agent bigint, p_line text, p_extend boolean, p_label text,
     p_created bigint, p_conversation text, p_file_changes text, p_todos text, p_env text, p_history text,
     p_origin text, p_brief text, p_summary text, p_detailed text, p_state text, p_tier integer,
     p_full_bytes bigint, p_full bytea, p_parts text[], p_bodies text[], p_lens integer[], p_heavy text[])
   RETURNS TABLE (o_status text, o_seq bigint, o_line_seq bigint, o_extra text) LANGUAGE plpgsql AS $fn$
   DECLARE
     v_next bigint;
     v_found record;
     v_latest text;
     v_extra text;
   BEGIN
     SELECT l.next_seq INTO v_next FROM lines l WHERE l.agent_id = p_agent AND l.id = p_line FOR UPDATE;
     IF NOT FOUND THEN
       RETURN QUERY SELECT 'no-line'::text, NULL::bigint, NULL::bigint, NULL::text;
       RETURN;
     END IF;
     -- Statements of their own, after the lock: when it waited for another writer's commit (an
     -- earlier run of this one, say), they see that commit.
     SELECT n.seq, n.agent_id, n.line_id, n.line_seq, n.extra INTO v_found FROM nodes n WHERE n.id = p_id;
     IF FOUND THEN
       IF v_found.agent_id <> p_agent OR v_found.line_id <> p_line THEN
         RETURN QUERY SELECT 'taken'::text, NULL::bigint, NULL::bigint, NULL::text;
       ELSE
         RETURN QUERY SELECT 'existed'::text, v_found.seq, v_found.line_seq, v_found.extra;
       END IF;
       RETURN;
     END IF;
     IF p_extend THEN
       SELECT n.id INTO v_latest FROM nodes n
         WHERE n.agent_id = p_agent AND n.line_id = p_line AND n.line_seq = v_next - 1;
     END IF;
     v_extra := CASE WHEN v_latest IS NULL THEN '{}' ELSE '{"extendsNodeId":' || to_json(v_latest)::text || '}' END;
     RETURN QUERY SELECT 'ok'::text, hh_node_write(p_id, p_agent, p_line, v_next, p_label, p_created, p_conversation,
       p_file_changes, p_todos, p_env, p_history, p_origin, p_brief, p_summary, p_detailed, p_state, p_tier,
       v_extra, p_full_bytes, p_full, p_parts, p_bodies, p_lens, p_heavy), v_next, v_extra;
   END
   $fn$`,
];
