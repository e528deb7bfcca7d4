/**
 * Concurrency: many async callers on one agent, several agents at once, several processes on
 * one memory (a file, or a PostgreSQL memory: the same suite on both engines), and a second process asking for the file exclusively. No lost update, no deadlock
 * (every phase runs under a timeout), and a refused open is `LOCKED` at once.
 */
import { beforeAll, expect, it } from 'vitest';
import { median } from '../../bench/harness.js';
import { HedgehopError, openMemory, type Agent } from '../../src/index.js';
import { describeEngines } from '../helpers/engines.js';
import { kill, recordFigure, requireBuild, startChild } from './helpers.js';

async function positionsAreContiguous(agent: Agent, lineId: string): Promise<number> {
  const history = await agent.radial.getLineHistory(lineId);
  const positions = history.map((entry) => entry.position).sort((a, b) => a - b);
  expect(positions).toEqual(positions.map((_, i) => i + 1));
  return history.length;
}

describeEngines('concurrency', (engine) => {
  beforeAll(() => requireBuild());

  it('many async callers on one agent: every write lands once, nothing is lost, the file checks', async () => {
    const db = await openMemory(engine.memoryPath());
    const agent = db.primary();
    await agent.radial.createLine('busy', 'Busy line', 'Many callers at once');
    const memory = db.knowledge.memoryServer();
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      calls.push(
        agent.radial.completeTask({
          lineId: 'busy',
          taskLabel: `task ${i}`,
          fullContext: `context ${i}`,
          conversationSummary: `summary ${i}`,
        }),
      );
      calls.push(
        memory.createEntities([{ name: `entity ${i}`, entityType: 'thing', observations: [`fact ${i}`] }]),
      );
      calls.push(agent.recall(`task ${i}`, { budgetTokens: 200 }));
      if (i % 2 === 0) calls.push(agent.updateProfile({ preferences: { [`key${i}`]: `value ${i}` } }));
      if (i % 4 === 0) {
        calls.push(
          db.knowledge.import({
            graph: 'many',
            nodes: Array.from({ length: 5 }, (_, j) => ({ title: `node ${i}-${j}` })),
          }),
        );
      }
    }
    const settled = await Promise.allSettled(calls);
    const failed = settled.filter((s) => s.status === 'rejected');
    expect(failed).toEqual([]);

    const turn = await agent.search({ newScene: true });
    const slots = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        agent.appendArchive({
          kind: 'utterance',
          role: 'user',
          content: `concurrent ${i}`,
          createdAt: Date.now(),
        }),
      ),
    );
    await agent.update({ input: 'end', output: 'ok', createdAt: Date.now() });
    expect(new Set(slots.map((slot) => slot.seq)).size).toBe(200);
    const records = await agent.searchArchive({ topicId: turn.turnId, limit: 1000 });
    expect(records.filter((r) => r.content.startsWith('concurrent ')).length).toBe(200);

    expect(await positionsAreContiguous(agent, 'busy')).toBe(100);
    expect((await memory.readGraph()).entities.length).toBe(100);
    const graph = await db.knowledge.getByLabel('many');
    expect(graph?.nodeCount).toBe(125);
    expect(Object.keys((await agent.getProfile()).preferences).length).toBe(50);
    await db.check();
    await db.close();
    recordFigure({
      suite: 'concurrency',
      case: 'one agent, 575 concurrent calls + 200 concurrent appends',
      lost: 0,
      failed: failed.length,
    });
  }, 120_000);

  it('several agents in parallel keep their own records, all of them', async () => {
    // No background Dream: 25 turns pass its threshold, and a pass finishing before the count
    // below (as it can on PostgreSQL) adds its fused topic's transcript record to the agent's archive.
    const db = await openMemory(engine.memoryPath(), { dream: { auto: false } });
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const agents = await Promise.all(names.map((name) => db.agent(name)));
    await Promise.all(
      agents.map(async (agent) => {
        for (let t = 0; t < 25; t++) {
          await agent.search(t === 0 ? { newScene: true } : {});
          await agent.appendArchive({
            kind: 'event',
            eventType: 'tool_call',
            content: `${agent.name} call ${t}`,
            createdAt: Date.now(),
          });
          await agent.update({
            input: `${agent.name} asks ${t}`,
            output: `${agent.name} answers ${t}`,
            createdAt: Date.now(),
          });
          await agent.radial.getOrCreateLine('work', 'Work', 'Per-agent line');
          await agent.radial.completeTask({
            lineId: 'work',
            taskLabel: `${agent.name} task ${t}`,
            fullContext: 'x',
            conversationSummary: 'y',
          });
        }
      }),
    );
    for (const agent of agents) {
      const records = await agent.searchArchive({ limit: 10_000 });
      expect(records.length).toBe(75);
      expect(records.every((r) => r.content.startsWith(`${agent.name} `))).toBe(true);
      expect(await positionsAreContiguous(agent, 'work')).toBe(25);
    }
    await db.check();
    await db.close();
    recordFigure({
      suite: 'concurrency',
      case: '6 agents × 25 turns + 25 tasks in parallel',
      lost: 0,
      crossAgentLeaks: 0,
    });
  }, 120_000);

  it('three processes writing one file at once: no lost update, no deadlock, positions stay 1..n', async () => {
    const file = engine.memoryPath();
    const created = await openMemory(file);
    await created.close();
    const writers = ['p0', 'p1', 'p2'].map((name) => startChild('concurrent-writer.mjs', [file, name, '50']));
    await Promise.all(writers.map((child) => child.waitFor((line) => line === 'done', 120_000)));
    await Promise.all(writers.map((child) => child.exited));
    const acks = writers.flatMap((child) =>
      child.lines.filter((line) => line.startsWith('ack ')).map((line) => line.split(' ')),
    );
    const busy = writers.flatMap((child) => child.lines.filter((line) => line.startsWith('busy ')));
    const db = await openMemory(file);
    await db.check();
    const agent = db.primary();
    const entities = new Set(
      (await db.knowledge.memoryServer({ graph: 'shared' }).readGraph()).entities.map((e) => e.name),
    );
    const preferences = (await agent.getProfile()).preferences;
    const tasks = new Set((await agent.radial.getLineHistory('shared')).map((entry) => entry.taskLabel));
    const lost = acks.filter(([, kind, id]) =>
      kind === 'entity'
        ? !entities.has(id as string)
        : kind === 'preference'
          ? !((id as string) in preferences)
          : !tasks.has(id as string),
    );
    expect(lost).toEqual([]);
    const taskAcks = acks.filter(([, kind]) => kind === 'task').length;
    expect(await positionsAreContiguous(agent, 'shared')).toBe(taskAcks);
    await db.close();
    recordFigure({
      suite: 'concurrency',
      case: '3 processes × 50 × (entity, preference, task) on one file',
      acknowledged: acks.length,
      lost: lost.length,
      busy: busy.length,
    });
  }, 180_000);

  it('a second process asking for the file exclusively gets LOCKED at once, and so does a shared open of an exclusively held file', async () => {
    const file = engine.memoryPath();
    const timings: number[] = [];
    for (const [held, asked] of [
      ['shared', 'exclusive'],
      ['exclusive', 'shared'],
      ['exclusive', 'exclusive'],
    ] as const) {
      const holder = startChild('hold.mjs', [file, held]);
      await holder.waitFor((line) => line === 'open');
      for (let i = 0; i < 10; i++) {
        const started = performance.now();
        const error = await openMemory(file, { mode: asked, busyTimeoutMs: 10_000 }).then(
          async (db) => {
            await db.close();
            return undefined;
          },
          (e: unknown) => e,
        );
        timings.push(performance.now() - started);
        expect(
          HedgehopError.isInstance(error) && error.code === 'LOCKED',
          `${asked} open of a ${held} file`,
        ).toBe(true);
      }
      await kill(holder);
    }
    const owner = await openMemory(file, { mode: 'exclusive' });
    await owner.close();
    recordFigure({
      suite: 'concurrency',
      case: 'LOCKED for a refused open (30 attempts)',
      medianMs: median(timings),
      maxMs: Math.max(...timings),
    });
    expect(median(timings)).toBeLessThan(100);
  }, 60_000);
});
