import { afterAll, describe, expect, it } from 'vitest';
import { PgIndexRepo } from './index-repo.js';
import { PgRadialRepo } from './radial-repo.js';
import { PgRecallRepo } from './recall-repo.js';
import { PgVectorRepo } from './vector-repo.js';
import type { PgQuery } from './pg-query.js';
import { openPgMemory, startPgServer, type PgServer } from '../../../test/helpers/pg.js';

const server = startPgServer();
const reason = typeof server === 'string' ? server : '';
if (reason) console.log(`skipped: PostgreSQL concurrent-writer tests (${reason})`);

function radial(db: PgQuery): PgRadialRepo {
  return new PgRadialRepo(db, new PgIndexRepo(db, new PgVectorRepo(db)));
}

describe.skipIf(reason !== '')(
  'PostgreSQL repositories under concurrent writers (row and advisory locks)',
  () => {
    afterAll(() => {
      if (typeof server !== 'string') server.stop();
    });

    it('4 connections committing nodes to one line and lines to one agent: nothing lost, positions 1..n', async () => {
      const memory = await openPgMemory((server as PgServer).url);
      try {
        await memory.db.query("INSERT INTO agents (id, name, created_at) VALUES (1, 'primary', 1)");
        await memory.tx((db) =>
          radial(db).createLine(1, { id: 'shared', name: 'S', description: '', createdAt: 1, extra: '{}' }),
        );
        const writers = await Promise.all([1, 2, 3, 4].map(() => memory.connect()));
        const perWriter = 15;
        await Promise.all(
          writers.map(async (writer, w) => {
            for (let i = 0; i < perWriter; i++) {
              await writer.tx(async (db) => {
                const repo = radial(db);
                await repo.getOrCreateLine(1, {
                  id: `own-${i % 3}`,
                  name: 'o',
                  description: '',
                  createdAt: 1,
                  extra: '{}',
                });
                await repo.insertNode(1, 'shared', {
                  node: {
                    id: `w${w}-${i}`,
                    taskLabel: `writer ${w} task ${i}`,
                    createdAt: 1,
                    conversationSummary: `writer ${w}`,
                    fileChanges: '[]',
                    todos: '[]',
                    envSnapshot: '{}',
                    history: '',
                    summaries: { origin: null, brief: null, summary: null, detailed: null },
                    summariesState: 'pending',
                    summariesTier: 0,
                    fullContext: `context ${w} ${i}`,
                    fullBytes: 12,
                  },
                  index: [{ part: 'label', text: `writer ${w} task ${i}` }],
                  extend: true,
                });
                // Every writer rewrites the same index row: the row lock orders them.
                await new PgIndexRepo(db).upsert({
                  layer: 'profile',
                  ref: '1',
                  agentId: 1,
                  createdAt: 1,
                  text: `w${w} ${i}`,
                });
              });
            }
          }),
        );
        const repo = radial(memory.db);
        const total = 4 * perWriter;
        const nodes = await repo.lineNodes(1, 'shared', { limit: -1 });
        expect(nodes).toHaveLength(total);
        expect(nodes.map((n) => n.position)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
        expect(new Set(nodes.map((n) => n.id)).size).toBe(total);
        // Each node saw the one committed just before it as the line's tip (read on the server,
        // under the line's lock, after any commit the lock waited for).
        const older = [...nodes].reverse();
        for (const [i, node] of older.entries()) {
          const before = older[i - 1];
          expect(node.extra).toBe(before ? JSON.stringify({ extendsNodeId: before.id }) : '{}');
        }
        const lines = await repo.listLines(1);
        expect(lines.map((l) => l.ord)).toEqual([1, 2, 3, 4]);
        const recall = new PgRecallRepo(memory.db);
        expect(await recall.recent({ agentId: 1, layers: ['profile'] }, 10)).toHaveLength(1);
        expect(await recall.recent({ agentId: 1, layers: ['radial'] }, 100)).toHaveLength(total);
      } finally {
        await memory.close();
      }
    });
  },
);
