/**
 * Faults on PostgreSQL: four processes writing one memory at once, each committing radial tasks to
 * one shared line and archive records into the one open turn of the same agent (the turn is a row,
 * found and locked on the server, not in any process's memory). Nothing acknowledged is lost, the
 * line's positions are 1..n and the turn's slots 3..n+2 (1 and 2 are the input and output a close
 * writes), with no gap and no repeat.
 */
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { startChild } from '../helpers/child.js';
import { freshPgUrl, PG_SKIP_REASON } from '../helpers/pg-memory.js';
import { ackedWrites, verifyAcked } from './fault-acks.js';

const WRITERS = 4;
const EACH = 30;

describe.skipIf(PG_SKIP_REASON !== undefined)(
  `PostgreSQL faults: ${WRITERS} processes writing one memory${PG_SKIP_REASON ? ` (${PG_SKIP_REASON})` : ''}`,
  () => {
    it(`${WRITERS} writer processes × ${EACH} (task, record): nothing lost, positions 1..n, slots without gap or repeat`, async () => {
      const url = freshPgUrl();
      const setup = await openMemory(url);
      const { turnId } = await setup.primary().search({ newScene: true });
      await setup.close();
      // All start writing at the same wall-clock moment, after each has connected.
      const startAt = Date.now() + 4000;
      const children = Array.from({ length: WRITERS }, (_, i) =>
        startChild('pg-fault-writer.mjs', [url, 'shared', `w${i}`, String(EACH), String(startAt)]),
      );
      const exits = await Promise.all(children.map((child) => child.exited));
      expect(exits.map((exit) => exit.code)).toEqual(children.map(() => 0));
      for (const child of children) expect(child.lines[0]).toBe(`open ${turnId}`);
      const acked = children.flatMap((child) => ackedWrites(child.lines));
      const nodes = acked.filter((write) => write.kind === 'node');
      const records = acked.flatMap((write) => (write.kind === 'record' ? [write] : []));
      expect(nodes).toHaveLength(WRITERS * EACH);
      expect(records).toHaveLength(WRITERS * EACH);
      expect(new Set(records.map((record) => record.topicId))).toEqual(new Set([turnId]));
      // The slots the writers were given: 3..n+2, each once.
      expect(records.map((record) => record.seq).sort((a, b) => a - b)).toEqual(records.map((_, i) => i + 3));
      await verifyAcked(url, acked, { lineId: 'shared' });
      const db = await openMemory(url);
      const agent = db.primary();
      const history = await agent.radial.getLineHistory('shared');
      expect(history.map((entry) => entry.position)).toEqual(nodes.map((_, i) => i + 1));
      const stored = await agent.searchArchive({ topicId: turnId, limit: 10_000 });
      expect(stored.map((record) => record.seq).sort((a, b) => a - b)).toEqual(records.map((_, i) => i + 3));
      // Each writer's tasks stand on the line in the order it committed them (newest at position 1).
      for (const child of children) {
        const mine = ackedWrites(child.lines).flatMap((write) => (write.kind === 'node' ? [write.id] : []));
        const order = history.filter((entry) => mine.includes(entry.nodeId)).map((entry) => entry.nodeId);
        expect(order).toEqual([...mine].reverse());
      }
      // The turn closes over all of them: the input and output take slots 1 and 2.
      await agent.update({ input: 'the writers are done', output: 'all recorded', createdAt: Date.now() });
      const closed = await agent.searchArchive({ topicId: turnId, limit: 10_000 });
      expect(closed.map((record) => record.seq).sort((a, b) => a - b)).toEqual(closed.map((_, i) => i + 1));
      await db.check();
      await db.close();
    }, 180_000);
  },
);
