import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveWrite } from '../archive-repo.js';
import type { DreamApplyRequest, DreamApplyResult, SurfaceTopicRow } from '../dream-rows.js';
import type { SceneEvidenceRow } from '../engram-rows.js';
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

const finish = (result: DreamApplyResult): { status: 'ok' | 'partial'; report: string } => ({
  status: result.fusionConflicts.length + result.refreshConflicts.length > 0 ? 'partial' : 'ok',
  report: JSON.stringify({ fused: result.fusions.length, engram: result.engram, profile: result.profile }),
});

describe.skipIf(why !== undefined)('PostgreSQL Dream repository against SQLite', () => {
  let server: PgServer;
  beforeAll(() => {
    server = startPg();
  }, 60_000);
  afterAll(() => server?.stop());

  it('gives the same reads, apply, undo and refusals for one call sequence', async () => {
    const pair = await EnginePair.open(
      server.url,
      pgCognitive((db, index, conversation, engram) => new PgDreamRepo(db, index, conversation, engram)),
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
        const insert = `INSERT INTO nodes ${cols}, conversation_summary) ${vals.slice(0, -1)}, '')`;
        await pair.sql(insert, insert);
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
      const evidence = (await s('scene evidence', (r) => r.engram.sceneEvidence(1))) as SceneEvidenceRow[];
      await s('scene stamp', (r) => r.engram.sceneStamp('S-1'));
      await s('engram list (empty)', (r) => r.engram.list(1));
      expect(surface.surface).toHaveLength(4);

      const [a, b, c] = surface.surface as [SurfaceTopicRow, SurfaceTopicRow, SurfaceTopicRow];
      const stamps = new Map(evidence.map((e) => [e.sceneId, e.stamp]));
      const base = (runId: string, extra: Partial<DreamApplyRequest>): DreamApplyRequest => ({
        runId,
        agentId: 1,
        lease: { name: 'dream:1', owner: 'me', now: 5000 },
        now: 5000,
        fusions: [],
        refreshes: [],
        engram: undefined,
        profile: undefined,
        retentionCutoff: undefined,
        ...extra,
      });
      const node = (sceneId: string, importance: number) => ({
        sceneId,
        topicIds: ['T-1'],
        keywords: ['shared'],
        importance,
        valence: 0.5,
        arousal: 0.25,
        emotionSet: false,
        createdAt: 5000,
        updatedAt: 5000,
        fadedAt: undefined,
      });

      // pass 1: a fusion, a stale fusion, two refreshes (one stale), the engram, the profile
      await s('start r1', (r) =>
        r.dream.start({
          id: 'r1',
          agentId: 1,
          sceneId: 'S-1',
          startedBy: 'explicit',
          owner: 'me',
          startedAt: 5000,
        }),
      );
      await s('undo a running pass', (r) => r.dream.checkUndo(1, 'r1'));
      const applied = await s('apply r1', (r) =>
        r.dream.apply(
          base('r1', {
            fusions: [
              {
                sceneId: 'S-1',
                fusedId: 'F-1',
                members: [a, b].map((t) => ({ id: t.id, fingerprint: t.fingerprint })),
                summary: 'fused summary',
                keywords: ['fused'],
                userTs: a.userTs,
                agentTs: b.agentTs,
              },
              {
                sceneId: 'S-1',
                fusedId: 'F-x',
                members: [{ id: c.id, fingerprint: 'stale' }],
                summary: 'never',
                keywords: undefined,
                userTs: c.userTs,
                agentTs: c.agentTs,
              },
            ],
            refreshes: [
              {
                nodeId: 'N2',
                before: { origin: 'o2', brief: 'b2', summary: null, detailed: 'd2', tier: 1 },
                after: { origin: 'O2', brief: 'B2', summary: 'S2', detailed: 'D2', tier: 3 },
              },
              {
                nodeId: 'N1',
                before: { origin: 'other', brief: 'b1', summary: null, detailed: 'd1', tier: 1 },
                after: { origin: 'x', brief: 'x', summary: 'x', detailed: 'x', tier: 3 },
              },
            ],
            engram: {
              stamps,
              diff: {
                upsertNodes: [node('S-1', 1), node('S-2', 0.5)],
                deleteNodes: [],
                upsertEdges: [{ a: 'S-1', b: 'S-2', weight: 0.4, createdAt: 5000, lastDecayAt: 5000 }],
                deleteEdges: [],
              },
            },
            profile: {
              expected: {
                exists: false,
                emotion: '{"valence":0,"arousal":0,"dominance":0}',
                mbti: '{"i_e":0,"n_s":0,"t_f":0,"j_p":0}',
                distilled: undefined,
              },
              emotion: '{"valence":0.5,"arousal":0,"dominance":0}',
              mbti: '{"i_e":1,"n_s":0,"t_f":0,"j_p":0}',
              distilled: '{"n":1}',
            },
            retentionCutoff: 1150,
          }),
          finish,
        ),
      );
      expect(applied).toMatchObject({
        fusions: [{ fusedId: 'F-1' }],
        fusionConflicts: [{ sceneId: 'S-1' }],
        refreshConflicts: ['N1'],
        engram: 'applied',
        profile: 'applied',
      });
      expect(applied?.pruned?.archiveRecords).toBeGreaterThan(0);
      await s('scene topics after the fusion', (r) => r.conversation.scenes.sceneTopics('S-1'));
      await s('engram list', (r) => r.engram.list(1));
      await s('rows of', (r) =>
        r.engram.rowsOf(
          1,
          ['S-1', 'S-9'],
          [
            { a: 'S-1', b: 'S-2' },
            { a: 'S-1', b: 'S-9' },
          ],
        ),
      );
      await s('profile estimate', (r) => r.dream.profileEstimate(1));
      await s('get r1', (r) => r.dream.get(1, 'r1'));

      // pass 2 and 3 in the same millisecond: undo order follows insertion
      for (const id of ['r2', 'r3']) {
        await s(`start ${id}`, (r) =>
          r.dream.start({
            id,
            agentId: 1,
            sceneId: undefined,
            startedBy: 'background',
            owner: 'me',
            startedAt: 6000,
          }),
        );
        await s(`apply ${id}`, (r) =>
          r.dream.apply(
            base(id, {
              now: 6000,
              engram: {
                stamps: new Map(),
                diff: {
                  upsertNodes: [node('S-2', id === 'r2' ? 0.3 : 0.2)],
                  deleteNodes: [],
                  upsertEdges: [],
                  deleteEdges: [],
                },
              },
            }),
            finish,
          ),
        );
      }
      await s('apply with a stale engram', (r) =>
        r.dream.apply(
          base('r2', {
            engram: {
              stamps: new Map([['S-1', '0:0:0']]),
              diff: { upsertNodes: [], deleteNodes: [], upsertEdges: [], deleteEdges: [] },
            },
          }),
          finish,
        ),
      );
      await s('apply without the lease', (r) =>
        r.dream.apply(base('r2', { lease: { name: 'dream:1', owner: 'someone', now: 5000 } }), finish),
      );
      await s('list runs', (r) => r.dream.list(1, 10));
      await s('undo r2 before r3', (r) =>
        r.dream.undo(1, 'r2', 7000, { name: 'dream:1', owner: 'me', now: 7000 }),
      );
      expect(() => pair.sqlite.dream.checkUndo(1, 'r2')).toThrow(/undo r3 first/);
      await s('undo r3', (r) => r.dream.undo(1, 'r3', 7000, { name: 'dream:1', owner: 'me', now: 7000 }));
      await s('undo r2', (r) => r.dream.undo(1, 'r2', 7001, { name: 'dream:1', owner: 'me', now: 7001 }));
      await s('undo r2 again', (r) => r.dream.checkUndo(1, 'r2'));
      await s('undo a missing pass', (r) => r.dream.checkUndo(1, 'r-none'));
      await s('undo r1 without the lease', (r) =>
        r.dream.undo(1, 'r1', 7002, { name: 'dream:1', owner: 'me', now: 2_000_000 }),
      );
      const undone = await s('undo r1', (r) =>
        r.dream.undo(1, 'r1', 7002, { name: 'dream:1', owner: 'me', now: 7002 }),
      );
      expect(undone).toMatchObject({
        topicsUnfused: 2,
        fusedTopicsRemoved: 1,
        radialNodesRestored: 1,
        profileRestored: true,
      });
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
      await s('existing scenes', (r) => r.engram.existingScenes(1, ['S-1', 'S-2', 'S-9']));
      await s('surface after undo', (r) => r.dream.surface('S-1'));
      await pair.expectSameTables([
        { name: 'topics', order: 'id' },
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
