import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { exportDump, importDump, openMemory } from '../../src/index.js';
import { describeEngines } from '../helpers/engines.js';
import { CORPUS } from '../helpers/radial.js';
import { tempDir } from '../helpers/temp.js';
import { hop } from '../helpers/cli.js';

async function dumpOf(path: string): Promise<string> {
  const db = await openMemory(path);
  const lines: string[] = [];
  await exportDump(db, (line) => lines.push(line));
  await db.close();
  return lines.join('');
}

describeEngines('moving a memory between engines', (engine) => {
  it('SQLite → this engine → SQLite gives byte-identical dumps, and the copy recalls alike', async () => {
    const dir = tempDir();
    const source = join(dir, 'source.db');
    const db = await openMemory(source);
    const radial = db.primary().radial;
    for (const id of new Set(CORPUS.map((task) => task.lineId))) await radial.createLine(id, `Line ${id}`);
    for (const task of CORPUS) await radial.completeTask(task);
    await (await db.agent('researcher')).radial.createLine('notes');
    await db.close();
    const first = await dumpOf(source);
    const middle = engine.memoryPath();
    const report = await importDump(middle, first.split('\n'));
    expect(report.rows).toBeGreaterThan(CORPUS.length);
    expect(await dumpOf(middle)).toBe(first);
    const back = join(dir, 'back.db');
    const moved = await openMemory(middle);
    await moved.compactTo(back);
    const hits = await moved.primary().radial.navigate('JWT refresh endpoint');
    await moved.close();
    expect(hits).toBeDefined();
    expect(await dumpOf(back)).toBe(first);
  });

  it('the CLI takes the memory as --file, a URL as well as a path: import, lines, export', async () => {
    const dir = tempDir();
    const source = join(dir, 'source.db');
    const db = await openMemory(source);
    await db.primary().radial.createLine('auth', 'Auth');
    await db.close();
    const dump = join(dir, 'in.jsonl');
    writeFileSync(dump, await dumpOf(source));
    const path = engine.memoryPath();
    expect(hop(['--file', path, 'import', dump]).status).toBe(0);
    const lines = hop(['--file', path, '--json', 'lines']);
    expect(lines.status).toBe(0);
    expect(lines.stdout).toContain('"auth"');
    const out = join(dir, 'out.jsonl');
    expect(hop(['--file', path, 'export', '--out', out]).status).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(dump, 'utf8'));
    // Reading a memory that does not exist is NOT_FOUND (exit 2) on both engines.
    expect(hop(['--file', engine.memoryPath(), 'lines']).status).toBe(2);
  });
});
