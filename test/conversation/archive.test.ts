import { expect, it } from 'vitest';
import { describeEngines } from '../helpers/engines.js';
import { at, conversationProblems, openTemp, rows } from './helpers.js';

describeEngines('searchArchive', () => {
  it('combines every condition, and planStep selects the step and its whole subtree', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const { turnId, scene } = await agent.search();
    const root = await agent.planNodeAdd(0, 'deploy');
    const build = await agent.planNodeAdd(root.seq, 'build');
    const test = await agent.planNodeAdd(build.seq, 'test');
    const other = await agent.planNodeAdd(0, 'notify');
    const event = (planStep: number, content: string, minute: number) =>
      agent.appendArchive({
        kind: 'event',
        eventType: 'tool_call',
        planStep,
        content,
        createdAt: at(minute),
      });
    await event(root.seq, 'root work', 1);
    await event(build.seq, 'compile sources', 2);
    await event(test.seq, 'run unit tests', 3);
    await event(other.seq, 'send mail', 4);
    await agent.appendArchive({
      kind: 'utterance',
      role: 'agent',
      content: 'code snippet',
      contentType: 'code',
      createdAt: at(5),
    });
    await agent.update({ input: 'please deploy', output: 'deployed', createdAt: at(6) });

    const contents = async (query: Parameters<typeof agent.searchArchive>[0]) =>
      (await agent.searchArchive(query)).map((r) => r.content);
    expect(await contents({ topicId: turnId, planStep: build.seq })).toEqual([
      'compile sources',
      'run unit tests',
    ]);
    expect(await contents({ topicId: turnId, planStep: root.seq })).toEqual([
      'root work',
      'compile sources',
      'run unit tests',
    ]);
    expect(await contents({ topicId: turnId, planStep: root.seq, from: at(2), to: at(2) })).toEqual([
      'compile sources',
    ]);
    expect(await contents({ topicId: turnId, kind: 'utterance' })).toEqual([
      'please deploy',
      'deployed',
      'code snippet',
    ]);
    expect(await contents({ contentType: 'code' })).toEqual(['code snippet']);
    expect(await contents({ sceneId: scene.id, role: 'user' })).toEqual(['please deploy']);
    expect(await contents({ kind: 'event', limit: 2 })).toEqual(['run unit tests', 'send mail']);
    await db.close();
  });

  it('orders by slot within a topic, by record time across topics, and keeps the newest with limit', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    await agent.search();
    await agent.update({ input: 'first turn', createdAt: at(10) });
    const { turnId } = await agent.search();
    await agent.appendArchive({ kind: 'utterance', content: 'late slot, early time', createdAt: at(1) });
    await agent.update({ input: 'second turn', createdAt: at(20) });
    expect((await agent.searchArchive({ topicId: turnId })).map((r) => r.seq)).toEqual([1, 3]);
    expect((await agent.searchArchive()).map((r) => r.content)).toEqual([
      'late slot, early time',
      'first turn',
      'second turn',
    ]);
    expect((await agent.searchArchive({ limit: 1 })).map((r) => r.content)).toEqual(['second turn']);
    expect(await agent.searchArchive({ topicId: 'tpc_unknown' })).toEqual([]);
    await db.close();
  });

  it('finds text through the recall index, combined with other conditions', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    await agent.search();
    await agent.appendArchive({
      kind: 'utterance',
      speaker: 'Caroline',
      content: 'I went to the LGBTQ support group yesterday',
      createdAt: at(1),
    });
    await agent.appendArchive({
      kind: 'utterance',
      role: 'agent',
      speaker: 'Melanie',
      content: 'The support group sounds great',
      createdAt: at(2),
    });
    await agent.appendArchive({
      kind: 'utterance',
      content: 'a completely unrelated remark',
      createdAt: at(2),
    });
    await agent.appendArchive({
      kind: 'event',
      eventType: 'note',
      content: 'support ticket opened',
      createdAt: at(3),
    });
    await agent.update({ outcome: 'chat', createdAt: at(4) });
    const found = await agent.searchArchive({ text: 'support group' });
    expect(found.map((r) => r.speaker ?? r.eventType)).toEqual(
      expect.arrayContaining(['Caroline', 'Melanie']),
    );
    // Neighbours the recall index ranks for context do not match the text condition.
    expect(found.map((r) => r.content)).not.toContain('a completely unrelated remark');
    expect((await agent.searchArchive({ text: 'support', kind: 'event' })).map((r) => r.content)).toEqual([
      'support ticket opened',
    ]);
    expect(
      (await agent.searchArchive({ text: 'support', speaker: 'Melanie' })).map((r) => r.speaker),
    ).toEqual(['Melanie']);
    expect(await agent.searchArchive({ text: 'support', to: at(1) })).toHaveLength(1);
    expect(await agent.searchArchive({ text: 'zeppelin' })).toEqual([]);
    // The speaker's name is indexed with the utterance.
    expect((await agent.searchArchive({ text: 'Caroline' })).map((r) => r.speaker)).toEqual(['Caroline']);
    await db.close();
  });

  it('records a multi-speaker session in one call, all or nothing', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    await agent.search({ newScene: true, sceneName: 'session_1' });
    const session = Array.from({ length: 50 }, (_, i) => ({
      kind: 'utterance' as const,
      role: i % 2 === 0 ? ('user' as const) : ('agent' as const),
      speaker: i % 2 === 0 ? 'Caroline' : 'Melanie',
      content: `utterance number ${i}`,
      createdAt: at(100),
    }));
    const slots = await agent.appendArchiveMany(session);
    expect(slots.map((s) => s.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 3));
    const { topic } = await agent.update({ outcome: 'session end', createdAt: at(100) });
    expect(topic.userTs).toBe(at(100));
    expect(await agent.searchArchive({ speaker: 'Melanie', limit: 1000 })).toHaveLength(25);
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('keeps everything by default, and prunes only when retention is on', async () => {
    const now = at(60 * 24 * 30);
    const clock = { now: () => now };
    const { db } = await openTemp({ clock, retention: { archiveMs: 7 * 24 * 3600_000 } });
    const agent = db.primary();
    await agent.search();
    await agent.planNodeAdd(0, 'old step');
    await agent.planNodeUpdate({ seq: 1, status: 'failed' });
    await agent.update({ input: 'ancient history', createdAt: at(1) });
    const { turnId } = await agent.search();
    await agent.appendArchive({ kind: 'utterance', content: 'old but open', createdAt: at(2) });
    const { pruneExpired } = await import('../../src/memory/archive/archive.js');
    // Plan steps use the library clock: the failed tree was written "now", so it stays.
    expect(await pruneExpired(agent.memoryContext)).toMatchObject({
      enabled: true,
      archiveRecords: 1,
      planNodes: 0,
    });
    expect((await agent.searchArchive()).map((r) => r.topicId)).toEqual([turnId]);
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();

    const { db: keep } = await openTemp();
    await keep.primary().search();
    await keep.primary().update({ input: 'ancient history', createdAt: at(1) });
    expect(await pruneExpired(keep.primary().memoryContext)).toMatchObject({
      enabled: false,
      archiveRecords: 0,
    });
    expect(await rows(keep, 'SELECT count(*) AS n FROM archive')).toEqual([{ n: 1 }]);
    await keep.close();
  });
});

