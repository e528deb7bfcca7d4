import { expect, it } from 'vitest';
import { describeEngines, freshMemoryPath } from '../helpers/engines.js';
import { openMemory } from '../../src/index.js';
import { MockSummarizer } from '../../src/llm/mock-summarizer.js';
import { at, conversationProblems, openTemp, rows } from './helpers.js';

describeEngines('the turn loop', () => {
  it('runs search → appends → plan → update, and continues the same scene after a reopen', async () => {
    const { db, path } = await openTemp({ profile: { name: 'Ada', role: 'release engineer' } });
    const agent = db.primary();

    const first = await agent.search();
    expect(first.sceneCreated).toBe(true);
    expect(first.resumed).toBe(false);
    expect(first.topics).toEqual([]);
    expect(first.profile.name).toBe('Ada');
    expect(first.profileBrief).toBe('name: Ada\nrole: release engineer');

    const step = await agent.planNodeAdd(0, 'find the secret');
    expect(step.seq).toBe(1);
    const slot = await agent.appendArchive({
      kind: 'event',
      eventType: 'tool_call',
      planStep: step.seq,
      content: '{"tool":"grep","args":"JWT_SECRET"}',
      createdAt: at(1),
    });
    expect(slot).toMatchObject({ topicId: first.turnId, seq: 3 });
    await agent.planNodeUpdate({ seq: 1, status: 'done', summary: 'found in vault' });

    const closed = await agent.update({
      input: 'Where is the JWT secret kept?',
      output: 'In the vault, under auth/jwt.',
      outcome: 'answered',
      createdAt: at(2),
    });
    expect(closed.keywordsPending).toBe(false);
    expect(closed.topic).toMatchObject({
      id: first.turnId,
      status: 'closed',
      outcome: 'answered',
      userTs: at(2),
    });
    expect(closed.topic.keywords).toEqual(expect.arrayContaining(['jwt', 'secret', 'vault']));

    const records = await agent.searchArchive({ topicId: first.turnId });
    expect(records.map((r) => [r.seq, r.kind, r.role ?? r.eventType])).toEqual([
      [1, 'utterance', 'user'],
      [2, 'utterance', 'agent'],
      [3, 'event', 'tool_call'],
      [4, 'event', 'turn_outcome'],
    ]);
    await db.close();

    const reopened = await openMemory(path, {
      summarizer: new MockSummarizer(),
      profile: { name: 'Ignored' },
    });
    const again = reopened.primary();
    expect((await again.getProfile()).name).toBe('Ada');
    const second = await again.search();
    expect(second.scene.id).toBe(first.scene.id);
    expect(second.sceneCreated).toBe(false);
    expect(second.scene.turnSeq).toBe(2);
    expect(second.topics.map((t) => t.id)).toEqual([first.turnId]);
    expect(second.turnId).not.toBe(first.turnId);
    expect(await conversationProblems(reopened)).toEqual([]);
    await reopened.close();
  });

  it('persists the open turn: it survives a reopen and update closes it', async () => {
    const { db, path } = await openTemp();
    const opened = await db.primary().search();
    await db
      .primary()
      .appendArchive({ kind: 'utterance', role: 'user', content: 'draft one', createdAt: at(1) });
    await db.close();

    const reopened = await openMemory(path, { summarizer: new MockSummarizer() });
    const agent = reopened.primary();
    const slot = await agent.appendArchive({
      kind: 'utterance',
      role: 'agent',
      content: 'draft two',
      createdAt: at(2),
    });
    expect(slot.topicId).toBe(opened.turnId);
    const resumed = await agent.search();
    expect(resumed).toMatchObject({ turnId: opened.turnId, resumed: true });
    const { topic } = await agent.update({ outcome: 'done', createdAt: at(3) });
    expect(topic).toMatchObject({ id: opened.turnId, status: 'closed', userTs: at(1), agentTs: at(2) });
    expect(topic.keywords).toEqual(expect.arrayContaining(['draft']));
    await expect(
      agent.appendArchive({ kind: 'utterance', content: 'late', createdAt: at(4) }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await reopened.close();
  });

  it('returns surface topics newest last and excludes the open turn', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { turnId } = await agent.search();
      ids.push(turnId);
      await agent.update({ input: `question ${i}`, output: `answer ${i}`, createdAt: at(10 - i) });
    }
    const { topics, turnId } = await agent.search();
    // Ordered by first utterance time: the last turn was dated earliest.
    expect(topics.map((t) => t.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(topics.map((t) => t.id)).not.toContain(turnId);
    await db.close();
  });

  it("puts the current scene's keywords into the origin", async () => {
    const db = await openMemory(freshMemoryPath());
    const agent = db.primary();
    expect(await agent.radial.getOriginContext()).not.toContain('Current scene');
    await agent.search({ newScene: true, sceneName: 'kubernetes upgrade' });
    await agent.update({
      input: 'Why did the Kubernetes upgrade stall on the ingress controller?',
      output: 'The ingress controller pinned an old API version; we bumped the Helm chart.',
      createdAt: at(1),
    });
    const origin = await agent.radial.getOriginContext();
    const sceneLine = origin
      .split('\n')
      .find((line) => line.startsWith('Current scene "kubernetes upgrade": '));
    const keywords = sceneLine?.slice('Current scene "kubernetes upgrade": '.length).toLowerCase();
    expect(keywords).toContain('ingress controller');
    // Neither the scene's name nor a single word that a kept phrase holds is repeated beside it.
    expect(keywords).not.toContain('kubernetes upgrade');
    expect(keywords).not.toMatch(/(?:^|, )(?:kubernetes|ingress)(?:,|$)/u);
    await db.close();
  });

  it('shows a scene its host did not name by its keywords alone, never by its id', async () => {
    const db = await openMemory(freshMemoryPath());
    const agent = db.primary();
    const { scene } = await agent.search({ newScene: true });
    await agent.update({
      input: 'Why did the Kubernetes upgrade stall on the ingress controller?',
      output: 'The ingress controller pinned an old API version; we bumped the Helm chart.',
      createdAt: at(1),
    });
    const origin = await agent.radial.getOriginContext();
    expect(origin).not.toContain(scene.id);
    expect(origin).toMatch(/^Current scene: .*ingress controller/mu);
    await db.close();
  });

  it('starts a new scene on request and continues a named one', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const a = await agent.search();
    await agent.update({ input: 'hello alpha', createdAt: at(1) });
    const b = await agent.search({ newScene: true, sceneName: 'session 2' });
    expect(b.scene.id).not.toBe(a.scene.id);
    expect(b.scene.name).toBe('session 2');
    await agent.update({ input: 'hello beta', createdAt: at(2) });
    const back = await agent.search({ sceneId: a.scene.id });
    expect(back.scene.id).toBe(a.scene.id);
    expect(back.topics).toHaveLength(1);
    await agent.update({ output: 'back in alpha', createdAt: at(3) });
    // Without a scene id, the current scene is the one used last.
    expect((await agent.search()).scene.id).toBe(a.scene.id);
    await db.close();
  });

  it('closes the turn with keywords pending when the model fails, and fills them later', async () => {
    const { db, summarizer } = await openTemp();
    const agent = db.primary();
    summarizer.failing = new Set(['distillKeywords']);
    const { turnId } = await agent.search();
    const result = await agent.update({
      input: 'deploy the billing service',
      output: 'deployed v2',
      createdAt: at(1),
    });
    expect(result.keywordsPending).toBe(true);
    expect(result.keywordsError).toMatch(/./);
    expect(result.topic).toMatchObject({ id: turnId, status: 'closed', keywordsPending: true, keywords: [] });
    expect((await agent.searchArchive({ topicId: turnId })).map((r) => r.content)).toEqual([
      'deploy the billing service',
      'deployed v2',
    ]);
    expect((await db.stats()).pending.keywords).toBe(1);

    const { fillPendingKeywords } = await import('../../src/memory/scenes/turn-loop.js');
    expect(await fillPendingKeywords(agent.memoryContext)).toMatchObject({ filled: 0, failed: 1 });
    summarizer.failing = false;
    expect(await fillPendingKeywords(agent.memoryContext)).toEqual({ filled: 1, failed: 0, errors: {} });
    const [topic] = (await agent.sceneContext()).topics;
    expect(topic?.keywordsPending).toBe(false);
    expect(topic?.keywords).toEqual(expect.arrayContaining(['billing', 'deployed']));
    expect(await rows(db, "SELECT ref FROM search_docs WHERE layer = 'topic'")).toEqual([{ ref: turnId }]);
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('treats any throw from the distiller like a model failure', async () => {
    const { db, summarizer } = await openTemp();
    summarizer.distillKeywords = () => {
      throw new TypeError('boom');
    };
    await db.primary().search();
    const result = await db.primary().update({ input: 'x marks the spot', createdAt: at(1) });
    expect(result).toMatchObject({ keywordsPending: true, keywordsError: 'boom' });
    await db.close();
  });

  it('closes a turn holding no utterances without calling the model', async () => {
    const { db, summarizer } = await openTemp();
    await db.primary().search();
    await db
      .primary()
      .appendArchive({ kind: 'event', eventType: 'cron', content: 'nightly run', createdAt: at(1) });
    const { topic, keywordsPending } = await db.primary().update({ outcome: 'ok', createdAt: at(5) });
    expect(keywordsPending).toBe(false);
    expect(topic).toMatchObject({ keywords: [], userTs: at(5), agentTs: at(5) });
    expect(summarizer.calls.filter((c) => c.operation === 'distillKeywords')).toHaveLength(0);
    await db.close();
  });

  it('rewrites a held slot instead of adding one', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    const { turnId } = await agent.search();
    const first = await agent.appendArchive({ kind: 'utterance', content: 'first draft', createdAt: at(1) });
    const again = await agent.appendArchive({
      kind: 'utterance',
      content: 'second draft',
      createdAt: at(2),
      seq: first.seq,
    });
    expect(again).toEqual(first);
    await agent.appendArchive({
      kind: 'utterance',
      role: 'user',
      content: 'typed input',
      createdAt: at(1),
      seq: 1,
    });
    await agent.update({ input: 'final input', createdAt: at(3) });
    const records = await agent.searchArchive({ topicId: turnId });
    expect(records.map((r) => [r.seq, r.content])).toEqual([
      [1, 'final input'],
      [3, 'second draft'],
    ]);
    expect(await rows(db, "SELECT count(*) AS n FROM search_docs WHERE layer = 'archive'")).toEqual([
      { n: 2 },
    ]);
    await db.close();
  });

  it('keeps an update profile merge: a field left out keeps its value', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    await agent.updateProfile({
      name: 'Ada',
      role: 'engineer',
      personality: 'calm',
      preferences: { tz: 'UTC', editor: 'vim' },
    });
    const after = await agent.updateProfile({ preferences: { editor: 'emacs', tz: null, lang: 'en' } });
    expect(after).toMatchObject({
      name: 'Ada',
      role: 'engineer',
      personality: 'calm',
      preferences: { editor: 'emacs', lang: 'en' },
      agentType: 'primary',
    });
    const cleared = await agent.updateProfile({ personality: '' });
    expect(cleared.personality).toBe('');
    expect(cleared.role).toBe('engineer');
    expect(await rows(db, "SELECT ref FROM search_docs WHERE layer = 'profile'")).toEqual([
      { ref: String(agent.info().id) },
    ]);
    await db.close();
  });
  it('refuses to close a turn another handle closed (and replaced) while keywords were distilled', async () => {
    const { db, path, summarizer } = await openTemp();
    const other = await openMemory(path, { summarizer: new MockSummarizer() });
    const { turnId } = await db.primary().search();
    const distill = summarizer.distillKeywords.bind(summarizer);
    summarizer.distillKeywords = async (utterances) => {
      await other.primary().update({ output: 'closed elsewhere', createdAt: at(2) });
      await other.primary().search();
      return distill(utterances);
    };
    await expect(db.primary().update({ input: 'mine', createdAt: at(1) })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining(turnId),
    });
    // Nothing of the refused close was written.
    expect((await db.primary().searchArchive({ topicId: turnId })).map((r) => r.content)).toEqual([
      'closed elsewhere',
    ]);
    expect(await conversationProblems(db)).toEqual([]);
    await other.close();
    await db.close();
  });
});
