import { expect, it } from 'vitest';
import { memoryExists } from '../../src/api/memory-db.js';
import { openMemory, type Agent, type MemoryDB } from '../../src/index.js';
import { describeEngines, engineUnderTest, freshMemoryPath } from '../helpers/engines.js';
import { at, conversationProblems, expectRefusal, openTemp, rows } from './helpers.js';

const big = (bytes: number): string => 'x'.repeat(bytes);

async function withOpenTurn(): Promise<{
  db: MemoryDB;
  path: string;
  agent: Agent;
  turnId: string;
  sceneId: string;
}> {
  const { db, path } = await openTemp();
  const agent = db.primary();
  const { turnId, scene } = await agent.search();
  await agent.planNodeAdd(0, 'root');
  return { db, path, agent, turnId, sceneId: scene.id };
}

async function addGraph(db: MemoryDB, id: string): Promise<void> {
  await rows(
    db,
    'INSERT INTO kg_graphs (id, label, created_at, updated_at) VALUES (?, ?, 0, 0)',
    id,
    `label-${id}`,
  );
}

describeEngines('writes with no open turn', () => {
  it('are refused with INVALID_INPUT naming the reason, before the first search and after update', async () => {
    const { db, path } = await openTemp();
    const agent = db.primary();
    const reason = /no turn is open/;
    const record = { kind: 'utterance' as const, content: 'hi', createdAt: at(1) };
    await expectRefusal(path, () => agent.appendArchive(record), 'INVALID_INPUT', reason);
    await expectRefusal(path, () => agent.appendArchiveMany([record]), 'INVALID_INPUT', reason);
    await expectRefusal(path, () => agent.planNodeAdd(0, 'step'), 'INVALID_INPUT', reason);
    await expectRefusal(
      path,
      () => agent.planNodeUpdate({ seq: 1, status: 'done' }),
      'INVALID_INPUT',
      reason,
    );
    await expectRefusal(path, () => agent.planState(), 'INVALID_INPUT', reason);
    await expectRefusal(path, () => agent.update({ input: 'q', createdAt: at(1) }), 'INVALID_INPUT', reason);
    await agent.search();
    await agent.update({ input: 'q', createdAt: at(1) });
    await expectRefusal(path, () => agent.appendArchive(record), 'INVALID_INPUT', reason);
    await expectRefusal(
      path,
      () => agent.update({ output: 'again', createdAt: at(2) }),
      'INVALID_INPUT',
      reason,
    );
    await db.close();
  });
});

describeEngines('search refusals', () => {
  it('refuses bad combinations and unknown ids', async () => {
    const { db, path } = await openTemp();
    const agent = db.primary();
    await expectRefusal(
      path,
      () => agent.search({ newScene: true, sceneId: 'scn_x' }),
      'INVALID_INPUT',
      /newScene/,
    );
    await expectRefusal(path, () => agent.search({ sceneId: 'scn_missing' }), 'NOT_FOUND');
    await expectRefusal(path, () => agent.search({ newScene: true, knowledgeId: 'kg_missing' }), 'NOT_FOUND');
    await expectRefusal(path, () => agent.search({ sceneId: 5 } as never), 'INVALID_INPUT', /sceneId/);
    await expectRefusal(path, () => agent.search({ scene: 'x' } as never), 'INVALID_INPUT');
    await expectRefusal(
      path,
      () => agent.search({ newScene: true, sceneName: big(257) }),
      'INVALID_INPUT',
      /256/,
    );
    const { scene } = await agent.search();
    await agent.update({ input: 'q', createdAt: at(1) });
    await expectRefusal(path, () => agent.search({ knowledgeId: 'kg_1' }), 'INVALID_INPUT', /knowledgeId/);
    await expectRefusal(
      path,
      () => agent.search({ sceneId: scene.id, sceneName: 'n' }),
      'INVALID_INPUT',
      /sceneName/,
    );
    await db.close();
  });

  it('returns the open turn on a second search and writes nothing; another scene is a CONFLICT', async () => {
    const { db, path, agent, turnId, sceneId } = await withOpenTurn();
    const other = (await agent.listScenes()).length;
    expect(other).toBe(1);
    const before = await engineUnderTest().digest(path);
    const again = await agent.search();
    expect(again).toMatchObject({ turnId, resumed: true });
    expect(await agent.search({ sceneId })).toMatchObject({ turnId, resumed: true });
    expect(await engineUnderTest().digest(path)).toBe(before);
    await expectRefusal(path, () => agent.search({ newScene: true }), 'CONFLICT', /still open/);
    await db.close();
  });
});

