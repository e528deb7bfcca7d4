import { expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/index.js';
import { TestClock, fillScene } from '../dream/helpers.js';
import { describeEngines } from '../helpers/engines.js';

/** What an agent can read of its conversation memory, in one comparable value. */
async function readable(db: MemoryDB, sceneId: string): Promise<unknown> {
  const agent = db.primary();
  const context = await agent.sceneContext(sceneId);
  return {
    topics: context.topics.map((topic) => ({
      depth: topic.depth,
      kind: topic.kind,
      keywords: topic.keywords,
    })),
    archive: (await agent.searchArchive({ sceneId })).map((record) => [record.role, record.content]),
  };
}

describeEngines('cognitive memory, end to end', (engine) => {
  it('opens turns, archives records, recalls them, and keeps them across a reopen', async () => {
    const path = engine.memoryPath();
    const clock = new TestClock();
    const db = await openMemory(path, { clock, dream: { auto: false } });
    const agent = db.primary();
    const opened = await agent.search({ newScene: true });
    await agent.appendArchive({
      kind: 'utterance',
      role: 'user',
      content: 'The replica lag alert fires at 30 seconds.',
    });
    await agent.appendArchive({ kind: 'event', eventType: 'tool', content: 'pg_stat_replication: lag 41s' });
    clock.advance(60_000);
    const closed = await agent.update({
      input: 'What is the replica lag alert?',
      output: 'It fires at 30 seconds.',
    });
    expect(closed.topic.id).toBe(opened.turnId);
    const found = await agent.recall('replica lag alert threshold', { budgetTokens: 500 });
    expect(found.hits.length).toBeGreaterThan(0);
    expect(found.context).toContain('30 seconds');
    const records = await agent.searchArchive({ text: 'lag' });
    expect(records.map((record) => record.content)).toContain('The replica lag alert fires at 30 seconds.');
    await db.close();
    const again = await openMemory(path, { dream: { auto: false } });
    expect((await again.primary().searchArchive({ contains: 'pg_stat' })).length).toBe(1);
    await again.close();
  });

  it('runs a Dream pass and undoes it, putting back what the agent reads', async () => {
    const clock = new TestClock();
    const db = await openMemory(engine.memoryPath(), { clock, durability: 'normal', dream: { auto: false } });
    const agent = db.primary();
    const sceneId = await fillScene(agent, clock, { threads: 9, perThread: 3 });
    const before = await readable(db, sceneId);
    const report = await agent.dream();
    const compress = report.stages.find((stage) => stage.name === 'compress');
    expect(compress?.changed.fusedTopics).toBeGreaterThan(0);
    expect(await readable(db, sceneId)).not.toEqual(before);
    const undone = await agent.undoDream(report.id);
    expect(undone.fusedTopicsRemoved).toBe(compress?.changed.fusedTopics);
    expect(await readable(db, sceneId)).toEqual(before);
    await expect(agent.undoDream(report.id)).rejects.toMatchObject({ code: 'CONFLICT' });
    await db.close();
  });
});
