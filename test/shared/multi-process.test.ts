import { expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { seededRandom } from '../../bench/harness.js';
import { startChild, type Child } from '../helpers/child.js';
import { describeEngines } from '../helpers/engines.js';

const acks = (child: Child, kind: string): string[] =>
  child.lines
    .filter((line) => line.startsWith(`ack ${kind} `))
    .map((line) => line.slice(`ack ${kind} `.length));

async function expectConsistent(
  path: string,
  expected: { radial: string[]; turn: string[]; knowledge: string[] },
) {
  const db = await openMemory(path);
  await db.check();
  const radial = db.primary().radial;
  for (const line of await radial.listLines()) {
    const history = await radial.getLineHistory(line.id);
    expect(history.map((entry) => entry.position)).toEqual(history.map((_, index) => index + 1));
    expect(history.length).toBe(line.nodeCount);
  }
  for (const nodeId of expected.radial) expect(await radial.getNodeById(nodeId), nodeId).toBeDefined();
  const topicIds = new Set<string>();
  for (const info of await db.agents()) {
    const agent = await db.agent(info.name);
    for (const scene of await agent.listScenes()) {
      const context = await agent.sceneContext(scene.id);
      for (const topic of context.topics) topicIds.add(topic.id);
    }
  }
  for (const topicId of expected.turn) expect(topicIds.has(topicId), topicId).toBe(true);
  const titles = new Set<string>();
  for (const graph of await db.knowledge.list()) {
    for (const node of (await db.knowledge.getOrThrow(graph.id)).nodes) titles.add(node.title);
  }
  for (const title of expected.knowledge) expect(titles.has(title), title).toBe(true);
  await db.close();
}

describeEngines('shared mode: several processes on one memory', (engine) => {
  it('four processes writing at once lose nothing acknowledged', async () => {
    const path = engine.memoryPath();
    const children = [
      startChild('mixed-writer.mjs', [path, 'radial', 'a', '40']),
      startChild('mixed-writer.mjs', [path, 'radial', 'b', '40']),
      startChild('mixed-writer.mjs', [path, 'turn', 'c', '30']),
      startChild('mixed-writer.mjs', [path, 'knowledge', 'd', '30']),
    ];
    const exits = await Promise.all(children.map((child) => child.exited));
    expect(exits.map((exit) => exit.code)).toEqual([0, 0, 0, 0]);
    const expected = {
      radial: children.flatMap((child) => acks(child, 'radial')),
      turn: children.flatMap((child) => acks(child, 'turn')),
      knowledge: children.flatMap((child) => acks(child, 'knowledge')),
    };
    expect(expected.radial).toHaveLength(80);
    expect(expected.turn).toHaveLength(30);
    expect(expected.knowledge).toHaveLength(30);
    await expectConsistent(path, expected);
  }, 120_000);

  it('a reader process sees each commit of a writer within one poll', async () => {
    const path = engine.memoryPath();
    const db = await openMemory(path);
    const radial = db.primary().radial;
    await radial.createLine('watched', 'Watched', 'Commits a reader follows');
    const reader = startChild('follow-reader.mjs', [path, '25']);
    await reader.waitFor((line) => line.startsWith('poll '));
    for (let i = 1; i <= 10; i++) {
      await radial.completeTask({
        lineId: 'watched',
        taskLabel: `task ${i}`,
        fullContext: `context ${i}`,
        conversationSummary: `summary ${i}`,
      });
      // A poll under way during the commit may have read before it; the first poll that started
      // reading after the commit returned must see it (the clock is this machine's, shared).
      const committedAt = Date.now();
      const seen = await reader.waitFor((line) => Number(line.split(' ')[3]) > committedAt);
      const [, poll, nodes] = seen.split(' ');
      expect(Number(nodes), `commit ${i} not visible by poll ${poll}`).toBeGreaterThanOrEqual(i);
    }
    reader.process.kill('SIGKILL');
    await reader.exited;
    await db.close();
  }, 60_000);

  it('SIGKILL of one writer among several: the others carry on and nothing acknowledged is lost', async () => {
    const path = engine.memoryPath();
    const random = seededRandom(11);
    const expected = { radial: [] as string[], turn: [] as string[], knowledge: [] as string[] };
    for (let round = 0; round < 4; round++) {
      const victim = startChild('mixed-writer.mjs', [path, 'radial', `v${round}`, '0']);
      const survivors = [
        startChild('mixed-writer.mjs', [path, 'turn', `s${round}`, '15']),
        startChild('mixed-writer.mjs', [path, 'knowledge', `k${round}`, '15']),
      ];
      await victim.waitFor((line) => line.startsWith('ack '));
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 150)));
      victim.process.kill('SIGKILL');
      await victim.exited;
      const exits = await Promise.all(survivors.map((child) => child.exited));
      expect(exits.map((exit) => exit.code)).toEqual([0, 0]);
      expected.radial.push(...acks(victim, 'radial'));
      for (const child of survivors) {
        expected.turn.push(...acks(child, 'turn'));
        expected.knowledge.push(...acks(child, 'knowledge'));
      }
    }
    expect(expected.turn).toHaveLength(60);
    expect(expected.knowledge).toHaveLength(60);
    await expectConsistent(path, expected);
  }, 180_000);
});
