import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { applyPass } from '../../src/memory/dream/dream-apply.js';
import { PgLeasesRepo } from '../../src/store/pg/leases-repo.js';
import { PgStore } from '../../src/store/pg/pg-store.js';
import type { PgQuery } from '../../src/store/pg/pg-query.js';
import { parsePgUrl } from '../../src/store/pg/pg-url.js';
import { rejection } from '../helpers/errors.js';
import { freshPgUrl, pgAdmin, PG_SKIP_REASON } from '../helpers/pg-memory.js';

/**
 * Dream's lease check on PostgreSQL (src/memory/dream/dream-apply.ts, `checkLease`) locks the
 * lease row, so a takeover by another machine between the check and the pass's commit is either
 * made to wait for that commit or, when it came first, seen by the check (the pass then applies
 * nothing, `BUSY`). Each case races two connections and fails when the check reads the row
 * without a lock (checked by replacing `holderLocked` with `holder`).
 */

const LEASE = 'dream:1';
const stores: PgStore[] = [];
const clients: pg.Client[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close().catch(() => undefined);
  for (const client of clients.splice(0)) await client.end().catch(() => undefined);
});

/** A fresh memory with its primary agent, a running Dream pass `run-1` and the lease held by `A` until 1000. */
async function setUp(): Promise<{ url: string; store: PgStore; agentId: number }> {
  const url = freshPgUrl();
  const memory = await openMemory(url);
  memory.primary();
  await memory.close();
  const store = await PgStore.open(url, { durability: 'full', mode: 'shared', busyTimeoutMs: 10_000 });
  stores.push(store);
  const agentId = await store.write('set up', async (tx) => {
    const agent = await tx.agents.ensurePrimary('main', 1);
    await tx.dream.start({
      id: 'run-1',
      agentId: agent.id,
      sceneId: undefined,
      startedBy: 'explicit',
      owner: 'A',
      startedAt: 1,
    });
    expect(await tx.leases.acquire(LEASE, 'A', 999, 1)).toBe(true);
    return agent.id;
  });
  return { url, store, agentId };
}

/** A second machine: a plain connection to the memory's schema, and its backend's pid. */
async function otherMachine(url: string): Promise<{ client: pg.Client; db: PgQuery; pid: number }> {
  const target = parsePgUrl(url);
  const client = new pg.Client({ connectionString: target.connectionString });
  clients.push(client);
  await client.connect();
  await client.query(`SET search_path TO "${target.schema}"`);
  const db: PgQuery = {
    query: async (text, values) => {
      const result = await client.query(text, values as unknown[] | undefined);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    },
  };
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid ?? 0;
  return { client, db, pid };
}

/** Waits until `blocked()` holds or `settled` resolves, whichever is first (at most 10 s). */
async function waitFor(
  blocked: () => Promise<boolean>,
  settled: Promise<unknown>,
): Promise<'blocked' | 'settled'> {
  let done = false;
  void settled.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 200; i++) {
    if (done) return 'settled';
    if (await blocked()) return 'blocked';
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('neither blocked nor settled within 10 s');
}

/** A Dream apply with nothing to write but its run record: exactly the lease check and the report. */
function emptyPass(agentId: number, now: number): Parameters<typeof applyPass>[1] {
  return {
    runId: 'run-1',
    agentId,
    lease: { name: LEASE, owner: 'A', now },
    now,
    fusions: [],
    refreshes: [],
    engram: undefined,
    profile: undefined,
    retentionCutoff: undefined,
  };
}

const finish = (): { status: 'ok'; report: string } => ({ status: 'ok', report: '{}' });

describe.skipIf(PG_SKIP_REASON !== undefined)(
  `Dream's lease check on PostgreSQL${PG_SKIP_REASON ? ` (${PG_SKIP_REASON})` : ''}`,
  () => {
    it('makes a takeover on another machine wait until the pass that checked the lease has committed', async () => {
      const { url, store, agentId } = await setUp();
      const other = await otherMachine(url);
      const order: string[] = [];
      let release!: () => void;
      const hold = new Promise<void>((resolve) => (release = resolve));
      let checked!: () => void;
      const hasChecked = new Promise<void>((resolve) => (checked = resolve));
      const pass = store.write('dream', async (tx) => {
        await applyPass(tx, emptyPass(agentId, 900), finish);
        checked();
        await hold; // the pass's transaction stays open after its check, as a slow apply would
      });
      await hasChecked;
      // The lease lapsed by the other machine's clock (1500 > 1000): it takes the lease over.
      // Which of the two replies reaches this process first is a race between two sockets; what
      // the lock guarantees is on the server: once the takeover is through, the pass has committed.
      const takeover = new PgLeasesRepo(other.db).acquire(LEASE, 'B', 10_000, 1500).then(async (won) => {
        const seen = await store.read('run', (tx) => tx.dream.get(agentId, 'run-1'));
        order.push(`takeover through, pass ${seen?.status === 'ok' ? 'committed' : 'not committed'}`);
        return won;
      });
      const state = await waitFor(async () => {
        const rows = await pgAdmin<{ waiting: string | null }>(
          'SELECT wait_event_type AS waiting FROM pg_stat_activity WHERE pid = $1',
          [other.pid],
        );
        return rows[0]?.waiting === 'Lock';
      }, takeover).finally(release);
      expect(state).toBe('blocked');
      await pass;
      expect(await takeover).toBe(true);
      expect(order).toEqual(['takeover through, pass committed']);
      const run = await store.read('run', (tx) => tx.dream.get(agentId, 'run-1'));
      expect(run?.status).toBe('ok');
      // The pass that lost its lease now applies nothing.
      const again = await rejection(
        store.write('dream', (tx) => applyPass(tx, emptyPass(agentId, 1600), finish)),
      );
      expect(again.code).toBe('BUSY');
      expect(again.message).toContain('now held by B');
    });

    it('waits for a takeover already under way and then sees it: the pass applies nothing (BUSY)', async () => {
      const { url, store, agentId } = await setUp();
      const other = await otherMachine(url);
      const before = await store.read('run', (tx) => tx.dream.get(agentId, 'run-1'));
      await other.client.query('BEGIN');
      expect(await new PgLeasesRepo(other.db).acquire(LEASE, 'B', 10_000, 1500)).toBe(true);
      // The takeover has not committed: the pass's check (by its clock the lease is A's until 1000) runs now.
      const pass = store.write('dream', (tx) => applyPass(tx, emptyPass(agentId, 900), finish));
      const state = await waitFor(async () => {
        const rows = await pgAdmin<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
          [other.pid],
        );
        return (rows[0]?.n ?? 0) > 0;
      }, pass);
      await other.client.query('COMMIT');
      expect(state).toBe('blocked');
      const error = await rejection(pass);
      expect(error.code).toBe('BUSY');
      expect(error.message).toContain('lost its lease dream:1 (now held by B)');
      const run = await store.read('run', (tx) => tx.dream.get(agentId, 'run-1'));
      expect(run?.status).toBe('running');
      expect(run).toEqual(before);
    });

    it('lets the holder renew and check its own lease in one transaction without waiting on itself', async () => {
      const { store, agentId } = await setUp();
      await store.write('dream', async (tx) => {
        expect(await tx.leases.acquire(LEASE, 'A', 5000, 800)).toBe(true);
        await applyPass(tx, emptyPass(agentId, 900), finish);
      });
      const run = await store.read('run', (tx) => tx.dream.get(agentId, 'run-1'));
      expect(run?.status).toBe('ok');
    });
  },
);
