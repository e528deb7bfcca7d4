/**
 * Faults on PostgreSQL: a host that stops answering without closing anything (a network
 * partition: no reset, no FIN), played by the loopback proxy of cut-proxy.ts going silent. A call
 * in flight fails with a typed `IO` within the statement bound (`?query_timeout=`) and its retries,
 * never hangs; a write whose COMMIT may have reached the server says so and is not retried (a
 * radial commit, keyed by its node id, is: run again it finds its node), one that never reached
 * it is not committed; nothing is doubled, and the same handle works again as soon as the host
 * answers again. Runs on a server of its own (its connections are cut).
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/index.js';
import { rejection } from '../helpers/errors.js';
import { PG_SKIP_REASON } from '../helpers/pg-memory.js';
import { pgBinDir, startPgServer, type PgServer } from '../helpers/pg-server.js';
import { CutProxy } from './cut-proxy.js';

const bin = pgBinDir();
const skip =
  PG_SKIP_REASON ?? (bin ? undefined : 'PostgreSQL cases skipped: no server binaries to start one');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The statement bound of the memory under test (`?query_timeout=`), and its busy timeout. */
const QUERY_TIMEOUT_MS = 1500;
const BUSY_TIMEOUT_MS = 500;
/** The pool's connect timeout at that busy timeout (max(busy, 2 s)). */
const CONNECT_TIMEOUT_MS = 2000;
/** A read: its statement bound, then up to three retries, each a statement bound or a connect timeout. */
const READ_BOUND_MS = 4 * (QUERY_TIMEOUT_MS + CONNECT_TIMEOUT_MS) + 1000;
const HINT = /stopped answering|cannot reach PostgreSQL/;

describe.skipIf(skip !== undefined)(
  `PostgreSQL faults: a host gone silent${skip ? ` (${skip})` : ''}`,
  () => {
    let server: PgServer;
    let proxy: CutProxy & { port: number };
    let db: MemoryDB;
    beforeAll(async () => {
      server = await startPgServer(bin as string);
      proxy = await CutProxy.start(join(server.dir, `.s.PGSQL.${server.port}`));
      db = await openMemory(
        `postgres://hedgehop@127.0.0.1:${proxy.port}/postgres?memory=silent&query_timeout=${QUERY_TIMEOUT_MS}`,
        { busyTimeoutMs: BUSY_TIMEOUT_MS },
      );
      await db.primary().radial.createLine('silent', 'Silent', 'Calls to a host that stopped answering');
    }, 60_000);
    afterEach(() => proxy.resume());
    afterAll(async () => {
      proxy?.resume();
      await db?.close();
      await proxy?.close();
      server?.stop();
    });

    const commit = (label: string) =>
      db.primary().radial.completeTask({
        lineId: 'silent',
        taskLabel: label,
        fullContext: `${label}: the verbatim context`,
        conversationSummary: label,
      });
    const copies = async (label: string): Promise<number> =>
      (await db.primary().radial.getLineHistory('silent')).filter((entry) => entry.taskLabel === label)
        .length;
    const timed = async <T>(
      call: () => Promise<T>,
    ): Promise<{ error: Awaited<ReturnType<typeof rejection>>; ms: number }> => {
      const started = Date.now();
      const error = await rejection(call());
      return { error, ms: Date.now() - started };
    };

    it('a read fails with IO within the bound, then the same handle reads again once the host answers', async () => {
      await commit('before the silence');
      proxy.silence();
      const { error, ms } = await timed(() => db.primary().radial.getLineHistory('silent'));
      expect(error.code).toBe('IO');
      expect(error.message).toMatch(HINT);
      expect(ms).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(READ_BOUND_MS);
      proxy.resume();
      expect(await copies('before the silence')).toBe(1);
    }, 60_000);

    it('a write cut off before its COMMIT fails with IO in bounded time and is not committed', async () => {
      const commitsBefore = proxy.commits;
      proxy.arm('write-work-silent');
      const { error, ms } = await timed(() => commit('silent mid-write'));
      expect(proxy.silent, 'the proxy went silent inside the write').toBe(true);
      expect(error.code).toBe('IO');
      expect(error.message).toMatch(HINT);
      // The pool pipelines BEGIN, the commit's one statement and its COMMIT together, so the
      // silence swallows all their replies: the write, keyed by its node id, is run again on a
      // fresh connection (safe whatever the server did), and those attempts, through the still
      // silent host, are bounded like a read's.
      expect(ms).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(READ_BOUND_MS);
      proxy.resume();
      await sleep(200);
      expect(proxy.commits - commitsBefore).toBe(0);
      expect(await copies('silent mid-write')).toBe(0);
      await commit('after the mid-write silence');
      expect(await copies('after the mid-write silence')).toBe(1);
    }, 60_000);

    it('a write whose COMMIT was sent is reported as maybe applied, not retried, and is there once', async () => {
      const lines = async (id: string): Promise<number> =>
        (await db.primary().radial.listLines()).filter((line) => line.id === id).length;
      const commitsBefore = proxy.commits;
      proxy.arm('commit-silent');
      const { error, ms } = await timed(() =>
        db.primary().radial.createLine('lost', 'Lost', 'silent commit'),
      );
      expect(error.code).toBe('IO');
      expect(error.message).toContain('may or may not have been applied');
      expect(error.message).toContain('not retried');
      expect(ms).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(QUERY_TIMEOUT_MS + 1000);
      expect(proxy.commits - commitsBefore, 'one COMMIT went out: not run again').toBe(1);
      proxy.resume();
      // The server got the COMMIT and committed: the write is there, once.
      expect(await lines('lost')).toBe(1);
      await commit('after the silent commit');
      expect(await copies('after the silent commit')).toBe(1);
    }, 60_000);

    it('a radial commit whose COMMIT was sent is run again once the host answers, and is there once', async () => {
      const commitsBefore = proxy.commits;
      proxy.arm('commit-silent');
      const started = Date.now();
      const pending = commit('silent commit');
      // The first run's reply never comes (statement bound); its reruns wait for the host.
      await sleep(QUERY_TIMEOUT_MS + 500);
      expect(proxy.silent, 'the proxy went silent after the COMMIT').toBe(true);
      proxy.resume();
      const node = await pending;
      expect(Date.now() - started).toBeLessThan(READ_BOUND_MS);
      expect(node.taskLabel).toBe('silent commit');
      expect(proxy.commits - commitsBefore, 'the first COMMIT, then the rerun that found the node').toBe(2);
      const history = await db.primary().radial.getLineHistory('silent');
      expect(
        history.filter((entry) => entry.taskLabel === 'silent commit').map((entry) => entry.nodeId),
      ).toEqual([node.id]);
    }, 60_000);

    it('a write while the host is silent from the start fails with IO in bounded time and lands nowhere', async () => {
      proxy.silence();
      const { error, ms } = await timed(() => commit('silent from the start'));
      expect(error.code).toBe('IO');
      expect(error.message).toMatch(HINT);
      expect(ms).toBeLessThan(READ_BOUND_MS);
      proxy.resume();
      await sleep(200);
      expect(await copies('silent from the start')).toBe(0);
      await commit('after the long silence');
      expect(await copies('after the long silence')).toBe(1);
    }, 60_000);
  },
);
