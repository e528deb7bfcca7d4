import { expect, it } from 'vitest';
import { HedgehopError, openMemory } from '../../src/index.js';
import { startChild } from '../helpers/child.js';
import { describeEngines } from '../helpers/engines.js';

describeEngines('shared mode: no stale state between handles', (engine) => {
  it('two handles on one agent see the same open turn, and a close by one is seen by the other', async () => {
    const path = engine.memoryPath();
    const a = await openMemory(path);
    const b = await openMemory(path);
    const agentA = await a.agent('helper');
    const agentB = await b.agent('helper');
    const opened = await agentA.search();
    const seen = await agentB.search();
    expect(seen.turnId).toBe(opened.turnId);
    expect(seen.resumed).toBe(true);
    await agentB.update({ input: 'hello', output: 'hi there', createdAt: Date.now() });
    const error = await agentA
      .appendArchive({ kind: 'event', eventType: 'tool_call', content: 'late', createdAt: Date.now() })
      .catch((e: unknown) => e);
    expect(HedgehopError.isInstance(error) && error.code).toBe('INVALID_INPUT');
    const next = await agentA.search();
    expect(next.turnId).not.toBe(opened.turnId);
    expect(next.topics.map((topic) => topic.id)).toContain(opened.turnId);
    await a.close();
    await b.close();
  });

  it('radial lines, origin and recall reflect writes made through another handle', async () => {
    const path = engine.memoryPath();
    const a = await openMemory(path);
    const b = await openMemory(path);
    const originBefore = await b.primary().radial.getOriginContext();
    await a.primary().radial.createLine('infra', 'Infrastructure', 'Servers and deploys');
    await a.primary().radial.completeTask({
      lineId: 'infra',
      taskLabel: 'Move the database to a bigger volume',
      fullContext: 'We resized the volume to 200 GB and restarted Postgres.',
      conversationSummary: 'Resized the Postgres volume to 200 GB.',
    });
    expect((await b.primary().radial.listLines()).map((line) => line.id)).toEqual(['infra']);
    const originAfter = await b.primary().radial.getOriginContext();
    expect(originAfter).not.toBe(originBefore);
    expect(originAfter).toContain('infra');
    const recall = await b.primary().recall('postgres volume');
    expect(recall.hits.length).toBeGreaterThan(0);
    await a.close();
    await b.close();
  });

  it('a write that cannot get the lock within busyTimeoutMs fails with BUSY and changes nothing', async () => {
    const path = engine.memoryPath();
    const db = await openMemory(path, { busyTimeoutMs: 300 });
    await db.primary().radial.createLine('ops', 'Ops', 'Operations');
    await db.checkpoint();
    const holder = startChild('hold-write-lock.mjs', [path]);
    await holder.waitFor((line) => line === 'holding');
    const before = await engine.digest(path);
    const error = await db
      .primary()
      .radial.completeTask({
        lineId: 'ops',
        taskLabel: 'blocked',
        fullContext: 'x',
        conversationSummary: 'y',
      })
      .catch((e: unknown) => e);
    expect(HedgehopError.isInstance(error) && error.code).toBe('BUSY');
    expect(await engine.digest(path)).toBe(before);
    holder.process.kill('SIGKILL');
    await holder.exited;
    const node = await db.primary().radial.completeTask({
      lineId: 'ops',
      taskLabel: 'unblocked',
      fullContext: 'x',
      conversationSummary: 'y',
    });
    expect(node.position).toBe(1);
    expect((await db.primary().radial.getLineHistory('ops')).map((entry) => entry.taskLabel)).toEqual([
      'unblocked',
    ]);
    await db.close();
  });
});
