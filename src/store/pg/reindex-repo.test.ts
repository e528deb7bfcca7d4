import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stem } from '../../core/index-terms.js';
import type { Awaitable } from '../seam.js';
import { openPair, type EnginePair, type Repos } from '../../../test/helpers/pg-pair.js';
import { startPgServer, type PgServer } from '../../../test/helpers/pg.js';

const server = startPgServer();
const reason = typeof server === 'string' ? server : '';
if (reason) console.log(`skipped: PostgreSQL reindex repository tests (${reason})`);

describe.skipIf(reason !== '')('PgReindexRepo gives what ReindexRepo gives', () => {
  let pg: PgServer;
  let pair: EnginePair;

  beforeAll(() => {
    pg = server as PgServer;
  });
  afterAll(() => pg?.stop());
  beforeEach(async () => {
    pair = await openPair(pg.url);
  });
  afterEach(async () => {
    await pair.close();
  });

  async function same<T>(step: (repos: Repos) => Awaitable<T>): Promise<T> {
    const { sqlite, pg: fromPg } = await pair.both(step);
    expect(fromPg).toEqual(sqlite);
    return sqlite;
  }

  async function seed(r: Repos): Promise<void> {
    await r.exec(
      "INSERT INTO scenes (id, agent_id, name, created_at, last_used_at) VALUES ('s1', 1, 'S', 1, 1)",
    );
    for (const [id, status] of [
      ['t1', 'closed'],
      ['t2', 'open'],
      ['t3', 'closed'],
    ] as const) {
      await r.exec(
        `INSERT INTO topics (id, agent_id, scene_id, kind, status, name, keywords, keywords_state, outcome, user_ts, opened_at, closed_at)
         VALUES (?, 1, 's1', 'turn', ?, ?, '["a","b"]', ?, NULL, ?, 5, ?)`,
        [
          id,
          status,
          id === 't3' ? null : `name ${id}`,
          id === 't1' ? 'ready' : 'pending',
          id === 't1' ? 7 : null,
          status === 'closed' ? 9 : null,
        ],
      );
    }
    await r.exec(
      `INSERT INTO archive (id, agent_id, topic_id, seq, kind, role, speaker, content, created_at)
       VALUES (1, 1, 't1', 1, 'utterance', 'user', NULL, 'hello deploy', 10)`,
    );
    await r.exec(
      `INSERT INTO archive (id, agent_id, topic_id, seq, kind, event_type, content, created_at)
       VALUES (2, 1, 't3', 1, 'event', 'tool', 'ran the script', 11)`,
    );
    await r.exec("INSERT INTO profiles (agent_id, name, updated_at) VALUES (2, 'Other', 1)");
    await r.exec("INSERT INTO profiles (agent_id, name, updated_at) VALUES (1, 'Hop', 1)");
    await r.exec("INSERT INTO kg_graphs (id, label, created_at, updated_at) VALUES ('g', 'G', 1, 1)");
    await r.exec(
      `INSERT INTO kg_nodes (id, graph_id, title, type, content, keywords, observations, created_at, updated_at)
       VALUES ('k1', 'g', 'Ana', 'person', 'c', '["x"]', '["o1","o2"]', 3, 3)`,
    );
    await r.radial.createLine(1, { id: 'l', name: 'L', description: '', createdAt: 1, extra: '{}' });
    await r.radial.insertNode(1, 'l', {
      node: {
        id: 'n1',
        taskLabel: 'deploy label',
        createdAt: 2,
        conversationSummary: 'conv',
        fileChanges: '[]',
        todos: '[]',
        envSnapshot: '{}',
        history: '',
        summaries: { origin: 'o', brief: null, summary: null, detailed: null },
        summariesState: 'pending',
        summariesTier: 0,
        fullContext: 'full \u0000 context 東京',
        fullBytes: 20,
      },
      // The texts the node's own fields make (SQLite writes those, from the row, just after the commit).
      index: [
        { part: 'label', text: 'deploy label' },
        { part: 'conversation', text: 'conv' },
        { part: 'full', text: 'full \u0000 context 東京' },
      ],
      extend: false,
    });
    await r.index.upsert({ layer: 'archive', ref: '1', agentId: 1, createdAt: 10, text: 'hello deploy' });
  }

  it('reads the verbatim tables in key order, a batch at a time, and clears the index', async () => {
    await same(seed);
    await same((r) => r.reindex.counts());
    await same((r) => r.reindex.archive(0, 10));
    await same((r) => r.reindex.archive(1, 10));
    await same((r) => r.reindex.topics(0, 10));
    await same((r) => r.reindex.topics(0, 1));
    await same((r) => r.reindex.nodes(0, 10));
    await same((r) => r.reindex.knowledge(0, 10));
    await same((r) => r.reindex.profileAgents());
    expect(await same((r) => r.recall.documentFrequency(stem('deploy')))).toBe(2);
    await same((r) => r.reindex.clear());
    expect(await same((r) => r.recall.documentFrequency(stem('deploy')))).toBe(0);
    expect(await same((r) => r.recall.recent({ agentId: 1 }, 10))).toEqual([]);
    // After a clear, BM25's totals start again from zero on both engines (the new rowids differ:
    // SQLite reuses them, PostgreSQL's identity does not).
    await pair.both(async (r) => {
      await r.index.upsert({ layer: 'archive', ref: '2', agentId: 1, createdAt: 11, text: 'ran the script' });
      await r.index.upsert({
        layer: 'archive',
        ref: '1',
        agentId: 1,
        createdAt: 10,
        text: 'hello deploy script',
      });
    });
    const scores = await pair.both(async (r) =>
      (await r.recall.match('"script"', { agentId: 1 }, 5)).map((m) => m.bm25),
    );
    expect(scores.pg).toHaveLength(2);
    for (const [i, score] of scores.sqlite.entries()) expect(scores.pg[i]).toBeCloseTo(score, 9);
    const statistics = await pair.both(async (r) => {
      const stats = await r.recall.termStatistics([stem('script'), 'absent']);
      return [stats.documents, stats.frequency(stem('script')), stats.frequency('absent')];
    });
    // `documents` is an upper estimate (the largest rowid): SQLite reuses rowids after a clear,
    // PostgreSQL's identity never does, so only the frequencies are equal.
    expect(statistics.sqlite).toEqual([2, 2, 0]);
    expect(statistics.pg.slice(1)).toEqual([2, 0]);
    expect(statistics.pg[0]).toBeGreaterThanOrEqual(2);
  });
});
