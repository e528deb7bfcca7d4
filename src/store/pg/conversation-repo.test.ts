import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArchiveWrite } from '../archive-repo.js';
import { EnginePair, pgCognitive } from '../../../test/helpers/pg-compare.js';
import { pgUnavailable, startPg, type PgServer } from '../../../test/helpers/pg-cognitive.js';

const why = pgUnavailable();
if (why) console.info(`skipped: PostgreSQL conversation repositories: ${why}`);

const say = (
  role: 'user' | 'agent',
  content: string,
  createdAt: number,
  seq?: number,
  speaker?: string,
): ArchiveWrite => ({ kind: 'utterance', role, content, contentType: 'text', createdAt, seq, speaker });
const event = (eventType: string, content: string, createdAt: number, planStep?: number): ArchiveWrite => ({
  kind: 'event',
  eventType,
  content,
  contentType: 'text',
  createdAt,
  planStep,
});

const TABLES = [
  { name: 'profiles', order: 'agent_id' },
  { name: 'agent_state', order: 'agent_id' },
  { name: 'scenes', order: 'id' },
  { name: 'topics', order: 'id', pgOnly: ['rowid'] },
  { name: 'archive', order: 'id' },
  { name: 'plan_nodes', order: 'topic_id, seq' },
  { name: 'engram_nodes', order: 'scene_id' },
  { name: 'engram_edges', order: 'a, b' },
];

