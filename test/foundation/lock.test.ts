import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HedgehopError, openMemory } from '../../src/index.js';
import { startChild } from '../helpers/child.js';
import { tempFile } from '../helpers/temp.js';

async function expectLocked(path: string, mode: 'shared' | 'exclusive'): Promise<HedgehopError> {
  const started = performance.now();
  const error = await openMemory(path, { mode, busyTimeoutMs: 10_000 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  // A lock conflict is reported at once, not after the busy timeout.
  expect(performance.now() - started).toBeLessThan(2_000);
  expect(HedgehopError.isInstance(error)).toBe(true);
  expect((error as HedgehopError).code).toBe('LOCKED');
  expect((error as HedgehopError).message).toContain(path);
  return error as HedgehopError;
}

describe('file locking', () => {
  it('refuses a second open in this process while the file is open exclusively', async () => {
    const path = tempFile();
    const db = await openMemory(path, { mode: 'exclusive' });
    await expectLocked(path, 'exclusive');
    await expectLocked(path, 'shared');
    await db.close();
    const again = await openMemory(path, { mode: 'exclusive' });
    await again.close();
  });

  it('lets many shared opens coexist and refuses an exclusive open among them', async () => {
    const path = tempFile();
    const a = await openMemory(path);
    const b = await openMemory(path, { mode: 'shared' });
    await expectLocked(path, 'exclusive');
    expect((await b.agents()).map((agent) => agent.name)).toEqual(['primary']);
    await a.close();
    await expectLocked(path, 'exclusive');
    await b.close();
    const owner = await openMemory(path, { mode: 'exclusive' });
    await owner.close();
  });

  it('refuses an open while another process holds the file, and recovers after kill -9', async () => {
    const path = tempFile();
    const child = startChild('hold-open.mjs', [path, 'exclusive']);
    await child.waitFor((line) => line === 'open');
    await expectLocked(path, 'shared');
    await expectLocked(path, 'exclusive');
    child.process.kill('SIGKILL');
    await child.exited;
    const db = await openMemory(path, { mode: 'exclusive' });
    await db.check();
    await db.close();
  });

  it('refuses an exclusive open while another process has the file open shared', async () => {
    const path = tempFile();
    const child = startChild('hold-open.mjs', [path, 'shared']);
    await child.waitFor((line) => line === 'open');
    await expectLocked(path, 'exclusive');
    const shared = await openMemory(path);
    await shared.close();
    child.process.kill('SIGKILL');
    await child.exited;
    const owner = await openMemory(path, { mode: 'exclusive' });
    await owner.close();
  });

  it('does not create the file when the lock is refused for a new path', async () => {
    const path = tempFile();
    const db = await openMemory(path, { mode: 'exclusive' });
    await db.close();
    expect(existsSync(path)).toBe(true);
  });
});
