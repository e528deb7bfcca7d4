import { closeSync, openSync, readFileSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HedgehopError, openMemory } from '../../src/index.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { tempFile } from '../helpers/temp.js';

async function makeFile(): Promise<string> {
  const path = tempFile();
  const db = await openMemory(path);
  for (let i = 0; i < 400; i++) await db.agent(`agent-${i}-${'x'.repeat(100)}`);
  await db.checkpoint();
  await db.close();
  return path;
}

/** Opens and checks the file; the only acceptable failure is a CORRUPT HedgehopError. */
async function openAndCheck(path: string): Promise<'clean' | 'corrupt'> {
  try {
    const db = await openMemory(path);
    try {
      await db.check();
      await db.agents();
      return 'clean';
    } finally {
      await db.close();
    }
  } catch (error) {
    expect(HedgehopError.isInstance(error), `unexpected error: ${String(error)}`).toBe(true);
    expect((error as HedgehopError).code).toBe('CORRUPT');
    return 'corrupt';
  }
}

describe('corrupt files', () => {
  it('reports bytes overwritten in the middle of the file as CORRUPT', async () => {
    const path = await makeFile();
    const size = statSync(path).size;
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(8192, 0xa5), 0, 8192, Math.floor(size / 2 / 4096) * 4096);
    closeSync(fd);
    expect(await openAndCheck(path)).toBe('corrupt');
  });

  it('reports a truncated file as CORRUPT', async () => {
    const path = await makeFile();
    truncateSync(path, Math.floor(statSync(path).size / 3));
    expect(await openAndCheck(path)).toBe('corrupt');
  });

  it('reports a file whose header is garbage as CORRUPT', async () => {
    const path = await makeFile();
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from('this is not an sqlite header at all'), 0, 32, 0);
    closeSync(fd);
    expect(await openAndCheck(path)).toBe('corrupt');
  });

  it('reports a damaged sqlite_master (a column renamed by one byte) as CORRUPT, in check and at every call', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    await db.primary().radial.createLine('auth', 'Auth', 'Login');
    await db.primary().radial.completeTask({
      lineId: 'auth',
      taskLabel: 'Add login',
      fullContext: 'login works',
      conversationSummary: 'done',
    });
    await db.checkpoint();
    await db.close();
    // Flip one byte of the column name inside the CREATE TABLE text SQLite keeps in sqlite_master.
    // (Every copy of the text: page 1 may keep a stale one in its free space after a split.)
    const bytes = readFileSync(path);
    let flipped = 0;
    for (let at = bytes.indexOf('s_detailed'); at >= 0; at = bytes.indexOf('s_detailed', at + 1)) {
      bytes[at + 2] = '$'.charCodeAt(0);
      flipped++;
    }
    expect(flipped).toBeGreaterThan(0);
    writeFileSync(path, bytes);

    const checked = await runCliInProcess(['check', '--file', path]);
    expect(checked.status, checked.stderr).toBe(4);
    expect(checked.stderr).toMatch(/CORRUPT: .*schema: table nodes differs from the expected definition/);
    for (const args of [
      ['recall', 'login'],
      ['history', 'auth'],
      ['load', '--line', 'auth'],
    ]) {
      const run = await runCliInProcess([...args, '--file', path]);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(4);
      expect(run.stderr).toContain('CORRUPT');
    }
  });
});
