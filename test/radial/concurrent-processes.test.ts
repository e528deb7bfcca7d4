import { expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { startChild } from '../helpers/child.js';
import { describeEngines } from '../helpers/engines.js';

describeEngines('radial commits from several processes', (engine) => {
  it('serialise on one line without losing any; positions stay 1..n', async () => {
    const path = engine.memoryPath();
    const setup = await openMemory(path);
    await setup.primary().radial.createLine('shared');
    await setup.close();
    const children = ['a', 'b', 'c'].map((prefix) =>
      startChild('radial-commit.mjs', [path, 'shared', prefix, '25']),
    );
    const exits = await Promise.all(children.map((child) => child.exited));
    for (const exit of exits) expect(exit.code).toBe(0);
    const acknowledged = children.flatMap((child) =>
      child.lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4)),
    );
    expect(acknowledged).toHaveLength(75);
    const db = await openMemory(path);
    const history = await db.primary().radial.getLineHistory('shared');
    expect(history.map((entry) => entry.position)).toEqual(Array.from({ length: 75 }, (_, i) => i + 1));
    expect(new Set(history.map((entry) => entry.nodeId))).toEqual(new Set(acknowledged));
    for (const child of children) {
      const mine = child.lines.filter((line) => line.startsWith('ack ')).map((line) => line.slice(4));
      const order = history.filter((entry) => mine.includes(entry.nodeId)).map((entry) => entry.nodeId);
      expect(order).toEqual([...mine].reverse());
    }
    await db.close();
  });
});
