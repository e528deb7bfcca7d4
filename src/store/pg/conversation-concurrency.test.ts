import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgConversationRepo } from './conversation-repo.js';
import {
  PgTestDb,
  SqlIndex,
  pgUnavailable,
  startPg,
  type PgServer,
} from '../../../test/helpers/pg-cognitive.js';

const why = pgUnavailable();
if (why) console.info(`skipped: PostgreSQL concurrent conversation writers: ${why}`);

describe.skipIf(why !== undefined)('PostgreSQL conversation repositories under concurrent writers', () => {
  let server: PgServer;
  let db: PgTestDb;
  beforeAll(async () => {
    server = startPg();
    db = await PgTestDb.create(server.url, 8);
    await db.tx(async (q) => {
      await q.query("INSERT INTO agents (id, name, is_primary, created_at) VALUES (1, 'main', 1, 1)");
    });
  }, 60_000);
  afterAll(async () => {
    await db?.drop();
    server?.stop();
  });

  const repos = <T>(work: (c: PgConversationRepo) => Promise<T>): Promise<T> =>
    db.tx((q) => work(new PgConversationRepo(q, new SqlIndex(q))));

  it('open one turn when four connections search at once; the others resume it', async () => {
    const opened = await Promise.all(
      [0, 1, 2, 3].map((i) =>
        repos((c) =>
          c.scenes.openTurn({
            agentId: 1,
            newScene: false,
            now: 100 + i,
            newSceneId: `S${i}`,
            newTopicId: `T${i}`,
          }),
        ),
      ),
    );
    expect(opened.filter((o) => !o.resumed)).toHaveLength(1);
    expect(new Set(opened.map((o) => o.turn.id)).size).toBe(1);
    expect(new Set(opened.map((o) => o.scene.id)).size).toBe(1);
    const scenes = await repos((c) => c.scenes.listScenes(1));
    expect(scenes).toHaveLength(1);
    expect(scenes[0]?.turnSeq).toBe(1);
  });

  it('number records 3..n without gaps or repeats when four writers append at once', async () => {
    const perWriter = 20;
    const slots = (
      await Promise.all(
        [0, 1, 2, 3].map(async (w) => {
          const mine = [];
          for (let i = 0; i < perWriter; i++) {
            const [slot] = await repos((c) =>
              c.archive.append(
                1,
                [
                  {
                    kind: 'utterance',
                    role: 'user',
                    contentType: 'text',
                    content: `w${w} #${i}`,
                    createdAt: 200 + i,
                  },
                ],
                'archive',
              ),
            );
            mine.push(slot);
          }
          return mine;
        }),
      )
    ).flat();
    const seqs = slots.map((slot) => slot?.seq).sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(seqs).toEqual(Array.from({ length: 4 * perWriter }, (_, i) => i + 3));
    const turn = await repos(async (c) => (await c.scenes.openTurnOf(1))?.id);
    const stored = await repos((c) => c.archive.query({ agentId: 1, topicId: turn, limit: 1000 }));
    expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: 4 * perWriter }, (_, i) => i + 3));
    expect(new Set(stored.map((r) => r.content)).size).toBe(4 * perWriter);
  });

  it('number plan steps 1..n when four writers add steps at once', async () => {
    const added = await Promise.all(
      Array.from({ length: 12 }, (_, i) => repos((c) => c.plans.add(1, 0, `step ${i}`, 300 + i))),
    );
    expect(added.map((n) => n.seq).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
  });

  it('let exactly one of two racing closes win; the other is told no turn is open', async () => {
    const turn = (await repos((c) => c.scenes.openTurnOf(1)))?.id as string;
    const close = (): Promise<unknown> =>
      repos((c) =>
        c.scenes.closeTurn({
          agentId: 1,
          turnId: turn,
          records: [],
          keywords: ['k'],
          outcome: undefined,
          createdAt: 400,
          now: 401,
        }),
      );
    const results = await Promise.allSettled([close(), close()]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(failed.reason).toMatchObject({ code: 'INVALID_INPUT', remedy: 'open-turn' });
  });
});
