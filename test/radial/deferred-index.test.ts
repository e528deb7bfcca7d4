import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/index.js';
import { tempFile } from '../helpers/temp.js';
import { task } from '../helpers/radial.js';

/** The parts of the node's rows in the recall index, read on a connection of its own. */
function indexedParts(path: string, nodeId: string): string[] {
  const raw = new Database(path, { readonly: true });
  try {
    return (
      raw
        .prepare("SELECT part FROM search_docs WHERE layer = 'radial' AND ref = ? ORDER BY part")
        .pluck()
        .all(nodeId) as string[]
    ).sort();
  } finally {
    raw.close();
  }
}

const open: MemoryDB[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) if (!db.closed) await db.close();
});

async function memory(path: string, options: Parameters<typeof openMemory>[1] = {}): Promise<MemoryDB> {
  const db = await openMemory(path, options);
  open.push(db);
  return db;
}

const WORDS = { fullContext: 'Moved the quorvex ledger to the new cluster.\nVerified every shard.' };

describe('a commit leaves its recall-index rows to the next read (SQLite)', () => {
  it('writes no index rows with the node; the next read writes them before it searches', async () => {
    const path = tempFile();
    const db = await memory(path, { durability: 'full' });
    await db.primary().radial.createLine('ops');
    const node = await db.primary().radial.completeTask(task('ops', 'Move the ledger', WORDS));
    expect(indexedParts(path, node.id)).toEqual([]);
    const session = await db.primary().radial.navigate('where is the quorvex ledger?');
    expect(session?.node.id).toBe(node.id);
    expect(indexedParts(path, node.id)).toEqual(['conversation', 'full', 'label']);
  });

  it('loses nothing in a crash before that read: the next open indexes the node', async () => {
    const path = tempFile();
    const db = await memory(path, { durability: 'full' });
    await db.primary().radial.createLine('ops');
    const node = await db.primary().radial.completeTask(task('ops', 'Move the ledger', WORDS));
    db.store.closeNow(); // the process dies: no close, no catch-up
    expect(indexedParts(path, node.id)).toEqual([]);
    const again = await memory(path);
    const session = await again.primary().radial.navigate('where is the quorvex ledger?');
    expect(session?.node.id).toBe(node.id);
    expect(indexedParts(path, node.id)).toEqual(['conversation', 'full', 'label']);
  });

  it('a read-only handle finds the node once the writer has caught up (or closed)', async () => {
    const path = tempFile();
    const writer = await memory(path);
    await writer.primary().radial.createLine('ops');
    const first = await writer.primary().radial.completeTask(task('ops', 'Move the ledger', WORDS));
    await writer.catchUpIndex();
    const reader = await memory(path, { readOnly: true });
    expect((await reader.primary().radial.navigate('where is the quorvex ledger?'))?.node.id).toBe(first.id);
    const second = await writer.primary().radial.completeTask(
      task('ops', 'Retire the old cluster', {
        fullContext: 'Retired the zelphar cluster after the ledger moved.',
      }),
    );
    await writer.close();
    expect((await reader.primary().radial.navigate('when was zelphar retired?'))?.node.id).toBe(second.id);
  });
});
