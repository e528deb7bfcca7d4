import { expect, it } from 'vitest';
import { countTokens } from '../core/tokens.js';
import { describeEngines, memoryDigest } from '../../test/helpers/engines.js';
import { loadCorpus, openTempMemory, task } from '../../test/helpers/radial.js';
import { rejection } from '../../test/helpers/errors.js';

describeEngines('ContextWindowManager', () => {
  it('reset() returns the origin, in English, within the token budget', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const context = db.primary().context;
    expect(context.state.type).toBe('empty');
    const text = await context.reset();
    expect(text).toContain('Origin of project');
    expect(text).toContain('auth [Authentication]');
    // The agent reads it through whatever surface it has: no library function names.
    expect(text).toContain('load a task by topic, or by line and position');
    expect(text).not.toMatch(/\w\(/u);
    expect(text).not.toMatch(/[\u4e00-\u9fff]/u);
    expect(countTokens(text)).toBeLessThanOrEqual(200);
    expect(context.state).toEqual({ type: 'origin', lineId: undefined, nodeId: undefined });
    expect(db.primary().context).toBe(context);
    await db.close();
  });

  it('load() finds, drills down and restores the verbatim state', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const context = db.primary().context;
    const result = await context.load('How did we implement the login endpoint?', { lineId: 'auth' });
    expect(result.status).toBe('found');
    expect(result.node?.taskLabel).toBe('Implement JWT login endpoint');
    expect(result.level).toBe(1);
    expect(result.confidence).toBeGreaterThan(0.5);
    expect(result.canDrillDeeper).toBe(true);
    expect(context.state).toMatchObject({ type: 'node', lineId: 'auth', nodeId: result.node?.id });
    const deeper = await result.drillDeeper();
    expect(deeper.level).toBe(2);
    const full = await (await deeper.drillDeeper()).drillDeeper();
    expect(full.level).toBe(4);
    expect(full.canDrillDeeper).toBe(false);
    expect(await full.drillDeeper()).toBe(full);
    expect(await result.loadFullState()).toContain('Accepts {username, password}');
    const other = await result.next();
    expect(other?.node?.id).not.toBe(result.node?.id);
    expect(context.state.nodeId).toBe(other?.node?.id);
    await db.close();
  });

  it('a query that finds nothing, or an unknown line, is not_found with the origin and leaves the state alone', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const context = db.primary().context;
    await context.loadNode('rec', 1);
    const before = context.state;
    const nothing = await context.load('quantum chromodynamics');
    expect(nothing).toMatchObject({
      status: 'not_found',
      confidence: 0,
      node: undefined,
      canDrillDeeper: false,
    });
    expect(nothing.context).toContain('No task matches the query: quantum chromodynamics');
    expect(nothing.context).toContain('Origin of project');
    expect(await nothing.drillDeeper()).toBe(nothing);
    expect(await nothing.loadFullState()).toBe('');
    const ghost = await context.load('login', { lineId: 'ghost' });
    expect(ghost.status).toBe('not_found');
    expect(context.state).toBe(before);
    await db.close();
  });

  it('loadNode() loads by position; unknown line or position is not_found; bad arguments are INVALID_INPUT', async () => {
    const { db, path } = await openTempMemory();
    await loadCorpus(db);
    const context = db.primary().context;
    const found = await context.loadNode('auth', 3);
    expect(found).toMatchObject({ status: 'found', confidence: 1, level: 2 });
    expect(found.node?.taskLabel).toBe('Implement JWT login endpoint');
    expect(found.context).toContain('Loaded by position');
    expect((await context.loadNode('auth', 9)).status).toBe('not_found');
    expect((await context.loadNode('ghost', 1)).status).toBe('not_found');
    const before = await memoryDigest(path);
    expect(await rejection(context.loadNode('auth', 1, 7))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'level',
    });
    expect(await rejection(context.loadNode('auth', 0))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'position',
    });
    expect(await rejection(context.loadNode('', 1))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'lineId',
    });
    expect(await memoryDigest(path)).toBe(before);
    await db.close();
  });

  it('the detailed view lists each changed file and todo once, and a file its level left out in a section', async () => {
    const { db } = await openTempMemory();
    const context = db.primary().context;
    await db.primary().radial.getOrCreateLine('ops', 'Operations', 'Jobs and alerts');
    const files = ['src/export/run.ts', 'deploy/alerts/export.yaml'];
    await context.commit(
      task('ops', 'Stream the nightly export', {
        fileChanges: files.map((path) => ({ path, changeType: 'modified' as const })),
        todos: ["Backfill Tuesday's export"],
      }),
    );
    const detailed = await context.loadNode('ops', 1, 3);
    for (const needle of [...files, "Backfill Tuesday's export"])
      expect(detailed.context.split(needle).length - 1, needle).toBe(1);
    // Forty files do not fit the detailed level: the view's section lists them.
    const many = Array.from({ length: 40 }, (_, i) => `src/generated/module-${i}/index.ts`);
    await context.commit(
      task('ops', 'Regenerate the clients', {
        fileChanges: many.map((path) => ({ path, changeType: 'modified' as const })),
      }),
    );
    const crowded = await context.loadNode('ops', 1, 3);
    expect(crowded.context).toContain('--- changed files ---');
    expect(crowded.context).toContain('- [modified] src/generated/module-19/index.ts');
    await db.close();
  });

  it('commit() records the task and loads it; statusReport follows the node, not the position', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const context = db.primary().context;
    const node = await context.commit(task('auth', 'Session revocation list'));
    expect(context.state).toEqual({ type: 'node', lineId: 'auth', nodeId: node.id });
    expect(await context.statusReport()).toContain(
      '"Session revocation list" on line auth, now at position 1',
    );
    await db.primary().radial.completeTask(task('auth', 'Later task one'));
    await db.primary().radial.completeTask(task('auth', 'Later task two'));
    const report = await context.statusReport();
    expect(report).toContain('"Session revocation list" on line auth, now at position 3');
    expect(report).not.toContain('Later task two" on line');
    expect(report).toContain('Origin of project');
    const extended = await context.commit(
      { lineId: 'auth', fullContext: 'more', conversationSummary: 'more' },
      { extension: true },
    );
    expect(extended.taskLabel).toBe('Later task two');
    await db.close();
  });
});
