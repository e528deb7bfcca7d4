import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveWrite } from '../archive-repo.js';
import type { DreamRunRow, SurfaceTopicRow } from '../dream-repo.js';
import { PgDreamRepo } from './dream-repo.js';
import { EnginePair, pgCognitive } from '../../../test/helpers/pg-compare.js';
import { pgUnavailable, startPg, type PgServer } from '../../../test/helpers/pg-cognitive.js';

const why = pgUnavailable();
if (why) console.info(`skipped: PostgreSQL Dream repository: ${why}`);

const say = (role: 'user' | 'agent', content: string, createdAt: number, seq: number): ArchiveWrite => ({
  kind: 'utterance',
  role,
  content,
  contentType: 'text',
  createdAt,
  seq,
});

describe.skipIf(why !== undefined)('PostgreSQL Dream repository against SQLite', () => {
  let server: PgServer;
  beforeAll(() => {
    server = startPg();
  }, 60_000);
  afterAll(() => server?.stop());

  it('gives the same reads and row operations of an apply and an undo for one call sequence', async () => {
    const pair = await EnginePair.open(
      server.url,
      pgCognitive((db, index, conversation) => new PgDreamRepo(db, index, conversation)),
    );
    const s = pair.step.bind(pair);
    try {
      // a scene of five closed turns (one in another scene), and radial nodes to refresh
      const turns = ['T-1', 'T-2', 'T-3', 'T-4', 'T-5'];
      for (const [i, id] of turns.entries()) {
        const at = 1000 + i * 100;
        await s(`open ${id}`, (r) =>
          r.conversation.scenes.openTurn({
            agentId: 1,
            newScene: i === 4,
            now: at,
            newSceneId: i === 4 ? 'S-2' : 'S-1',
            newTopicId: id,
          }),
        );
        await s(`close ${id}`, (r) =>
          r.conversation.scenes.closeTurn({
            agentId: 1,
            turnId: id,
            records: [say('user', `question ${i} ünïcode`, at, 1), say('agent', `answer ${i}`, at + 5, 2)],
            keywords: i === 2 ? undefined : [`k${i}`, 'shared'],
            outcome: undefined,
            createdAt: at,
            now: at + 10,
          }),
        );
      }
      await pair.sql(
        "INSERT INTO lines (agent_id, id, name, description, created_at, ord, next_seq) VALUES (1, 'L', 'line', '', 1, 1, 5)",
        "INSERT INTO lines (agent_id, id, name, description, created_at, ord, next_seq) VALUES (1, 'L', 'line', '', 1, 1, 5)",
      );
      for (const [seq, tier] of [
        [1, 1],
        [2, 1],
        [3, 2],
        [4, 1],
      ] as const) {
        const cols = `(id, agent_id, line_id, line_seq, task_label, created_at, s_origin, s_brief, s_summary,
          s_detailed, summaries_state, summaries_tier, full_context`;
        const vals = `VALUES ('N${seq}', 1, 'L', ${seq}, 'task ${seq}', ${seq}, 'o${seq}', 'b${seq}', NULL, 'd${seq}', 'ready', ${tier}, '')`;
        await pair.sql(
          `INSERT INTO nodes ${cols}, conversation_summary) ${vals.slice(0, -1)}, '')`,
          `INSERT INTO nodes ${cols}) ${vals}`,
        );
      }
      await pair.sql(
        "INSERT INTO leases (name, owner, expires_at) VALUES ('dream:1', 'me', 1000000)",
        "INSERT INTO leases (name, owner, expires_at) VALUES ('dream:1', 'me', 1000000)",
      );

      // snapshot reads
      await s('surface count', (r) => r.dream.surfaceCount('S-1'));
      await s('has scene', (r) => r.dream.hasScene(1, 'S-1'));
      await s('has scene of another agent', (r) => r.dream.hasScene(2, 'S-1'));
      await s('compressible scenes', (r) => r.dream.compressibleScenes(1, undefined, 1));
      await s('compressible scenes (one)', (r) => r.dream.compressibleScenes(1, 'S-1', 4));
      await s('compressible scenes (too few)', (r) => r.dream.compressibleScenes(1, 'S-2', 2));
      const surface = (await s('surface', (r) => r.dream.surface('S-1'))) as unknown as {
        surface: SurfaceTopicRow[];
      };
      await s('refresh candidates', (r) => r.dream.refreshCandidates(1, 3, 10));
      await s('refresh candidates below tier 1', (r) => r.dream.refreshCandidates(1, 1, 10));
      await s('profile estimate (none)', (r) => r.dream.profileEstimate(1));
      await s('scene evidence', (r) => r.engram.sceneEvidence(1));
      await s('scene stamp', (r) => r.engram.sceneStamp('S-1'));
      await s('engram list (empty)', (r) => r.engram.list(1));
      expect(surface.surface).toHaveLength(4);

      const [a, b] = surface.surface as [SurfaceTopicRow, SurfaceTopicRow];
      const fusion = {
        sceneId: 'S-1',
        fusedId: 'F-1',
        members: [a, b].map((t) => ({ id: t.id, fingerprint: t.fingerprint })),
        summary: 'fused summary',
        keywords: ['fused'],
        userTs: a.userTs,
        agentTs: b.agentTs,
      };
      for (const id of ['r1', 'r2', 'r3'])
        await s(`start ${id}`, (r) =>
          r.dream.start({
            id,
            agentId: 1,
            sceneId: 'S-1',
            startedBy: 'explicit',
            owner: 'me',
            startedAt: 5000,
          }),
        );
      await s('topic state', (r) => r.dream.topicState(1, a.id));
      await s('topic state of a missing topic', (r) => r.dream.topicState(1, 'T-none'));
      await s('surface between', (r) =>
        r.dream.surfaceBetween('S-1', { userTs: a.userTs, id: a.id }, { userTs: 1300, id: 'T-4' }),
      );
      await s('insert fusion', (r) => r.dream.insertFusion('r1', 1, 5000, fusion));
      expect(await s('children', (r) => r.dream.childrenOf('F-1'))).toEqual([a.id, b.id].sort());
      await s('scene topics after the fusion', (r) => r.conversation.scenes.sceneTopics('S-1'));
      await s('node summaries', (r) => r.dream.nodeSummaries(1, 'N2'));
      const replaced = await s('replace summaries', (r) =>
        r.dream.replaceSummaries(
          1,
          'N2',
          { origin: 'o2', brief: 'b2', summary: null, detailed: 'd2', tier: 1 },
          { origin: 'O2', brief: 'B2', summary: 'S2', detailed: 'D2', tier: 3 },
        ),
      );
      const stale = await s('replace stale summaries', (r) =>
        r.dream.replaceSummaries(
          1,
          'N1',
          { origin: 'other', brief: 'b1', summary: null, detailed: 'd1', tier: 1 },
          { origin: 'x', brief: 'x', summary: 'x', detailed: 'x', tier: 3 },
        ),
      );
      expect([replaced, stale]).toEqual([true, false]);
      await s('write estimate', (r) =>
        r.dream.writeEstimate(
          1,
          { emotion: '{"valence":0.5}', mbti: '{"i_e":1}', distilled: '{"n":1}' },
          5001,
        ),
      );
      await s('profile estimate', (r) => r.dream.profileEstimate(1));
      await s('write estimate without a record', (r) =>
        r.dream.writeEstimate(
          1,
          { emotion: '{"valence":0.5}', mbti: '{"i_e":1}', distilled: undefined },
          5002,
        ),
      );
      for (const id of ['r1', 'r2', 'r3'])
        await s(`record ${id}`, (r) =>
          r.dream.record(1, id, {
            status: 'ok',
            finishedAt: 5003,
            report: '{}',
            undo: id === 'r3' ? '{}' : '{"x":1}',
          }),
        );
      const r1 = (await s('get r1', (r) => r.dream.get(1, 'r1'))) as DreamRunRow;
      expect(await s('later changing run', (r) => r.dream.laterChangingRun(1, r1))).toBe('r2');
      await s('mark undone', (r) => r.dream.markUndone('r2', 6000));
      expect(
        await s('later changing run after undo', (r) => r.dream.laterChangingRun(1, r1)),
      ).toBeUndefined();
      await s('list runs', (r) => r.dream.list(1, 10));
      expect(await s('remove fusion', (r) => r.dream.removeFusion('F-1', [a.id, b.id]))).toBe(2);
      await s('start and cancel r4', async (r) => {
        await r.dream.start({
          id: 'r4',
          agentId: 1,
          sceneId: 'S-2',
          startedBy: 'explicit',
          owner: 'me',
          startedAt: 8000,
        });
        await r.dream.finish('r4', 'cancelled', '{"why":"test"}', 8001);
        await r.dream.finish('r4', 'ok', '{}', 8002);
        return r.dream.get(1, 'r4');
      });
      await s('surface after removal', (r) => r.dream.surface('S-1'));
      await pair.expectSameTables([
        { name: 'topics', order: 'id', pgOnly: ['rowid'] },
        { name: 'archive', order: 'id' },
        { name: 'profiles', order: 'agent_id' },
        { name: 'engram_nodes', order: 'scene_id' },
        { name: 'engram_edges', order: 'a, b' },
        { name: 'dream_runs', order: 'id', pgOnly: ['seq'] },
        { name: 'meta', order: 'key' },
      ]);
      await pair.expectSameQuery(
        'SELECT id, s_origin, s_brief, s_summary, s_detailed, summaries_tier FROM nodes ORDER BY id',
      );
    } finally {
      await pair.close();
    }
  });
});