describeEngines('archive refusals (limits are refused, never truncated)', () => {
  it('refuses every invalid record and leaves the file unchanged', async () => {
    const { db, path, agent } = await withOpenTurn();
    const u = { kind: 'utterance' as const, content: 'ok', createdAt: at(1) };
    const e = { kind: 'event' as const, eventType: 'tool_call', content: 'ok', createdAt: at(1) };
    const cases: [unknown, RegExp][] = [
      [{ ...u, content: big(65_537) }, /65537 bytes is over the utterance \(64 KiB\) limit of 65536 bytes/],
      [{ ...u, content: 'é'.repeat(32_769) }, /65538 bytes .* 65536/],
      [{ ...e, content: big(4096 - 'tool_call'.length + 1) }, /over the event \(4 KiB.*limit of 4096 bytes/],
      [{ ...u, createdAt: 1_700_000_000 }, /looks like seconds/],
      [{ ...u, createdAt: 1_700_000_000_000_000 }, /looks like microseconds/],
      [{ ...u, createdAt: 1.5 }, /whole number/],
      [{ ...u, createdAt: 0 }, /positive/],
      [{ ...u, createdAt: 'Jan 1 2024' }, /createdAt: 'Jan 1 2024' is not a time.*ISO 8601/],
      [{ ...u, content: '' }, /content: must not be empty/],
      [{ ...u, role: 'dream' }, /only by hedgehop/],
      [{ ...u, role: 'bot' }, /must be user, agent or system/],
      [{ ...u, speaker: big(257) }, /speaker: 257 bytes .* 256/],
      [{ ...u, speaker: '  ' }, /speaker: must not be empty/],
      [{ ...u, eventType: 'x' }, /only events have an eventType/],
      [{ ...u, planStep: 1 }, /only events belong to a plan step/],
      [{ ...e, eventType: undefined }, /an event needs an eventType/],
      [{ ...e, role: 'user' }, /events carry no role/],
      [{ ...e, speaker: 'Bob' }, /events carry no speaker/],
      [{ ...e, planStep: 9 }, /planStep: step 9 is not a step of the open turn/],
      [{ ...u, contentType: 'gif' }, /contentType: must be one of/],
      [{ ...u, kind: 'note' }, /kind: must be utterance or event/],
      [{ ...u, seq: 0 }, /seq: must be 1 or more/],
      [{ ...u, extra: 1 }, /appendArchive/],
    ];
    for (const [record, message] of cases) {
      await expectRefusal(path, () => agent.appendArchive(record as never), 'INVALID_INPUT', message);
    }
    await expectRefusal(path, () => agent.appendArchiveMany([]), 'INVALID_INPUT', /at least one/);
    await expectRefusal(
      path,
      () => agent.appendArchiveMany([u, u, { ...u, createdAt: 5e9 }]),
      'INVALID_INPUT',
      /appendArchiveMany\.2\.createdAt/,
    );
    await expectRefusal(
      path,
      () => agent.appendArchiveMany([u, { ...e, planStep: 7 }]),
      'INVALID_INPUT',
      /appendArchiveMany\.1\.planStep/,
    );
    expect(await agent.searchArchive()).toEqual([]);
    await db.close();
  });

  it('accepts records exactly at the limits', async () => {
    const { db, agent } = await withOpenTurn();
    await agent.appendArchive({ kind: 'utterance', content: big(65_536), createdAt: at(1) });
    await agent.appendArchive({ kind: 'event', eventType: 'e', content: big(4095), createdAt: 999_999_999 });
    await agent.appendArchive({ kind: 'utterance', speaker: 'é'.repeat(128), content: 'x', createdAt: 1e11 });
    expect(await agent.searchArchive()).toHaveLength(3);
    await db.close();
  });

  it('refuses bad archive queries', async () => {
    const { db, path, agent, sceneId } = await withOpenTurn();
    await expectRefusal(
      path,
      () => agent.searchArchive({ planStep: 1 }),
      'INVALID_INPUT',
      /planStep: needs topicId/,
    );
    await expectRefusal(
      path,
      () => agent.searchArchive({ from: at(2), to: at(1) }),
      'INVALID_INPUT',
      /to: must not be before/,
    );
    await expectRefusal(path, () => agent.searchArchive({ from: 1_700_000_000 }), 'INVALID_INPUT', /seconds/);
    await expectRefusal(path, () => agent.searchArchive({ topicId: sceneId }), 'INVALID_INPUT', /scene id/);
    await expectRefusal(path, () => agent.searchArchive({ limit: 0 }), 'INVALID_INPUT', /limit/);
    await expectRefusal(path, () => agent.searchArchive({ limit: 10_001 }), 'INVALID_INPUT', /limit/);
    await expectRefusal(path, () => agent.searchArchive({ kind: 'note' } as never), 'INVALID_INPUT', /kind/);
    await db.close();
  });
});

describeEngines('plan refusals', () => {
  it('refuses unknown steps and bad input', async () => {
    const { db, path, agent } = await withOpenTurn();
    await expectRefusal(path, () => agent.planNodeAdd(5, 'child'), 'NOT_FOUND', /step 5/);
    await expectRefusal(path, () => agent.planNodeAdd(-1, 'x'), 'INVALID_INPUT', /parentSeq/);
    await expectRefusal(
      path,
      () => agent.planNodeAdd(0, big(4097)),
      'INVALID_INPUT',
      /plan title limit of 4096/,
    );
    await expectRefusal(path, () => agent.planNodeUpdate({ seq: 2, status: 'done' }), 'NOT_FOUND', /step 2/);
    await expectRefusal(
      path,
      () => agent.planNodeUpdate({ seq: 1, status: 'skipped' } as never),
      'INVALID_INPUT',
      /status/,
    );
    await expectRefusal(path, () => agent.planNodeUpdate({ seq: 0, status: 'done' }), 'INVALID_INPUT', /seq/);
    await expectRefusal(
      path,
      () => agent.planNodeUpdate({ seq: 1, status: 'done', summary: big(65_537) }),
      'INVALID_INPUT',
      /plan summary limit/,
    );
    await db.close();
  });
});

describeEngines('update refusals', () => {
  it('refuses an empty close and over-limit fields, leaving the turn open', async () => {
    const { db, path, agent, turnId } = await withOpenTurn();
    await expectRefusal(
      path,
      () => agent.update({ createdAt: at(1) }),
      'INVALID_INPUT',
      /an input, an output or an outcome/,
    );
    await expectRefusal(
      path,
      () => agent.update({ input: '', output: '', createdAt: at(1) }),
      'INVALID_INPUT',
      /outcome/,
    );
    await expectRefusal(
      path,
      () => agent.update({ input: big(65_537), createdAt: at(1) }),
      'INVALID_INPUT',
      /input: .*65536/,
    );
    await expectRefusal(
      path,
      () => agent.update({ outcome: big(4096), createdAt: at(1) }),
      'INVALID_INPUT',
      /outcome: .*4096/,
    );
    await expectRefusal(
      path,
      () => agent.update({ input: 'q', createdAt: 1_700_000_000 }),
      'INVALID_INPUT',
      /seconds/,
    );
    expect((await agent.search()).turnId).toBe(turnId);
    await db.close();
  });
});

describeEngines('profile refusals', () => {
  it('refuses bad fields and writes nothing for a no-op', async () => {
    const { db, path } = await openTemp();
    const agent = db.primary();
    await expectRefusal(
      path,
      () => agent.updateProfile({ name: '  ' }),
      'INVALID_INPUT',
      /name: must not be empty/,
    );
    await expectRefusal(
      path,
      () => agent.updateProfile({ name: 'é'.repeat(129) }),
      'INVALID_INPUT',
      /258 bytes .* 256/,
    );
    await expectRefusal(
      path,
      () => agent.updateProfile({ role: big(4097) }),
      'INVALID_INPUT',
      /role: .*4096/,
    );
    await expectRefusal(path, () => agent.updateProfile({ mood: 'x' } as never), 'INVALID_INPUT');
    await expectRefusal(
      path,
      () => agent.updateProfile({ preferences: { '': 'x' } }),
      'INVALID_INPUT',
      /preferences/,
    );
    const many = Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`k${i}`, 'v']));
    await expectRefusal(
      path,
      () => agent.updateProfile({ preferences: many }),
      'INVALID_INPUT',
      /257 preferences/,
    );
    await agent.updateProfile({ name: 'Ada' });
    const before = await engineUnderTest().digest(path);
    await agent.updateProfile({ name: 'Ada' });
    await agent.updateProfile({});
    expect(await engineUnderTest().digest(path)).toBe(before);
    await db.close();
  });

  it('refuses a bad seed profile before the file is created', async () => {
    const path = freshMemoryPath();
    await expect(openMemory(path, { profile: { name: 'é'.repeat(200) } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      field: 'options.profile.name',
    });
    expect(await memoryExists(path)).toBe(false);
  });
});

