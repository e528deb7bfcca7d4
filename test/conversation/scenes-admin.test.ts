import { expect, it } from 'vitest';
import { describeEngines } from '../helpers/engines.js';
import type { Agent } from '../../src/index.js';
import { at, conversationProblems, openTemp, rows } from './helpers.js';

async function turn(
  agent: Agent,
  input: string,
  minute: number,
  options: Parameters<Agent['search']>[0] = {},
) {
  const opened = await agent.search(options);
  await agent.planNodeAdd(0, 'step');
  await agent.appendArchive({
    kind: 'event',
    eventType: 'tool',
    planStep: 1,
    content: `${input} tool`,
    createdAt: at(minute),
  });
  const closed = await agent.update({ input, output: `re: ${input}`, createdAt: at(minute) });
  return { sceneId: opened.scene.id, topicId: closed.topic.id };
}

describeEngines('scenes administration', () => {
  it('lists scenes with the current one marked, and gives a scene transcript', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    expect(await agent.sceneContext()).toEqual({ scene: undefined, openTurnId: undefined, topics: [] });
    const a = await turn(agent, 'alpha question', 1);
    const b = await turn(agent, 'beta question', 2, { newScene: true });
    const listed = await agent.listScenes();
    expect(listed.map((s) => [s.id, s.current])).toEqual([
      [a.sceneId, false],
      [b.sceneId, true],
    ]);
    const { turnId } = await agent.search({ sceneId: a.sceneId });
    const context = await agent.sceneContext();
    expect(context.scene?.id).toBe(a.sceneId);
    expect(context.openTurnId).toBe(turnId);
    expect(context.topics).toHaveLength(1);
    expect(context.topics[0]).toMatchObject({ id: a.topicId, childCount: 0, depth: 1 });
    expect(context.topics[0]?.messages.map((m) => [m.seq, m.role, m.content])).toEqual([
      [1, 'user', 'alpha question'],
      [2, 'agent', 're: alpha question'],
    ]);
    expect((await agent.sceneContext(b.sceneId)).openTurnId).toBeUndefined();
    await db.close();
  });

  it('renames and re-anchors, writing the topic name into the index', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const a = await turn(agent, 'alpha question', 1);
    await rows(db, "INSERT INTO kg_graphs (id, label, created_at, updated_at) VALUES ('kg_1', 'docs', 0, 0)");
    expect(await agent.updateScene(a.sceneId, { name: 'Alpha', knowledgeId: 'kg_1' })).toMatchObject({
      name: 'Alpha',
      knowledgeId: 'kg_1',
    });
    expect((await agent.listScenes({ knowledgeId: 'kg_1' })).map((s) => s.id)).toEqual([a.sceneId]);
    expect(await agent.listScenes({ knowledgeId: 'kg_2' })).toEqual([]);
    expect((await agent.updateScene(a.sceneId, { knowledgeId: null })).knowledgeId).toBeUndefined();
    const renamed = await agent.renameTopic(a.topicId, 'Greek letters');
    expect(renamed.name).toBe('Greek letters');
    expect((await agent.searchArchive({ text: 'alpha' })).length).toBeGreaterThan(0);
    expect(
      await rows(db, "SELECT count(*) AS n FROM search_docs WHERE layer = 'topic' AND ref = ?", a.topicId),
    ).toEqual([{ n: 1 }]);
    await db.close();
  });

  it('deletes a topic with its records, plan steps and index rows, in one report', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const a = await turn(agent, 'alpha question', 1);
    const b = await turn(agent, 'beta question', 2);
    const report = await agent.deleteTopic(a.topicId);
    expect(report).toEqual({
      sceneIds: [],
      topicIds: [a.topicId],
      archiveRecords: 3,
      planNodes: 1,
      indexRows: 4,
      engramNodes: 0,
      openTurnDeleted: false,
    });
    expect((await agent.searchArchive()).every((r) => r.topicId === b.topicId)).toBe(true);
    expect(await rows(db, 'SELECT count(*) AS n FROM search_docs WHERE topic_id = ?', a.topicId)).toEqual([
      { n: 0 },
    ]);
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('deletes the topic holding the open turn, and a scene with everything in it', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const a = await turn(agent, 'alpha question', 1);
    const { turnId } = await agent.search();
    await agent.appendArchive({ kind: 'utterance', content: 'half a thought', createdAt: at(2) });
    expect((await agent.deleteTopic(turnId)).openTurnDeleted).toBe(true);
    await expect(
      agent.appendArchive({ kind: 'utterance', content: 'x', createdAt: at(3) }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await agent.search();
    const report = await agent.deleteScene(a.sceneId);
    expect(report).toMatchObject({
      sceneIds: [a.sceneId],
      archiveRecords: 3,
      planNodes: 1,
      openTurnDeleted: true,
    });
    expect(report.topicIds).toHaveLength(2);
    expect(await rows(db, 'SELECT count(*) AS n FROM search_docs WHERE scene_id = ?', a.sceneId)).toEqual([
      { n: 0 },
    ]);
    expect(await agent.listScenes()).toEqual([]);
    // The next search creates a fresh scene.
    expect((await agent.search()).sceneCreated).toBe(true);
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('merges scenes: topics and index rows move, the open turn moves with them and stays open', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const a = await turn(agent, 'alpha question', 1);
    const b = await turn(agent, 'beta question', 2, { newScene: true });
    const c = await turn(agent, 'gamma question', 3, { newScene: true });
    const { turnId } = await agent.search();
    const report = await agent.mergeScenes(a.sceneId, [b.sceneId, c.sceneId]);
    expect(report).toMatchObject({
      sceneId: a.sceneId,
      mergedSceneIds: [b.sceneId, c.sceneId],
      topicsMoved: 3,
      indexRowsMoved: 8,
      knowledgeId: undefined,
      openTurnMoved: true,
    });
    expect((await agent.listScenes()).map((s) => [s.id, s.current])).toEqual([[a.sceneId, true]]);
    await agent.appendArchive({ kind: 'utterance', content: 'still open', createdAt: at(4) });
    const closed = await agent.update({ output: 'done', createdAt: at(5) });
    expect(closed.topic).toMatchObject({ id: turnId, sceneId: a.sceneId });
    expect((await agent.search()).topics.map((t) => t.id)).toEqual([a.topicId, b.topicId, c.topicId, turnId]);
    expect(
      await rows(
        db,
        'SELECT DISTINCT scene_id FROM search_docs WHERE agent_id = ? AND scene_id IS NOT NULL',
        agent.info().id,
      ),
    ).toEqual([{ scene_id: a.sceneId }]);
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });
});

describeEngines('two agents of one file', () => {
  it('never share a turn, even interleaved', async () => {
    const { db } = await openTemp();
    const one = db.primary();
    const two = await db.agent('helper');
    const [t1, t2] = await Promise.all([one.search(), two.search()]);
    expect(t1.turnId).not.toBe(t2.turnId);
    expect(t1.scene.id).not.toBe(t2.scene.id);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? one : two).appendArchive({
          kind: 'utterance',
          content: `message ${i}`,
          createdAt: at(i + 1),
        }),
      ),
    );
    await Promise.all([one.planNodeAdd(0, 'one'), two.planNodeAdd(0, 'two')]);
    // A child needs its parent committed first: calls on one handle that run at once are not
    // ordered (on PostgreSQL they take separate pooled connections), so this one waits.
    await two.planNodeAdd(1, 'two child');
    const [r1, r2] = await Promise.all([
      one.update({ input: 'one in', createdAt: at(30) }),
      two.update({ input: 'two in', createdAt: at(31) }),
    ]);
    expect(r1.topic.id).toBe(t1.turnId);
    expect(r2.topic.id).toBe(t2.turnId);
    const a1 = await one.searchArchive({ limit: 100 });
    const a2 = await two.searchArchive({ limit: 100 });
    expect(a1.map((r) => r.content)).toEqual([
      ...Array.from({ length: 10 }, (_, i) => `message ${i * 2}`),
      'one in',
    ]);
    expect(a2.every((r) => r.topicId === t2.turnId)).toBe(true);
    expect(await one.listScenes()).toHaveLength(1);
    await expect(one.searchArchive({ topicId: t2.turnId })).resolves.toEqual([]);
    await expect(one.deleteScene(t2.scene.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    // One agent closing leaves the other's turn open.
    await one.search();
    await two.search();
    await one.update({ input: 'close one', createdAt: at(40) });
    await expect(
      two.appendArchive({ kind: 'utterance', content: 'two still open', createdAt: at(41) }),
    ).resolves.toBeDefined();
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('see one persisted turn per agent across two handles of one file (shared mode)', async () => {
    const { db, path, summarizer } = await openTemp();
    const { openMemory } = await import('../../src/index.js');
    const other = await openMemory(path, { summarizer });
    const mine = db.primary();
    const theirs = await other.agent('second');
    await mine.search();
    await theirs.search();
    await mine.appendArchive({ kind: 'utterance', content: 'from handle one', createdAt: at(1) });
    await theirs.appendArchive({ kind: 'utterance', content: 'from handle two', createdAt: at(1) });
    // The primary's open turn is visible to the second handle (it is persisted), and is the same turn.
    const viaOther = await other.primary().search();
    expect(viaOther.resumed).toBe(true);
    await other.primary().update({ input: 'closed from handle two', createdAt: at(2) });
    await expect(mine.update({ input: 'too late', createdAt: at(3) })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await theirs.update({ input: 'second agent done', createdAt: at(3) });
    expect((await mine.searchArchive()).map((r) => r.content)).toEqual([
      'from handle one',
      'closed from handle two',
    ]);
    await other.close();
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });
});
