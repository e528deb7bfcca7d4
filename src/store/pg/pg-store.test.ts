import { describe, expect, it } from 'vitest';
import { HedgehopError } from '../../core/errors.js';
import {
  freshPgUrl,
  pgAdmin,
  PG_SKIP_REASON,
  PG_TEST_URL,
  withMemory,
} from '../../../test/helpers/pg-memory.js';
import { SCHEMA_VERSION } from '../migrations/index.js';
import { PG_SCHEMA_VERSION } from './migrations.js';
import { PgStore, type PgStoreOptions } from './pg-store.js';
import { parsePgUrl } from './pg-url.js';

const OPTIONS: PgStoreOptions = { durability: 'full', mode: 'shared', busyTimeoutMs: 2000 };

async function codeOf(promise: PromiseLike<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (HedgehopError.isInstance(error)) return error.code;
    throw error;
  }
  throw new Error('expected a HedgehopError');
}

async function versionOf(url: string): Promise<number | undefined> {
  const schema = parsePgUrl(url).schema;
  const rows = await pgAdmin<{ version: number }>(`SELECT version FROM "${schema}".hedgehop_schema`).catch(
    () => [],
  );
  return rows[0]?.version;
}

it('counts schema versions in step with the SQLite engine (a dump moves between them)', () => {
  expect(PG_SCHEMA_VERSION).toBe(SCHEMA_VERSION);
});

