/**
 * Faults on PostgreSQL: the server goes away and comes back, and a connection is cut at the worst
 * moments. Runs on a server of its own (test/helpers/pg-server.ts), never the one the other tests
 * share: it is stopped and started under running clients. While the server is down every call
 * fails with a typed `IO`/`BUSY` HedgehopError carrying a hint, in bounded time; once it is back
 * the same handles (no reopen) and a client process succeed again, and every acknowledged write
 * is there exactly once. A write whose COMMIT reply was lost is reported as such and not retried
 * (no double), unless it is keyed (a radial commit: run again, it finds its node and writes
 * nothing); a read, or a write cut before anything ran, is run again on a fresh connection.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HedgehopError, openMemory, type MemoryDB } from '../../src/index.js';
import { startChild } from '../helpers/child.js';
import { rejection } from '../helpers/errors.js';
import { PG_SKIP_REASON, withMemory } from '../helpers/pg-memory.js';
import { pgBinDir, startPgServer, type PgServer } from '../helpers/pg-server.js';
import { CutProxy } from './cut-proxy.js';
import { ackedWrites, childErrors, verifyAcked, type AckedWrite } from './fault-acks.js';

const bin = pgBinDir();
const skip =
  PG_SKIP_REASON ?? (bin ? undefined : 'PostgreSQL cases skipped: no server binaries to start one');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One call of a writer loop, as it ended. */
interface Outcome {
  /** The node's task label, or the record's content. */
  readonly key: string;
  readonly kind: 'node' | 'record';
  readonly phase: 'up' | 'down' | 'back';
  readonly error?: HedgehopError;
  readonly ms: number;
}

/** The hints a caller is given when the server cannot be reached or a write's fate is unknown. */
const HINTS = /cannot reach PostgreSQL|may or may not have been applied|busy/;

