import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { HedgehopError } from '../core/errors.js';
import type { StoreTx } from './seam.js';
import { Store } from './store.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function filePath(): string {
  dir ??= mkdtempSync(join(tmpdir(), 'hedgehop-seam-'));
  return join(dir, 'm.db');
}

function openStore(path = filePath()): Store {
  return Store.open(path, { durability: 'normal', mode: 'shared', busyTimeoutMs: 2000 });
}

/** Yields to the event loop a few times, so other callers get to run in between. */
async function yieldSome(times: number): Promise<void> {
  for (let i = 0; i < times; i++) await (i % 2 === 0 ? nextTurn() : Promise.resolve());
}

async function counter(tx: StoreTx): Promise<number> {
  return Number((await tx.agents.getMeta('test.counter')) ?? '0');
}

/** One writer: reads the counter, awaits, bumps it and adds a line named after the new value. */
async function bump(store: Store, agentId: number, i: number): Promise<void> {
  await store.write('bump', async (tx) => {
    const seen = await counter(tx);
    await yieldSome(1 + (i % 3));
    await tx.agents.setMeta('test.counter', String(seen + 1));
    await yieldSome(i % 2);
    await tx.radial.createLine(agentId, {
      id: `line-${seen + 1}`,
      name: `line ${i}`,
      description: '',
      createdAt: i,
      extra: '{}',
    });
  });
}

/** One reader: the counter and the number of lines, read with awaits in between, must agree. */
async function look(store: Store, agentId: number): Promise<{ counter: number; lines: number }> {
  return store.read('look', async (tx) => {
    const before = await counter(tx);
    await yieldSome(2);
    const lines = (await tx.radial.listLines(agentId)).length;
    return { counter: before, lines };
  });
}

async function primaryId(store: Store): Promise<number> {
  return store.write('primary', async (tx) => (await tx.agents.ensurePrimary('main', 0)).id);
}

describe('Store seam (async transactions over SQLite)', () => {
  it('keeps every write of many concurrent async writers, and readers never see half a write', async () => {
    const store = openStore();
    const agentId = await primaryId(store);
    const work: Promise<unknown>[] = [];
    const looks: Promise<{ counter: number; lines: number }>[] = [];
    for (let i = 0; i < 60; i++) {
      work.push(bump(store, agentId, i));
      if (i % 3 === 0) looks.push(look(store, agentId));
    }
    await Promise.all(work);
    for (const seen of await Promise.all(looks)) expect(seen.lines).toBe(seen.counter);
    const final = await look(store, agentId);
    expect(final).toEqual({ counter: 60, lines: 60 });
    await store.close();
  });

  it('serializes two connections to one file in this process (no lock wait that stalls the loop)', async () => {
    const path = filePath();
    const a = openStore(path);
    const b = openStore(path);
    const agentId = await primaryId(a);
    await Promise.all(Array.from({ length: 30 }, (_, i) => bump(i % 2 === 0 ? a : b, agentId, i)));
    expect(await look(b, agentId)).toEqual({ counter: 30, lines: 30 });
    await a.close();
    await b.close();
  });

  it('rolls back everything of a callback that throws after an await, and reports its error', async () => {
    const store = openStore();
    const agentId = await primaryId(store);
    const failing = store.write('fails', async (tx) => {
      await tx.agents.setMeta('test.counter', '41');
      await yieldSome(2);
      await tx.radial.createLine(agentId, {
        id: 'doomed',
        name: 'd',
        description: '',
        createdAt: 1,
        extra: '{}',
      });
      throw new HedgehopError('INVALID_INPUT', 'test: refused on purpose');
    });
    const concurrent = bump(store, agentId, 0);
    await expect(failing).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: 'test: refused on purpose',
    });
    await concurrent;
    expect(await look(store, agentId)).toEqual({ counter: 1, lines: 1 });
    expect(await store.read('get', (tx) => tx.radial.getLine(agentId, 'doomed'))).toBeUndefined();
    await store.close();
  });

  it('refuses a write inside a read, and a transaction used after its callback', async () => {
    const store = openStore();
    await primaryId(store);
    await expect(store.read('sneaky', (tx) => tx.agents.setMeta('test.counter', '9'))).rejects.toMatchObject({
      code: 'READ_ONLY',
    });
    let kept: StoreTx | undefined;
    await store.read('keep', (tx) => {
      kept = tx;
    });
    expect(() => kept?.agents).toThrow(/transaction has ended/);
    expect(await store.read('check', counter)).toBe(0);
    await store.close();
  });

  it('lets queued transactions finish before close, and refuses new ones after it', async () => {
    const store = openStore();
    const agentId = await primaryId(store);
    const queued = [bump(store, agentId, 0), bump(store, agentId, 1)];
    const closing = store.close();
    await Promise.all(queued);
    await closing;
    await expect(store.read('late', counter)).rejects.toMatchObject({ code: 'CLOSED' });
    const again = openStore(store.path);
    expect(await look(again, agentId)).toEqual({ counter: 2, lines: 2 });
    await again.close();
  });
});