describe.skipIf(!PG_TEST_URL)(`PgStore${PG_SKIP_REASON ? ` (${PG_SKIP_REASON})` : ''}`, () => {
  it('creates the memory schema on first open and reads back what a write committed', async () => {
    const url = freshPgUrl();
    const store = await PgStore.open(url, OPTIONS);
    expect(store.migratedFrom).toBe(0);
    const primary = await store.write('t', (tx) => tx.agents.ensurePrimary('primary', 1000));
    expect(primary).toEqual({ id: 1, name: 'primary', isPrimary: true, createdAt: 1000 });
    await store.write('t', (tx) => tx.agents.setMeta('k', 'v'));
    expect(await store.read('t', (tx) => tx.agents.getMeta('k'))).toBe('v');
    await store.close();
    const again = await PgStore.open(url, OPTIONS);
    expect(again.migratedFrom).toBe(PG_SCHEMA_VERSION);
    expect(await again.read('t', (tx) => tx.agents.list())).toEqual([primary]);
    await again.close();
  });

  it('keeps memories of one database apart (one schema each)', async () => {
    const [a, b] = [await PgStore.open(freshPgUrl(), OPTIONS), await PgStore.open(freshPgUrl(), OPTIONS)];
    await a.write('t', (tx) => tx.agents.ensure('only-in-a', 1));
    expect(await b.read('t', (tx) => tx.agents.byName('only-in-a'))).toBeUndefined();
    expect((await a.read('t', (tx) => tx.agents.byName('only-in-a')))?.name).toBe('only-in-a');
    await Promise.all([a.close(), b.close()]);
  });

  it('migrates once when four processes open a new memory at the same moment', async () => {
    const url = freshPgUrl();
    const stores = await Promise.all([1, 2, 3, 4].map(() => PgStore.open(url, OPTIONS)));
    expect(stores.map((s) => s.migratedFrom).sort()).toEqual([
      0,
      PG_SCHEMA_VERSION,
      PG_SCHEMA_VERSION,
      PG_SCHEMA_VERSION,
    ]);
    const primaries = await Promise.all(
      stores.map((s) => s.write('t', (tx) => tx.agents.ensurePrimary('p', 1))),
    );
    expect(new Set(primaries.map((p) => p.id)).size).toBe(1);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('refuses a memory written by a newer hedgehop with VERSION, and leaves it unchanged', async () => {
    const url = freshPgUrl();
    await (await PgStore.open(url, OPTIONS)).close();
    const schema = parsePgUrl(url).schema;
    await pgAdmin(`UPDATE "${schema}".hedgehop_schema SET version = 99`);
    expect(await codeOf(PgStore.open(url, OPTIONS))).toBe('VERSION');
    expect(await codeOf(PgStore.open(url, { ...OPTIONS, readOnly: true }))).toBe('VERSION');
    expect(await versionOf(url)).toBe(99);
  });

  it('refuses a schema of the same name that is not a hedgehop memory', async () => {
    const url = freshPgUrl();
    const schema = parsePgUrl(url).schema;
    await pgAdmin(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".theirs (x int)`);
    const error = await PgStore.open(url, OPTIONS).catch((e: unknown) => e as HedgehopError);
    expect(error).toMatchObject({ code: 'INVALID_INPUT', field: 'path' });
    expect(await pgAdmin(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1`, [schema])).toEqual(
      [{ n: 1 }],
    );
  });

  it('opens read-only only a memory that exists, and refuses every write on it', async () => {
    const url = freshPgUrl();
    expect(await codeOf(PgStore.open(url, { ...OPTIONS, readOnly: true }))).toBe('NOT_FOUND');
    expect(await versionOf(url)).toBeUndefined();
    await (await PgStore.open(url, OPTIONS)).close();
    const reader = await PgStore.open(url, { ...OPTIONS, readOnly: true });
    expect(await codeOf(reader.write('t', (tx) => tx.agents.setMeta('k', 'v')))).toBe('READ_ONLY');
    expect(await reader.read('t', (tx) => tx.agents.getMeta('k'))).toBeUndefined();
    await reader.close();
  });

  it('refuses a write inside a read (READ_ONLY) and rolls back a write whose callback throws', async () => {
    const store = await PgStore.open(freshPgUrl(), OPTIONS);
    expect(await codeOf(store.read('t', (tx) => tx.agents.setMeta('k', 'v')))).toBe('READ_ONLY');
    const failed = store.write('t', async (tx) => {
      await tx.agents.setMeta('k', 'half');
      throw new HedgehopError('CONFLICT', 'changed my mind');
    });
    expect(await codeOf(failed)).toBe('CONFLICT');
    expect(await store.read('t', (tx) => tx.agents.getMeta('k'))).toBeUndefined();
    await store.close();
  });

  it('a tx is valid only until its callback settles (CLOSED after)', async () => {
    const store = await PgStore.open(freshPgUrl(), OPTIONS);
    const kept = await store.read('t', (tx) => tx);
    expect(() => kept.agents).toThrow(expect.objectContaining({ code: 'CLOSED' }));
    const repo = await store.write('t', (tx) => tx.agents);
    expect(await codeOf(Promise.resolve().then(() => repo.setMeta('late', 'x')))).toBe('CLOSED');
    expect(await store.read('t', (tx) => tx.agents.getMeta('late'))).toBeUndefined();
    await store.close();
    expect(await codeOf(store.read('t', (tx) => tx.agents.list()))).toBe('CLOSED');
    expect(await codeOf(store.close())).toBe('CLOSED');
  });

  it('close waits for the transactions already running', async () => {
    const store = await PgStore.open(freshPgUrl(), OPTIONS);
    const slow = store.write('t', async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await tx.agents.setMeta('slow', 'done');
    });
    await store.close();
    await slow;
    const url = store.target;
    const again = await PgStore.open(withMemory(PG_TEST_URL as string, url.memory), OPTIONS);
    expect(await again.read('t', (tx) => tx.agents.getMeta('slow'))).toBe('done');
    await again.close();
  });

  it("mode 'exclusive' is a session advisory lock: LOCKED while held, free once closed", async () => {
    const url = freshPgUrl();
    const owner = await PgStore.open(url, { ...OPTIONS, mode: 'exclusive' });
    expect(await codeOf(PgStore.open(url, OPTIONS))).toBe('LOCKED');
    expect(await codeOf(PgStore.open(url, { ...OPTIONS, mode: 'exclusive' }))).toBe('LOCKED');
    await owner.close();
    const shared = await PgStore.open(url, OPTIONS);
    expect(await codeOf(PgStore.open(url, { ...OPTIONS, mode: 'exclusive' }))).toBe('LOCKED');
    const second = await PgStore.open(url, OPTIONS);
    await Promise.all([shared.close(), second.close()]);
  });

  it('a row held by another transaction longer than busyTimeoutMs is BUSY, with nothing committed', async () => {
    const url = freshPgUrl();
    const store = await PgStore.open(url, { ...OPTIONS, busyTimeoutMs: 200 });
    await store.write('t', (tx) => tx.agents.setMeta('k', 'before'));
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = store.write('hold', async (tx) => {
      await tx.agents.setMeta('k', 'holder');
      await held;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const error = await store
      .write('blocked', (tx) => tx.agents.setMeta('k', 'blocked'))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BUSY' });
    expect((error as Error).message).toMatch(/^blocked: .*try it again/);
    release();
    await holder;
    expect(await store.read('t', (tx) => tx.agents.getMeta('k'))).toBe('holder');
    await store.close();
  });

  it('maps a dropped table to CORRUPT', async () => {
    const url = freshPgUrl();
    const store = await PgStore.open(url, OPTIONS);
    await pgAdmin(`DROP TABLE "${parsePgUrl(url).schema}".meta`);
    expect(await codeOf(store.read('t', (tx) => tx.agents.getMeta('k')))).toBe('CORRUPT');
    await store.close();
  });

  it('maps a server it cannot reach to IO with a hint', async () => {
    const url = withMemory((PG_TEST_URL as string).replace(/port=\d+/, 'port=1'), 'nowhere');
    const error = (await PgStore.open(url, OPTIONS).catch((e: unknown) => e)) as HedgehopError;
    expect(error).toMatchObject({ code: 'IO' });
    expect(error.message).toContain('cannot reach PostgreSQL');
  });

  it('runs a read again when its connection is cut, but never a write that reached the server', async () => {
    const url = freshPgUrl();
    const store = await PgStore.open(url, OPTIONS);
    await store.write('t', (tx) => tx.agents.setMeta('k', 'v'));
    const cut = (): Promise<unknown> =>
      pgAdmin(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE application_name = 'hedgehop' AND state = 'idle in transaction'`,
      );
    let reads = 0;
    const value = await store.read('t', async (tx) => {
      reads++;
      if (reads === 1) await cut();
      return tx.agents.getMeta('k');
    });
    expect(value).toBe('v');
    expect(reads).toBe(2);
    let writes = 0;
    const failed = store.write('t', async (tx) => {
      writes++;
      await cut();
      await tx.agents.setMeta('k', 'w');
    });
    const error = (await failed.catch((e: unknown) => e)) as HedgehopError;
    expect(error.code).toBe('IO');
    expect(writes).toBe(1);
    expect(await store.read('t', (tx) => tx.agents.getMeta('k'))).toBe('v');
    await store.close();
  });
});
