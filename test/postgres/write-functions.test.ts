import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/api/memory-db.js';
import { HedgehopError } from '../../src/core/errors.js';
import { freshPgUrl, pgAdmin, PG_SKIP_REASON, PG_TEST_URL } from '../helpers/pg-memory.js';
import { PG_SCHEMA_VERSION } from '../../src/store/pg/migrations.js';
import { parsePgUrl } from '../../src/store/pg/pg-url.js';

async function refusal(promise: PromiseLike<unknown>): Promise<HedgehopError> {
  try {
    await promise;
  } catch (error) {
    if (HedgehopError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a HedgehopError');
}

const FUNCTIONS = ['hh_index_put', 'hh_archive_write', 'hh_line_tip', 'hh_node_write'];
/** Migration 9's functions. */
const TURN_FUNCTIONS = ['hh_turn_open', 'hh_current_scene'];
/** Migration 10's function. */
const COMMIT_FUNCTIONS = ['hh_node_commit'];

describe.skipIf(!PG_TEST_URL)(
  `PostgreSQL write functions (migration 7)${PG_SKIP_REASON ? ` (${PG_SKIP_REASON})` : ''}`,
  () => {
    it('are added to a memory written at version 6, which then goes on writing where it was', async () => {
      const url = freshPgUrl();
      const schema = parsePgUrl(url).schema;
      const first = await openMemory(url, { dream: { auto: false } });
      const agent = first.primary();
      await agent.search({ newScene: true });
      const before = await agent.appendArchive({
        kind: 'utterance',
        role: 'user',
        content: 'walrus one',
        createdAt: 1,
      });
      await agent.radial.createLine('l', 'L', 'line');
      await agent.radial.completeTask({
        lineId: 'l',
        taskLabel: 'first',
        fullContext: 'x',
        conversationSummary: 'y',
      });
      await first.close();
      // The memory as version 6 left it: no functions, version 6.
      for (const name of [...COMMIT_FUNCTIONS, ...FUNCTIONS, ...TURN_FUNCTIONS])
        await pgAdmin(`DROP FUNCTION "${schema}".${name}`);
      await pgAdmin(`UPDATE "${schema}".hedgehop_schema SET version = 6`);

      const db = await openMemory(url, { dream: { auto: false } });
      expect((await db.stats()).schemaVersion).toBe(PG_SCHEMA_VERSION);
      const found = await pgAdmin<{ name: string }>(
        `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = $1 AND p.proname LIKE 'hh\\_%' ORDER BY 1`,
        [schema],
      );
      expect(found.map((row) => row.name)).toEqual(
        [...FUNCTIONS, ...TURN_FUNCTIONS, ...COMMIT_FUNCTIONS].sort(),
      );
      const again = db.primary();
      const next = await again.appendArchive({
        kind: 'utterance',
        role: 'user',
        content: 'walrus two',
        createdAt: 2,
      });
      expect(next).toEqual({
        id: String(Number(before.id) + 1),
        topicId: before.topicId,
        seq: before.seq + 1,
      });
      const node = await again.radial.completeTask({
        lineId: 'l',
        taskLabel: 'second',
        fullContext: 'x',
        conversationSummary: 'y',
      });
      expect((await again.radial.getLineHistory('l')).map((entry) => entry.taskLabel)).toEqual([
        'second',
        'first',
      ]);
      expect(node.taskLabel).toBe('second');
      const hits = await again.searchArchive({ text: 'walrus' });
      expect(hits.map((hit) => hit.content).sort()).toEqual(['walrus one', 'walrus two']);
      await db.close();
    });

    it('open turns through hh_turn_open once a memory written at version 8 migrates (migration 9), carrying on its scene', async () => {
      const url = freshPgUrl();
      const schema = parsePgUrl(url).schema;
      const first = await openMemory(url, { dream: { auto: false } });
      const opened = await first.primary().search({ newScene: true, sceneName: 'kept' });
      await first.primary().update({ input: 'walrus one', output: 'noted', createdAt: 1 });
      await first.close();
      // The memory as version 8 left it: no turn-opening or commit functions, version 8.
      for (const name of [...TURN_FUNCTIONS, ...COMMIT_FUNCTIONS])
        await pgAdmin(`DROP FUNCTION "${schema}".${name}`);
      await pgAdmin(`UPDATE "${schema}".hedgehop_schema SET version = 8`);

      const db = await openMemory(url, { dream: { auto: false } });
      expect((await db.stats()).schemaVersion).toBe(PG_SCHEMA_VERSION);
      const agent = db.primary();
      const next = await agent.search();
      expect(next.resumed).toBe(false);
      expect(next.sceneCreated).toBe(false);
      expect(next.scene).toMatchObject({ id: opened.scene.id, name: 'kept', turnSeq: 2 });
      expect(next.topics.map((topic) => topic.id)).toEqual([opened.turnId]);
      // A second search resumes the open turn; asking for a new scene meanwhile is refused.
      expect((await agent.search()).turnId).toBe(next.turnId);
      const conflict = await refusal(agent.search({ newScene: true }));
      expect(conflict.code).toBe('CONFLICT');
      await agent.update({ input: 'walrus two', output: 'noted', createdAt: 2 });
      const hits = await agent.searchArchive({ text: 'walrus' });
      expect(hits.map((hit) => hit.content).sort()).toEqual(['walrus one', 'walrus two']);
      await db.close();
    });

    it('commit radial tasks through hh_node_commit once a memory written at version 9 migrates (migration 10)', async () => {
      const url = freshPgUrl();
      const schema = parsePgUrl(url).schema;
      const first = await openMemory(url, { dream: { auto: false } });
      await first.primary().radial.createLine('l', 'L', 'line');
      const older = await first.primary().radial.completeTask({
        lineId: 'l',
        taskLabel: 'walrus first',
        fullContext: 'x',
        conversationSummary: 'y',
      });
      await first.close();
      // The memory as version 9 left it: no hh_node_commit, version 9.
      for (const name of COMMIT_FUNCTIONS) await pgAdmin(`DROP FUNCTION "${schema}".${name}`);
      await pgAdmin(`UPDATE "${schema}".hedgehop_schema SET version = 9`);

      const db = await openMemory(url, { dream: { auto: false } });
      expect((await db.stats()).schemaVersion).toBe(PG_SCHEMA_VERSION);
      const radial = db.primary().radial;
      const node = await radial.extendTask({
        lineId: 'l',
        taskLabel: 'walrus second',
        fullContext: 'x',
        conversationSummary: 'y',
      });
      expect(node.extendsNodeId).toBe(older.id);
      expect((await radial.getLineHistory('l')).map((entry) => [entry.position, entry.taskLabel])).toEqual([
        [1, 'walrus second'],
        [2, 'walrus first'],
      ]);
      expect((await radial.getNode('l', 1))?.extendsNodeId).toBe(older.id);
      expect((await radial.navigate('walrus second'))?.node.id).toBe(node.id);
      await db.close();
    });

    it("find an archive record's index row through the unique index, not by reading the whole index table (migration 8)", async () => {
      const url = freshPgUrl();
      const schema = parsePgUrl(url).schema;
      const db = await openMemory(url, { dream: { auto: false } });
      const agent = db.primary();
      await agent.search({ newScene: true });
      const written = await agent.appendArchive({
        kind: 'utterance',
        role: 'user',
        content: 'one',
        createdAt: 1,
      });
      await db.close();
      const client = new pg.Client({
        connectionString: (PG_TEST_URL as string).replace(/([?&])memory=[^&]*&?/, '$1'),
      });
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query(`SET LOCAL search_path TO "${schema}"`);
        // With sequential scans priced out, one is still taken only where no index can serve.
        await client.query('SET LOCAL enable_seqscan = off');
        // The topic id carries its column's collation ("C") into the call, as appendArchive's does.
        const { rows } = await client.query<{ o_status: string }>(
          `SELECT w.o_status FROM topics t, hh_archive_write(t.agent_id, t.id, NULL, ARRAY['utterance'], ARRAY['user'],
             ARRAY[NULL::text], ARRAY['text'], ARRAY[NULL::text], ARRAY[NULL::int], ARRAY['two'], ARRAY[2::bigint],
             ARRAY['''two'''], ARRAY[1], ARRAY[NULL::text]) w WHERE t.id = $1`,
          [written.topicId],
        );
        expect(rows.map((row) => row.o_status)).toEqual(['ok']);
        const scans = await client.query<{ seq_scan: number; idx_scan: number }>(
          "SELECT seq_scan::int, idx_scan::int FROM pg_stat_xact_user_tables WHERE relid = 'search_docs'::regclass",
        );
        expect(scans.rows[0]?.seq_scan).toBe(0);
        expect(scans.rows[0]?.idx_scan).toBeGreaterThan(0);
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        await client.end();
      }
    });

    it('refuse as the SQLite engine does: no open turn, a plan step not in the plan, no such line', async () => {
      const db = await openMemory(freshPgUrl(), { dream: { auto: false } });
      const agent = db.primary();
      const noTurn = await refusal(
        agent.appendArchive({ kind: 'event', eventType: 't', content: 'c', createdAt: 1 }),
      );
      expect([noTurn.code, noTurn.message]).toEqual([
        'INVALID_INPUT',
        'turn: no turn is open for this agent',
      ]);
      await agent.search({ newScene: true });
      const badStep = await refusal(
        agent.appendArchive({ kind: 'event', eventType: 't', content: 'c', createdAt: 1, planStep: 4 }),
      );
      expect(badStep.code).toBe('INVALID_INPUT');
      expect(badStep.message).toBe(
        "appendArchive.planStep: step 4 is not a step of the open turn's plan (planNodeAdd creates steps)",
      );
      const noLine = await refusal(
        agent.radial.completeTask({
          lineId: 'none',
          taskLabel: 't',
          fullContext: 'x',
          conversationSummary: 'y',
        }),
      );
      expect(noLine.code).toBe('NOT_FOUND');
      // Nothing of the refused calls was written.
      expect(await agent.searchArchive({ contains: 'c' })).toEqual([]);
      await db.close();
    });
  },
);