describe.skipIf(skip !== undefined)(
  `PostgreSQL faults: a server restarted mid-run${skip ? ` (${skip})` : ''}`,
  () => {
    let server: PgServer;
    beforeAll(async () => {
      server = await startPgServer(bin as string);
    }, 60_000);
    afterAll(() => server?.stop());

    it('typed errors while it is down, success again once it is back (same handles), nothing lost or doubled', async () => {
      const url = withMemory(server.url, 'restart');
      const db = await openMemory(url, { busyTimeoutMs: 1000 });
      // Not the primary agent: the child writes (and closes turns) as that one.
      const agent = await db.agent('restart');
      await agent.radial.createLine('faults', 'Faults', 'Written across a server restart');
      const { turnId } = await agent.search();
      const child = startChild('pg-fault-writer.mjs', [url, 'survive', 'child']);
      await child.waitFor((line) => line.startsWith('ack '), 30_000);

      let phase: Outcome['phase'] = 'up';
      let running = true;
      const outcomes: Outcome[] = [];
      const acked: AckedWrite[] = [];
      const loop = async (kind: Outcome['kind']): Promise<void> => {
        for (let i = 0; running; i++) {
          const label = `${kind}-${i} «ü» 🦔`;
          const full = `${label}\nverbatim ${i}`;
          const key = kind === 'node' ? label : full;
          const started = Date.now();
          const at = phase;
          try {
            if (kind === 'node') {
              const node = await agent.radial.completeTask({
                lineId: 'faults',
                taskLabel: label,
                fullContext: full,
                conversationSummary: `summary ${i}`,
              });
              acked.push({ kind: 'node', id: node.id, label, full });
            } else {
              const slot = await agent.appendArchive({
                kind: 'event',
                eventType: 'tool_call',
                content: full,
                createdAt: Date.now(),
              });
              acked.push({
                kind: 'record',
                id: slot.id,
                topicId: slot.topicId,
                seq: slot.seq,
                content: full,
              });
            }
            outcomes.push({ key, kind, phase, ms: Date.now() - started });
          } catch (error) {
            if (!HedgehopError.isInstance(error)) throw error; // a raw pg error fails the test
            outcomes.push({ key, kind, phase: at, error, ms: Date.now() - started });
            await sleep(50);
          }
        }
      };
      const loops = Promise.all([loop('node'), loop('record')]);
      await sleep(800);
      phase = 'down';
      server.stopServer();
      const childLinesAtStop = child.lines.length;
      await sleep(2500);
      server.startServer();
      phase = 'back';
      const back = (): number => outcomes.filter((o) => o.phase === 'back' && !o.error).length;
      for (let waited = 0; back() < 6 && waited < 30_000; waited += 100) await sleep(100);
      const childBack = (): boolean =>
        child.lines.slice(childLinesAtStop).some((line) => line.startsWith('ack '));
      for (let waited = 0; !childBack() && waited < 30_000; waited += 100) await sleep(100);
      expect(childBack(), 'the child process wrote again after the restart').toBe(true);
      running = false;
      await loops;

      const failures = outcomes.filter((o) => o.error);
      expect(failures.length, 'calls made while the server was down failed').toBeGreaterThan(0);
      for (const { error } of failures) {
        expect(['IO', 'BUSY'], error?.message).toContain(error?.code);
        expect(error?.message).toMatch(HINTS);
      }
      // No hang: a call fails within its connection timeout and three short retries.
      expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(15_000);
      expect(back(), 'writes succeeded after the restart on the same handle').toBeGreaterThanOrEqual(6);

      // The child process got typed errors too, and carried on once the server was back.
      child.process.kill('SIGKILL');
      await child.exited;
      expect(child.lines.filter((line) => line.startsWith('raw '))).toEqual([]);
      const childFailures = childErrors(child.lines);
      expect(childFailures.length).toBeGreaterThan(0);
      for (const failure of childFailures) {
        expect(['IO', 'BUSY']).toContain(failure.code);
        expect(failure.message).toMatch(HINTS);
      }

      // Nothing acknowledged lost, nothing doubled; a failed write is absent unless its COMMIT's fate was unknown.
      await verifyAcked(url, acked, { agent: 'restart' });
      await verifyAcked(url, ackedWrites(child.lines));
      const labels = (await agent.radial.getLineHistory('faults')).map((entry) => entry.taskLabel);
      const contents = (await agent.searchArchive({ topicId: turnId, limit: 10_000 })).map((r) => r.content);
      for (const failure of failures) {
        const copies = (failure.kind === 'node' ? labels : contents).filter(
          (key) => key === failure.key,
        ).length;
        const unknown = /may or may not have been applied/.test(failure.error?.message ?? '');
        expect(copies, `${failure.key}: ${failure.error?.message}`).toBeLessThanOrEqual(unknown ? 1 : 0);
      }
      // The handle took its shared open lock again after the restart: an exclusive open elsewhere is refused.
      const exclusive = await rejection(openMemory(url, { mode: 'exclusive' }));
      expect(exclusive.code).toBe('LOCKED');
      await db.close();
      const kinds = new Set(
        failures.map((f) => `${f.error?.code}: ${f.error?.message.replace(/^[^:]*: /, '').slice(0, 100)}`),
      );
      console.info(`[faults] restart, distinct failures:\n  ${[...kinds].join('\n  ')}`);
      console.info(
        `[faults] restart: ${outcomes.length} calls, ${failures.length} typed failures (${[...new Set(failures.map((f) => f.error?.code))].join('/')}), ${back()} successes after, child ${childFailures.length} failures, slowest call ${Math.max(...outcomes.map((o) => o.ms))} ms`,
      );
    }, 120_000);

    describe('a connection cut through a proxy', () => {
      let proxy: CutProxy & { port: number };
      let db: MemoryDB;
      beforeAll(async () => {
        proxy = await CutProxy.start(join(server.dir, `.s.PGSQL.${server.port}`));
        db = await openMemory(`postgres://hedgehop@127.0.0.1:${proxy.port}/postgres?memory=cut`, {
          busyTimeoutMs: 2000,
        });
        await db.primary().radial.createLine('cut', 'Cut', 'Connections cut at chosen statements');
      });
      afterAll(async () => {
        await db?.close();
        await proxy?.close();
      });
      const commit = (label: string) =>
        db.primary().radial.completeTask({
          lineId: 'cut',
          taskLabel: label,
          fullContext: label,
          conversationSummary: label,
        });
      const copies = async (label: string): Promise<number> =>
        (await db.primary().radial.getLineHistory('cut')).filter((entry) => entry.taskLabel === label).length;

      const lines = async (id: string): Promise<number> =>
        (await db.primary().radial.listLines()).filter((line) => line.id === id).length;

      it('a write whose COMMIT reply was lost fails with IO saying so, is not retried, and is there once', async () => {
        const commitsBefore = proxy.commits;
        proxy.arm('commit-reply');
        // createLine is not keyed by anything its caller made: run again, it would be refused.
        const error = await rejection(db.primary().radial.createLine('lost', 'Lost', 'reply lost'));
        expect(proxy.cuts).toBe(1);
        expect(error.code).toBe('IO');
        expect(error.message).toContain(
          'was lost during COMMIT, so the write may or may not have been applied',
        );
        expect(error.message).toContain('it was not retried; read it back before writing it again');
        // One COMMIT went out: the engine did not run the write again on a fresh connection.
        expect(proxy.commits - commitsBefore).toBe(1);
        // The server had committed it: it is there, once; the same handle goes on writing.
        expect(await lines('lost')).toBe(1);
        await db.primary().radial.createLine('after-lost', 'After', 'written after the lost reply');
        expect(await lines('after-lost')).toBe(1);
      });

      it('a radial commit whose COMMIT reply was lost is run again, finds its node and succeeds: the node is there once', async () => {
        const commitsBefore = proxy.commits;
        const cuts = proxy.cuts;
        proxy.arm('commit-reply');
        const node = await commit('lost reply');
        expect(proxy.cuts).toBe(cuts + 1);
        // The first run's COMMIT reached the server; the second run found its node and wrote nothing.
        expect(proxy.commits - commitsBefore).toBe(2);
        expect(node.taskLabel).toBe('lost reply');
        const history = await db.primary().radial.getLineHistory('cut');
        expect(
          history.filter((entry) => entry.taskLabel === 'lost reply').map((entry) => entry.nodeId),
        ).toEqual([node.id]);
        expect(history.map((entry) => entry.position)).toEqual(history.map((_, i) => i + 1));
        // extendTask too: the retry reports the node it extends, as the first run wrote it.
        proxy.arm('commit-reply');
        const extended = await db.primary().radial.extendTask({
          lineId: 'cut',
          taskLabel: 'lost reply, extended',
          fullContext: 'more',
          conversationSummary: 'more',
        });
        expect(proxy.cuts).toBe(cuts + 2);
        expect(extended.extendsNodeId).toBe(node.id);
        expect(await copies('lost reply, extended')).toBe(1);
        expect((await db.primary().radial.getNode('cut', 1))?.extendsNodeId).toBe(node.id);
        await commit('after the lost reply');
        expect(await copies('after the lost reply')).toBe(1);
      });

      it('a write cut before anything of it ran is run again and lands once', async () => {
        const cuts = proxy.cuts;
        proxy.arm('write-begin');
        const node = await commit('cut at begin');
        expect(proxy.cuts).toBe(cuts + 1);
        expect(node.taskLabel).toBe('cut at begin');
        expect(await copies('cut at begin')).toBe(1);
      });

      it('a one-statement write goes out with its COMMIT: cut at any point, it fails IO and is never run again', async () => {
        const agent = db.primary();
        await agent.search({ newScene: true });
        const append = (content: string) =>
          agent.appendArchive({ kind: 'utterance', role: 'user', content, createdAt: Date.now() });
        const held = async (content: string): Promise<number> =>
          (await agent.searchArchive({ contains: content })).filter((record) => record.content === content)
            .length;
        // Cut once its COMMIT went out (at the first reply, the statement's): whether the server
        // got to the COMMIT is unknown to the client; one COMMIT was sent, none again.
        const commits = proxy.commits;
        proxy.arm('commit-reply');
        const lost = await rejection(append('one call, reply lost'));
        expect(lost.code).toBe('IO');
        expect(lost.message).toContain('may or may not have been applied');
        expect(proxy.commits - commits).toBe(1);
        expect(await held('one call, reply lost')).toBeLessThanOrEqual(1);
        // Cut before its BEGIN reached the server: nothing ran, but its COMMIT had been sent with
        // it, so the engine cannot tell that from a lost reply and does not run it again.
        proxy.arm('write-begin');
        const cut = await rejection(append('one call, cut at begin'));
        expect(cut.code).toBe('IO');
        expect(cut.message).toContain('may or may not have been applied');
        expect(await held('one call, cut at begin')).toBe(0);
        // The same handle goes on writing.
        await append('one call, after the cuts');
        expect(await held('one call, after the cuts')).toBe(1);
        await agent.update({ outcome: 'done' });
      });

      it('a read whose connection is cut is run again on a fresh one', async () => {
        const cuts = proxy.cuts;
        proxy.arm('read-begin');
        const history = await db.primary().radial.getLineHistory('cut');
        expect(proxy.cuts).toBe(cuts + 1);
        expect(history.map((entry) => entry.taskLabel)).toContain('cut at begin');
      });
    });
  },
);