describeEngines('plan trees', () => {
  it('folds finished branches bottom-up and never overwrites a host summary', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    await agent.search();
    const root = await agent.planNodeAdd(0, 'release');
    const a = await agent.planNodeAdd(root.seq, 'build');
    const b = await agent.planNodeAdd(root.seq, 'publish');
    const b1 = await agent.planNodeAdd(b.seq);
    expect(b1.title).toBe(String(b1.seq));
    await agent.planNodeUpdate({ seq: a.seq, status: 'done', summary: 'built 1.2' });
    await agent.planNodeUpdate({ seq: b1.seq, status: 'failed', summary: 'npm 503' });
    await agent.planNodeUpdate({ seq: b.seq, status: 'done' });
    const rootDone = await agent.planNodeUpdate({ seq: root.seq, status: 'done' });
    expect(rootDone.summary).toBe('built 1.2; npm 503');
    expect(rootDone.summaryFolded).toBe(true);
    expect(rootDone.finishedAt).toBeDefined();
    let state = await agent.planState();
    expect(state).toMatchObject({ doneCount: 3, totalCount: 4 });
    expect(state.roots[0]?.children.map((c) => c.summary)).toEqual(['built 1.2', 'npm 503']);

    // A child changes: the fold is re-derived.
    await agent.planNodeUpdate({ seq: b1.seq, status: 'done', summary: 'published' });
    state = await agent.planState();
    expect(state.roots[0]?.summary).toBe('built 1.2; published');
    // Back to in_progress: the old fold stays; finished_at is cleared.
    const reopened = await agent.planNodeUpdate({ seq: a.seq, status: 'in_progress', title: 'rebuild' });
    expect(reopened).toMatchObject({ title: 'rebuild', finishedAt: undefined });
    expect((await agent.planState()).roots[0]?.summary).toBe('built 1.2; published');
    // A host summary is never replaced by a fold.
    await agent.planNodeUpdate({ seq: root.seq, status: 'done', summary: 'shipped' });
    await agent.planNodeUpdate({ seq: a.seq, status: 'done', summary: 'built 1.3' });
    expect((await agent.planState()).roots[0]).toMatchObject({ summary: 'shipped', summaryFolded: false });
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('gives a new step an ordinal above any an event still names', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const { turnId } = await agent.search();
    await agent.planNodeAdd(0, 'one');
    await agent.appendArchive({ kind: 'event', eventType: 'e', planStep: 1, content: 'x', createdAt: at(1) });
    await rows(db, 'DELETE FROM plan_nodes WHERE topic_id = ?', turnId); // simulates retention
    expect((await agent.planNodeAdd(0, 'two')).seq).toBe(2);
    await db.close();
  });
});