describeEngines('scene administration refusals', () => {
  it('refuses unknown ids, bad names and conflicting anchors', async () => {
    const { db, path, agent, turnId, sceneId } = await withOpenTurn();
    await agent.update({ input: 'q', createdAt: at(1) });
    const second = (await agent.search({ newScene: true })).scene.id;
    await agent.update({ input: 'q2', createdAt: at(2) });
    await addGraph(db, 'kg_a');
    await addGraph(db, 'kg_b');
    await agent.updateScene(sceneId, { knowledgeId: 'kg_a' });
    await agent.updateScene(second, { knowledgeId: 'kg_b' });

    await expectRefusal(path, () => agent.updateScene('scn_missing', { name: 'n' }), 'NOT_FOUND');
    await expectRefusal(path, () => agent.updateScene(sceneId, { name: '' }), 'INVALID_INPUT', /name/);
    await expectRefusal(
      path,
      () => agent.updateScene(sceneId, {}),
      'INVALID_INPUT',
      /give a name or a knowledgeId/,
    );
    await expectRefusal(path, () => agent.updateScene(sceneId, { knowledgeId: 'kg_missing' }), 'NOT_FOUND');
    await expectRefusal(path, () => agent.updateScene(sceneId, { knowledgeId: 'kg_b' }), 'CONFLICT', /force/);
    await expectRefusal(path, () => agent.renameTopic('tpc_missing', 'n'), 'NOT_FOUND');
    await expectRefusal(path, () => agent.renameTopic(turnId, ''), 'INVALID_INPUT', /name/);
    await expectRefusal(path, () => agent.renameTopic(turnId, big(257)), 'INVALID_INPUT', /256/);
    await expectRefusal(path, () => agent.mergeScenes(sceneId, []), 'INVALID_INPUT', /at least one/);
    await expectRefusal(
      path,
      () => agent.mergeScenes(sceneId, [sceneId]),
      'INVALID_INPUT',
      /must not include/,
    );
    await expectRefusal(path, () => agent.mergeScenes(sceneId, [second, second]), 'INVALID_INPUT', /repeat/);
    await expectRefusal(path, () => agent.mergeScenes(sceneId, [second, 'scn_missing']), 'NOT_FOUND');
    await expectRefusal(path, () => agent.deleteScene('scn_missing'), 'NOT_FOUND');
    await expectRefusal(path, () => agent.deleteTopic('tpc_missing'), 'NOT_FOUND');
    await expectRefusal(path, () => agent.deleteScene(42 as never), 'INVALID_INPUT');
    await expectRefusal(path, () => agent.sceneContext('scn_missing'), 'NOT_FOUND');

    // Two different anchors among the merged scenes when the kept one has none.
    await agent.updateScene(sceneId, { knowledgeId: null });
    const third = (await agent.search({ newScene: true, knowledgeId: 'kg_a' })).scene.id;
    await agent.update({ input: 'q3', createdAt: at(3) });
    await expectRefusal(
      path,
      () => agent.mergeScenes(sceneId, [second, third]),
      'CONFLICT',
      /different knowledge graphs/,
    );
    expect(await conversationProblems(db)).toEqual([]);
    await db.close();
  });

  it('refuses every call after close with CLOSED', async () => {
    const { db } = await openTemp();
    const agent = db.primary();
    await db.close();
    await expect(agent.search()).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(agent.getProfile()).rejects.toMatchObject({ code: 'CLOSED' });
    await expect(agent.searchArchive()).rejects.toMatchObject({ code: 'CLOSED' });
  });
});
