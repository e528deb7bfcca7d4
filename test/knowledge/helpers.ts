import { afterEach } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import type { OpenOptions } from '../../src/api/options.js';
import { freshMemoryPath } from '../helpers/engines.js';

const open: MemoryDB[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) if (!db.closed) await db.close();
});

/** A memory for a knowledge test (on the engine under test), closed after the test. */
export async function fresh(
  path = freshMemoryPath(),
  options: OpenOptions = {},
): Promise<{ db: MemoryDB; path: string }> {
  const db = await openMemory(path, options);
  open.push(db);
  return { db, path };
}
