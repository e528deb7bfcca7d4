import { closeSync, openSync, statSync, truncateSync, writeSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HedgehopError, openMemory } from '../../src/index.js';
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
});