describe.skipIf(why !== undefined)('PostgreSQL conversation repositories against SQLite', () => {
  let server: PgServer;
  beforeAll(() => {
    server = startPg();
  }, 60_000);
  afterAll(() => server?.stop());

  it('give the same results, errors, index writes and rows for one call sequence', async () => {
    const pair = await EnginePair.open(server.url, pgCognitive());
    const s = pair.step.bind(pair);
    try {
      // profiles
      await s('empty profile', (r) => r.conversation.profiles.get(1));
      await s('sub-agent profile', (r) => r.conversation.profiles.get(2));
      await s('exists (no)', (r) => r.conversation.profiles.exists(1));
      await s('merge', (r) =>
        r.conversation.profiles.merge(
          1,
          { name: 'Ada', role: 'pilot', preferences: { tea: 'green', b: 'x' } },
          100,
        ),
      );
      await s('merge unchanged', (r) => r.conversation.profiles.merge(1, { name: 'Ada' }, 110));
      await s('merge removes a preference', (r) =>
        r.conversation.profiles.merge(1, { preferences: { tea: null, lang: 'de' } }, 120),
      );
      await s('seed only if absent (present)', (r) =>
        r.conversation.profiles.merge(1, { name: 'Other' }, 130, { onlyIfAbsent: true }),
      );
      await s('seed only if absent (absent)', (r) =>
        r.conversation.profiles.merge(2, { name: 'Helper' }, 130, { onlyIfAbsent: true }),
      );
      await s('merge to empty text removes the index row', (r) =>
        r.conversation.profiles.merge(2, { name: '' }, 140),
      );

      // the first turn: a new scene, records, a plan, a close
      await s('no current scene', (r) => r.conversation.scenes.currentScene(1));
      await s('no open turn: append refused', (r) =>
        r.conversation.archive.append(1, [say('user', 'hi', 150)], 'archive'),
      );
      await s('no open turn: plan refused', (r) => r.conversation.plans.openPlan(1, 'planState'));
      await s('open a turn (scene created)', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 1,
          newScene: false,
          sceneName: 'Kitchen',
          now: 200,
          newSceneId: 'S-b',
          newTopicId: 'T-1',
        }),
      );
      await s('resume', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 1,
          newScene: false,
          now: 210,
          newSceneId: 'x',
          newTopicId: 'y',
        }),
      );
      await s('resume refuses a new scene', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 1,
          newScene: true,
          now: 210,
          newSceneId: 'x',
          newTopicId: 'y',
        }),
      );
      await s('resume refuses another scene', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 1,
          newScene: false,
          sceneId: 'S-other',
          now: 210,
          newSceneId: 'x',
          newTopicId: 'y',
        }),
      );
      await s('resume refuses a scene name', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 1,
          newScene: false,
          sceneName: 'n',
          now: 210,
          newSceneId: 'x',
          newTopicId: 'y',
        }),
      );
      await s('plan add', (r) => r.conversation.plans.add(1, 0, 'Cook', 220));
      await s('plan add child', (r) => r.conversation.plans.add(1, 1, 'Boil water', 221));
      await s('plan add under a missing step', (r) => r.conversation.plans.add(1, 9, 'nope', 222));
      await s('append', (r) =>
        r.conversation.archive.append(
          1,
          [event('tool', 'kettle on', 230, 2), say('user', 'Äpfel und Birnen', 231, undefined, 'Ada')],
          'archive',
        ),
      );
      await s('append with a missing plan step', (r) =>
        r.conversation.archive.append(1, [say('user', 'a', 232), event('tool', 'b', 233, 7)], 'archive'),
      );
      await s('plan update with a fold', (r) =>
        r.conversation.plans.update(1, { seq: 2, status: 'done', summary: 'boiled' }, 240, (nodes) =>
          nodes.filter((n) => n.seq === 1).map((n) => ({ seq: n.seq, summary: `${n.title}: folded` })),
        ),
      );
      await s('plan update of a missing step', (r) =>
        r.conversation.plans.update(1, { seq: 5, status: 'done' }, 241, () => []),
      );
      await s('plan add after an event named step 2', (r) => r.conversation.plans.add(1, 0, 'Serve', 242));
      await s('open plan', (r) => r.conversation.plans.openPlan(1, 'planState'));
      await s('utterances', (r) => r.conversation.archive.utterances('T-1'));
      await s('utterances of the open turn', (r) => r.conversation.archive.openTurnUtterances(1));
      await s('utterances of an agent with no open turn', (r) =>
        r.conversation.archive.openTurnUtterances(2),
      );
      await s('close with the wrong turn id', (r) =>
        r.conversation.scenes.closeTurn({
          agentId: 1,
          turnId: 'T-0',
          records: [],
          keywords: [],
          outcome: undefined,
          createdAt: 250,
          now: 250,
        }),
      );
      await s('close', (r) =>
        r.conversation.scenes.closeTurn({
          agentId: 1,
          turnId: 'T-1',
          records: [say('user', 'What is for dinner?', 228, 1), say('agent', 'Soup.', 251, 2)],
          keywords: ['dinner', 'soup'],
          outcome: 'decided',
          createdAt: 252,
          now: 253,
        }),
      );
      await s('close again', (r) =>
        r.conversation.scenes.closeTurn({
          agentId: 1,
          turnId: 'T-1',
          records: [],
          keywords: [],
          outcome: undefined,
          createdAt: 254,
          now: 254,
        }),
      );

      // more turns: ties on user_ts ordered by id bytes ('T-B' < 'T-a'), pending keywords
      for (const [id, at, keywords] of [
        ['T-a', 300, undefined],
        ['T-B', 300, ['b']],
        ['T-_', 400, ['under', 'score']],
      ] as const) {
        await s(`open ${id}`, (r) =>
          r.conversation.scenes.openTurn({
            agentId: 1,
            newScene: false,
            now: at,
            newSceneId: 'n',
            newTopicId: id,
          }),
        );
        await s(`close ${id}`, (r) =>
          r.conversation.scenes.closeTurn({
            agentId: 1,
            turnId: id,
            records: [say('user', `question ${id}`, at, 1), say('agent', `answer ${id}`, at + 1, 2)],
            keywords,
            outcome: undefined,
            createdAt: at,
            now: at + 2,
          }),
        );
      }
      await s('pending keywords', (r) => r.conversation.scenes.pendingKeywordTopics(1, 10));
      await s('fill keywords', (r) => r.conversation.scenes.fillKeywords(1, 'T-a', ['filled']));
      await s('fill keywords again', (r) => r.conversation.scenes.fillKeywords(1, 'T-a', ['again']));
      await s('surface', (r) => r.conversation.scenes.surface('S-b'));
      await s('scene topics', (r) => r.conversation.scenes.sceneTopics('S-b'));
      await s('topic keywords', (r) => r.conversation.scenes.topicKeywords('T-_'));
      await s('topic keywords of nothing', (r) => r.conversation.scenes.topicKeywords('none'));

      // a second scene, an open turn left in it, knowledge anchors refused
      await s('new scene anchored to a missing graph', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 1,
          newScene: true,
          knowledgeId: 'kg-missing',
          now: 500,
          newSceneId: 'S-A',
          newTopicId: 'T-x',
        }),
      );
      await s('new scene', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 1,
          newScene: true,
          now: 500,
          newSceneId: 'S-A',
          newTopicId: 'T-2',
        }),
      );
      await s('append to the open turn', (r) =>
        r.conversation.archive.append(1, [say('user', 'Second scene ÄPFEL', 501)], 'archive'),
      );
      await s('sub-agent opens its own turn', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 2,
          newScene: false,
          now: 502,
          newSceneId: 'S-h',
          newTopicId: 'T-h',
        }),
      );
      await s('current scene', (r) => r.conversation.scenes.currentScene(1));
      await s('open turn of', (r) => r.conversation.scenes.openTurnOf(1));
      await s('list scenes', (r) => r.conversation.scenes.listScenes(1));
      await s('list scenes by anchor', (r) => r.conversation.scenes.listScenes(1, 'kg'));
      await s('get scene', (r) => r.conversation.scenes.getScene(1, 'S-A'));
      await s('get scene of another agent', (r) => r.conversation.scenes.getScene(2, 'S-A'));
      await s('get topic', (r) => r.conversation.scenes.getTopic(1, 'T-B'));

      // archive queries
      const q = (extra: object) => ({ agentId: 1, limit: 50, ...extra });
      await s('query all', (r) => r.conversation.archive.query(q({})));
      await s('query newest 3', (r) => r.conversation.archive.query(q({ limit: 3 })));
      await s('query by topic', (r) => r.conversation.archive.query(q({ topicId: 'T-1' })));
      await s('query by scene and time', (r) =>
        r.conversation.archive.query(q({ sceneId: 'S-b', from: 231, to: 300 })),
      );
      await s('query events of plan steps', (r) =>
        r.conversation.archive.query(q({ kind: 'event', planSteps: [2] })),
      );
      await s('query by role and speaker', (r) =>
        r.conversation.archive.query(q({ role: 'user', speaker: 'Ada' })),
      );
      await s('query by ids', (r) => r.conversation.archive.query(q({ ids: [1, 3, 99] })));
      await s('query contains (any script, any case)', (r) =>
        r.conversation.archive.query(q({ contains: 'äpfel' })),
      );
      await s('query contains, newest 1, in a topic', (r) =>
        r.conversation.archive.query(q({ contains: 'ANSWER', limit: 1, topicId: 'T-B' })),
      );
      await s('query content type', (r) => r.conversation.archive.query(q({ contentType: 'code' })));

      // admin: rename, re-anchor, merge, delete
      await s('rename topic', (r) => r.conversation.scenes.renameTopic(1, 'T-B', 'Bread'));
      await s('rename topic unchanged', (r) => r.conversation.scenes.renameTopic(1, 'T-B', 'Bread'));
      await s('rename a missing topic', (r) => r.conversation.scenes.renameTopic(1, 'T-none', 'x'));
      await s('update scene name', (r) => r.conversation.scenes.updateScene(1, 'S-A', { name: 'Garden' }));
      await s('update scene unchanged', (r) =>
        r.conversation.scenes.updateScene(1, 'S-A', { name: 'Garden' }),
      );
      await s('anchor to a missing graph', (r) =>
        r.conversation.scenes.updateScene(1, 'S-A', { knowledgeId: 'kg-missing' }),
      );
      await s('engram rows to be removed', (r) =>
        r.engram.write(1, {
          upsertNodes: [
            {
              sceneId: 'S-A',
              topicIds: ['T-2'],
              keywords: ['k'],
              importance: 0.75,
              valence: 0.5,
              arousal: 0.1,
              emotionSet: true,
              createdAt: 600,
              updatedAt: 601,
              fadedAt: undefined,
            },
          ],
          deleteNodes: [],
          upsertEdges: [{ a: 'S-A', b: 'S-b', weight: 0.3, createdAt: 600, lastDecayAt: 600 }],
          deleteEdges: [],
        }),
      );
      await s('merge with a missing scene', (r) =>
        r.conversation.scenes.mergeScenes(1, 'S-b', ['S-A', 'S-z']),
      );
      await s('merge (moves the open turn)', (r) => r.conversation.scenes.mergeScenes(1, 'S-b', ['S-A']));
      await s('current scene after merge', (r) => r.conversation.scenes.currentScene(1));
      await s('resume after merge', (r) =>
        r.conversation.scenes.openTurn({
          agentId: 1,
          newScene: false,
          now: 700,
          newSceneId: 'x',
          newTopicId: 'y',
        }),
      );
      await s('prune archive before 300 (keeps the open turn)', (r) =>
        r.conversation.archive.prune(1, 300, 'T-2'),
      );
      await s('prune plans', (r) => r.conversation.plans.prune(1, 10_000));
      await s('delete a missing topic', (r) => r.conversation.scenes.deleteTopic(1, 'T-none'));
      await s('delete a topic', (r) => r.conversation.scenes.deleteTopic(1, 'T-a'));
      await s('delete the open turn', (r) => r.conversation.scenes.deleteTopic(1, 'T-2'));
      await s('delete a scene', (r) => r.conversation.scenes.deleteScene(1, 'S-b'));
      await s('delete a missing scene', (r) => r.conversation.scenes.deleteScene(1, 'S-b'));
      await s('current scene after delete', (r) => r.conversation.scenes.currentScene(1));
      await s('list after delete', (r) => r.conversation.scenes.listScenes(1));
      await pair.expectSameTables(TABLES);
      expect(pair.sqliteIndexLog.length).toBeGreaterThan(15);
    } finally {
      await pair.close();
    }
  });
});
