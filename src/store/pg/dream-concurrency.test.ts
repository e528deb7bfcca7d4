import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DreamApplyRequest } from '../dream-rows.js';
import { PgConversationRepo } from './conversation-repo.js';
import { PgDreamRepo } from './dream-repo.js';
import { PgEngramRepo } from './engram-repo.js';
import { PgIndexRepo } from './index-repo.js';
import type { PgQuery } from './pg-query.js';
import { PgTestDb, pgUnavailable, startPg, type PgServer } from '../../../test/helpers/pg-cognitive.js';

const why = pgUnavailable();
if (why) console.info(`skipped: PostgreSQL Dream under concurrent writers: ${why}`);

function repos(q: PgQuery): { conversation: PgConversationRepo; dream: PgDreamRepo } {
  const index = new PgIndexRepo(q);
  const conversation = new PgConversationRepo(q, index);
  return { conversation, dream: new PgDreamRepo(q, index, conversation, new PgEngramRepo(q)) };
}

describe.skipIf(why !== undefined)('PostgreSQL Dream under concurrent writers', () => {
  let server: PgServer;
  let db: PgTestDb;
  beforeAll(async () => {
    server = startPg();
    db = await PgTestDb.create(server.url, 8);
    await db.tx(async (q) => {
      await q.query("INSERT INTO agents (id, name, is_primary, created_at) VALUES (1, 'main', 1, 1)");
      await q.query("INSERT INTO leases (name, owner, expires_at) VALUES ('dream:1', 'me', 1000000)");
      const { conversation } = repos(q);
      for (const [i, id] of ['T1', 'T2', 'T3'].entries()) {
        await conversation.scenes.openTurn({
          agentId: 1,
          newScene: false,
          now: 100 * i + 100,
          newSceneId: 'S',
          newTopicId: id,
        });
        await conversation.scenes.closeTurn({
          agentId: 1,
          turnId: id,
          records: [
            {
              kind: 'utterance',
              role: 'user',
              contentType: 'text',
              content: `q${i}`,
              createdAt: 100 * i + 100,
              seq: 1,
            },
          ],
          keywords: [`k${i}`],
          outcome: undefined,
          createdAt: 100 * i + 100,
          now: 100 * i + 101,
        });
      }
    });
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
    server?.stop();
  });

  it('fuses the same topics once when two passes apply the same fusion at once', async () => {
    const surface = await db.tx((q) => repos(q).dream.surface('S'));
    const [a, b] = surface.surface;
    const request = (runId: string, fusedId: string): DreamApplyRequest => ({
      runId,
      agentId: 1,
      lease: { name: 'dream:1', owner: 'me', now: 500 },
      now: 500,
      fusions: [
        {
          sceneId: 'S',
          fusedId,
          members: [a, b].map((t) => ({ id: t?.id as string, fingerprint: t?.fingerprint as string })),
          summary: 'both',
          keywords: ['fused'],
          userTs: a?.userTs as number,
          agentTs: b?.agentTs as number,
        },
      ],
      refreshes: [],
      engram: undefined,
      profile: undefined,
      retentionCutoff: undefined,
    });
    for (const id of ['r1', 'r2'])
      await db.tx((q) =>
        repos(q).dream.start({
          id,
          agentId: 1,
          sceneId: 'S',
          startedBy: 'explicit',
          owner: 'me',
          startedAt: 400,
        }),
      );
    const results = await Promise.all(
      [request('r1', 'F1'), request('r2', 'F2')].map((r) =>
        db.tx((q) => repos(q).dream.apply(r, () => ({ status: 'ok', report: '{}' }))),
      ),
    );
    expect(results.map((r) => r.fusions.length).sort()).toEqual([0, 1]);
    expect(results.flatMap((r) => r.fusionConflicts.map((c) => c.reason))).toEqual([
      expect.stringMatching(/changed while Dream computed/),
    ]);
    const after = await db.tx((q) => repos(q).dream.surface('S'));
    expect(after.surface.map((t) => t.kind)).toEqual(['fused', 'turn']);
  });

  it('refuses an apply whose lease another owner took while it waited; nothing of it is written', async () => {
    const before = await db.tx((q) => repos(q).dream.surface('S'));
    // Another owner takes the lease over (it expired for this pass, say); this pass then applies.
    await db.tx(async (q) => {
      await q.query("UPDATE leases SET owner = 'other' WHERE name = 'dream:1'");
    });
    await expect(
      db.tx((q) =>
        repos(q).dream.apply(
          {
            runId: 'r1',
            agentId: 1,
            lease: { name: 'dream:1', owner: 'me', now: 600 },
            now: 600,
            fusions: [],
            refreshes: [],
            engram: undefined,
            profile: undefined,
            retentionCutoff: 0,
          },
          () => ({ status: 'ok', report: '{"late":true}' }),
        ),
      ),
    ).rejects.toMatchObject({ code: 'BUSY' });
    expect(await db.tx((q) => repos(q).dream.surface('S'))).toEqual(before);
    expect((await db.tx((q) => repos(q).dream.get(1, 'r1')))?.report).not.toContain('late');
  });
});
