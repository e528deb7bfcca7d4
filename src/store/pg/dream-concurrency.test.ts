import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgConversationRepo } from './conversation-repo.js';
import { PgDreamRepo } from './dream-repo.js';
import type { PgQuery } from './pg-query.js';
import {
  PgTestDb,
  SqlIndex,
  pgUnavailable,
  startPg,
  type PgServer,
} from '../../../test/helpers/pg-cognitive.js';

const why = pgUnavailable();
if (why) console.info(`skipped: PostgreSQL Dream under concurrent writers: ${why}`);

function repos(q: PgQuery): { conversation: PgConversationRepo; dream: PgDreamRepo } {
  const index = new SqlIndex(q);
  const conversation = new PgConversationRepo(q, index);
  return { conversation, dream: new PgDreamRepo(q, index, conversation) };
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

  it('fuses the same topics once when two passes check and fuse them at once', async () => {
    const surface = await db.tx((q) => repos(q).dream.surface('S'));
    const members = surface.surface.slice(0, 2);
    // What memory/dream/dream-apply.ts does per fusion: check each member, then insert.
    const pass = (runId: string, fusedId: string): Promise<boolean> =>
      db.tx(async (q) => {
        const { dream } = repos(q);
        for (const member of members) {
          const state = await dream.topicState(1, member.id);
          if (!state || state.kind !== 'turn' || state.fingerprint !== member.fingerprint) return false;
        }
        await dream.insertFusion(runId, 1, 500, {
          sceneId: 'S',
          fusedId,
          members: members.map((m) => ({ id: m.id, fingerprint: m.fingerprint })),
          summary: 'both',
          keywords: ['fused'],
          userTs: members[0]?.userTs as number,
          agentTs: members[1]?.agentTs as number,
        });
        return true;
      });
    const fused = await Promise.all([pass('r1', 'F1'), pass('r2', 'F2')]);
    expect(fused.sort()).toEqual([false, true]);
    const after = await db.tx((q) => repos(q).dream.surface('S'));
    expect(after.surface.map((t) => t.kind)).toEqual(['fused', 'turn']);
  });
});
