/**
 * Migration 9 on PostgreSQL: `hh_turn_open`, the turn-opening half of `search` in one statement
 * (it was about ten, one round trip each). Under the agent's advisory lock, as before, it reads
 * the open turn and resumes it, or resolves the scene (named, current, or created) and opens a
 * turn on it, and makes the scene current: the rules of src/store/scenes-repo.ts's `openTurn`,
 * in the same order. Refusals come back as a status and write nothing (TypeScript words them as
 * the SQLite engine does): 'conflict' (a turn is open and the request names a new or another
 * scene), 'creation-fields' (a name or an anchor for a scene that is not being created),
 * 'no-scene', 'no-graph'. Otherwise 'resumed' or 'opened', and whether a scene was created; the
 * caller reads the rows (the open turn, its scene and the scene's surface) in statements sent
 * behind this one.
 */
export const turnOpenSchema: readonly string[] = [
  `CREATE OR REPLACE FUNCTION hh_turn_open(p_agent bigint, p_scene text, p_new_scene boolean, p_knowledge text,
     p_scene_name text, p_now bigint, p_new_scene_id text, p_new_topic_id text)
   RETURNS TABLE (o_status text, o_created boolean) LANGUAGE plpgsql AS $fn$
   DECLARE
     v_open record;
     v_has_open boolean;
     v_scene text;
     v_seq integer;
     v_created boolean := false;
     v_naming boolean := p_knowledge IS NOT NULL OR p_scene_name IS NOT NULL;
   BEGIN
     PERFORM pg_advisory_xact_lock(hashtextextended('hedgehop.agent:' || current_schema() || ':' || p_agent::text, 0));
     SELECT t.id, t.scene_id INTO v_open FROM topics t WHERE t.agent_id = p_agent AND t.status = 'open';
     v_has_open := FOUND;
     IF v_has_open THEN
       IF p_new_scene OR (p_scene IS NOT NULL AND p_scene <> v_open.scene_id) THEN
         RETURN QUERY SELECT 'conflict'::text, false;
         RETURN;
       END IF;
       IF v_naming THEN
         RETURN QUERY SELECT 'creation-fields'::text, false;
         RETURN;
       END IF;
       -- A resumed turn writes nothing unless the current scene is another (a merge moved the turn).
       IF hh_current_scene(p_agent) IS DISTINCT FROM v_open.scene_id THEN
         INSERT INTO agent_state AS a (agent_id, current_scene_id) VALUES (p_agent, v_open.scene_id)
           ON CONFLICT (agent_id) DO UPDATE SET current_scene_id = excluded.current_scene_id;
       END IF;
       RETURN QUERY SELECT 'resumed'::text, false;
       RETURN;
     END IF;
     IF p_scene IS NOT NULL THEN
       IF v_naming THEN
         RETURN QUERY SELECT 'creation-fields'::text, false;
         RETURN;
       END IF;
       SELECT s.id INTO v_scene FROM scenes s WHERE s.id = p_scene AND s.agent_id = p_agent;
       IF NOT FOUND THEN
         RETURN QUERY SELECT 'no-scene'::text, false;
         RETURN;
       END IF;
     ELSIF NOT p_new_scene THEN
       v_scene := hh_current_scene(p_agent);
       IF v_scene IS NOT NULL AND v_naming THEN
         RETURN QUERY SELECT 'creation-fields'::text, false;
         RETURN;
       END IF;
     END IF;
     IF v_scene IS NULL THEN
       IF p_knowledge IS NOT NULL AND NOT EXISTS (SELECT 1 FROM kg_graphs g WHERE g.id = p_knowledge) THEN
         RETURN QUERY SELECT 'no-graph'::text, false;
         RETURN;
       END IF;
       INSERT INTO scenes (id, agent_id, name, knowledge_id, turn_seq, created_at, last_used_at)
         VALUES (p_new_scene_id, p_agent, coalesce(p_scene_name, 'session:' || p_new_scene_id), p_knowledge, 0,
           p_now, p_now);
       v_scene := p_new_scene_id;
       v_created := true;
     END IF;
     UPDATE scenes s SET turn_seq = s.turn_seq + 1, last_used_at = GREATEST(p_now, s.last_used_at)
       WHERE s.id = v_scene RETURNING s.turn_seq INTO v_seq;
     INSERT INTO topics (id, agent_id, scene_id, turn_seq, kind, status, depth, opened_at)
       VALUES (p_new_topic_id, p_agent, v_scene, v_seq, 'turn', 'open', 1, p_now);
     INSERT INTO agent_state AS a (agent_id, current_scene_id) VALUES (p_agent, v_scene)
       ON CONFLICT (agent_id) DO UPDATE SET current_scene_id = excluded.current_scene_id;
     RETURN QUERY SELECT 'opened'::text, v_created;
   END
   $fn$`,
  // The agent's current scene: the one its last search used, or after that scene is gone, the
  // most recently used (ties: more turns, then the smaller id); NULL when it has none.
  `CREATE OR REPLACE FUNCTION hh_current_scene(p_agent bigint) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
   DECLARE
     v_scene text;
   BEGIN
     SELECT s.id INTO v_scene FROM agent_state a JOIN scenes s ON s.id = a.current_scene_id AND s.agent_id = a.agent_id
       WHERE a.agent_id = p_agent;
     IF FOUND THEN
       RETURN v_scene;
     END IF;
     SELECT s.id INTO v_scene FROM scenes s WHERE s.agent_id = p_agent
       ORDER BY s.last_used_at DESC, s.turn_seq DESC, s.id LIMIT 1;
     RETURN v_scene;
   END
   $fn$`,
];
