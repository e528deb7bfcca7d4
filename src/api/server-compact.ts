import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { HedgehopError } from '../core/errors.js';
import { importDump } from '../store/dump-repo.js';
import type { PgStore } from '../store/pg/pg-store.js';
import { Store } from '../store/store.js';

/**
 * `compactTo` of a memory on PostgreSQL: the way out of a server. Writes the memory, from one
 * snapshot, into a NEW SQLite file at `target` (its dump imported there, so the file holds the
 * same rows and exports the same dump), and reports the sizes.
 */
export async function compactServerStore(
  store: PgStore,
  target: string,
): Promise<{ path: string; bytesBefore: number; bytesAfter: number }> {
  const path = resolve(target);
  if (existsSync(path)) {
    throw new HedgehopError('INVALID_INPUT', `path: ${path} already exists; compactTo never overwrites`, {
      field: 'path',
    });
  }
  const bytesBefore = (await store.stats()).fileBytes;
  const lines: string[] = [];
  await store.exportDump((line) => lines.push(line.slice(0, -1)));
  const file = Store.open(path, { durability: 'full', mode: 'exclusive', busyTimeoutMs: 5000 });
  try {
    await file.exclusive('compactTo', () => importDump(file.engine, lines, {}));
  } catch (error) {
    await file.close();
    throw error;
  }
  await file.close();
  const after = Store.open(path, { durability: 'full', mode: 'shared', busyTimeoutMs: 5000, readOnly: true });
  try {
    return { path, bytesBefore, bytesAfter: (await after.stats()).fileBytes };
  } finally {
    await after.close();
  }
}
