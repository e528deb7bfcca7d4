import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from './store.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function openStore(): Store {
  dir = mkdtempSync(join(tmpdir(), 'hedgehop-lease-'));
  return Store.open(join(dir, 'm.db'), { durability: 'normal', mode: 'shared', busyTimeoutMs: 1000 });
}

describe('LeasesRepo', () => {
  it('grants one owner at a time, renews for the holder, and lets an expired lease be taken over', async () => {
    const store = openStore();
    expect(store.direct.leases.acquire('dream:1', 'a', 1000, 10_000)).toBe(true);
    expect(store.direct.leases.acquire('dream:1', 'b', 1000, 10_500)).toBe(false);
    expect(store.direct.leases.acquire('dream:1', 'a', 1000, 10_600)).toBe(true);
    expect(store.direct.leases.holder('dream:1', 10_700)).toEqual({ owner: 'a', expiresAt: 11_600 });
    expect(store.direct.leases.acquire('dream:1', 'b', 1000, 11_600)).toBe(true);
    expect(store.direct.leases.holder('dream:1', 11_700)?.owner).toBe('b');
    store.direct.leases.release('dream:1', 'a');
    expect(store.direct.leases.holder('dream:1', 11_700)?.owner).toBe('b');
    store.direct.leases.release('dream:1', 'b');
    expect(store.direct.leases.holder('dream:1', 11_700)).toBeUndefined();
    await store.close();
  });
});
