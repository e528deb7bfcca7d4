import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/index.js';
import { tempFile } from '../helpers/temp.js';
import { task } from '../helpers/radial.js';
import { startChild } from '../helpers/child.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Children import the built package. */
const built = existsSync(fileURLToPath(new URL('../../dist/src/index.js', import.meta.url)));

/** Lets this process's event loop turn `times` times (the writer's scheduled catch-up runs on the first). */
async function turns(times = 2): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise((resolve) => setImmediate(resolve));
}

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

describe('a commit leaves its recall-index rows out of its transaction (SQLite)', () => {
  it('writes no index rows with the node; a read of the same handle writes them before it searches', async () => {
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
  it("a read-only handle finds a task committed by another handle once the committer's event loop turns", async () => {
    const path = tempFile();
    const writer = await memory(path);
    await writer.primary().radial.createLine('ops');
    const reader = await memory(path, { readOnly: true });
    expect(await reader.primary().radial.navigate('where is the quorvex ledger?')).toBeUndefined();
    const node = await writer.primary().radial.completeTask(task('ops', 'Move the ledger', WORDS));
    // The writer neither reads, closes nor checkpoints: its event loop only turns.
    await turns();
    expect(indexedParts(path, node.id)).toEqual(['conversation', 'full', 'label']);
    expect((await reader.primary().radial.navigate('where is the quorvex ledger?'))?.node.id).toBe(node.id);
    // Commits back to back share one catch-up, and none is left behind.
    const more = [];
    for (let i = 0; i < 5; i++)
      more.push(
        await writer
          .primary()
          .radial.completeTask(
            task('ops', `Rotate key ${i}`, { fullContext: `Rotated the zelphar${i} signing key.` }),
          ),
      );
    await turns();
    for (const [i, done] of more.entries())
      expect((await reader.primary().radial.navigate(`zelphar${i} signing key`))?.node.id).toBe(done.id);
  });

  it("a read of another writable handle neither waits for a third one's write lock nor fails BUSY", async () => {
    const path = tempFile();
    const writer = await memory(path);
    await writer.primary().radial.createLine('ops');
    const other = await memory(path, { busyTimeoutMs: 200 });
    await other.primary().radial.navigate('anything at all');
    const node = await writer.primary().radial.completeTask(task('ops', 'Move the ledger', WORDS));
    const holder = new Database(path);
    try {
      holder.exec('BEGIN IMMEDIATE'); // a third handle's write transaction, open
      // The node's rows are pending and cannot be written now: the read goes on without them.
      await expect(other.primary().radial.navigate('where is the quorvex ledger?')).resolves.toBeUndefined();
      await expect(other.stats()).resolves.toBeDefined();
      holder.exec('ROLLBACK');
    } finally {
      holder.close();
    }
    // Once the lock is free, the next read writes them (the writer would too, on its own).
    expect((await other.primary().radial.navigate('where is the quorvex ledger?'))?.node.id).toBe(node.id);
  });

  it.skipIf(!built)(
    'a writer killed between its commit and the catch-up loses nothing: the next writable open writes the rows, without waiting for the lock',
    async () => {
      const path = tempFile();
      const child = startChild('commit-then-hang.mjs', [path, 'ops', 'Move the ledger', WORDS.fullContext]);
      let nodeId: string;
      try {
        nodeId = (await child.waitFor((line) => line.startsWith('committed '))).slice('committed '.length);
        // Killed before its event loop turned again: the rows were never written.
        expect(indexedParts(path, nodeId)).toEqual([]);
      } finally {
        child.process.kill('SIGKILL');
        await child.exited;
      }
      const holder = new Database(path);
      holder.exec('BEGIN IMMEDIATE'); // another process writing while the next handle opens
      try {
        const next = await memory(path, { busyTimeoutMs: 200 });
        const reader = await memory(path, { readOnly: true });
        // Nothing lost: the node is there; search finds it once its rows are written.
        expect((await reader.primary().radial.getLineHistory('ops')).map((entry) => entry.nodeId)).toEqual([
          nodeId,
        ]);
        expect(await next.primary().radial.navigate('where is the quorvex ledger?')).toBeUndefined();
        holder.exec('ROLLBACK');
        // The new handle neither reads nor closes: its own catch-up, retried once the lock is free, writes them.
        await vi.waitFor(
          () => expect(indexedParts(path, nodeId)).toEqual(['conversation', 'full', 'label']),
          {
            timeout: 10_000,
            interval: 10,
          },
        );
        expect((await reader.primary().radial.navigate('where is the quorvex ledger?'))?.node.id).toBe(
          nodeId,
        );
      } finally {
        holder.close();
      }
    },
  );
});
