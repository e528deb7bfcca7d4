import { expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { describeEngines } from '../helpers/engines.js';
import { CORPUS } from '../helpers/radial.js';

describeEngines('one memory, end to end', (engine) => {
  it('creates lines, commits tasks and restores verbatim, then reopens', async () => {
    const path = engine.memoryPath();
    const db = await openMemory(path);
    const radial = db.primary().radial;
    for (const id of new Set(CORPUS.map((task) => task.lineId))) await radial.createLine(id);
    for (const task of CORPUS) await radial.completeTask(task);
    const lines = await radial.listLines();
    expect(lines.length).toBeGreaterThan(1);
    // Position 1 is a line's newest task.
    const first = CORPUS.filter((task) => task.lineId === CORPUS[0]?.lineId).at(-1);
    if (!first) throw new Error('empty corpus');
    const node = await radial.getNodeOrThrow(first.lineId, 1);
    expect(node.taskLabel).toBe(first.taskLabel);
    expect(await radial.loadFullState(node.id)).toContain(first.fullContext);
    await db.close();
    const again = await openMemory(path);
    expect((await again.primary().radial.listLines()).map((l) => l.id)).toEqual(lines.map((l) => l.id));
    await again.close();
  });

  it('navigates to the task a query names', async () => {
    const db = await openMemory(engine.memoryPath());
    const radial = db.primary().radial;
    for (const id of new Set(CORPUS.map((task) => task.lineId))) await radial.createLine(id);
    for (const task of CORPUS) await radial.completeTask(task);
    const session = await radial.navigate('JWT refresh endpoint');
    expect(session).toBeDefined();
    await db.close();
  });
});
