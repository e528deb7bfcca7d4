import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { stem, tokenize } from '../../core/index-terms.js';
import type { IndexDoc } from '../index-repo.js';
import type { DocRow, MatchedDoc } from '../recall-repo.js';
import type { Awaitable } from '../seam.js';
import { PgRecallRepo, TermCounts } from './recall-repo.js';
import { openPair, type EnginePair, type Repos } from '../../../test/helpers/pg-pair.js';
import { startPgServer, type PgServer } from '../../../test/helpers/pg.js';

const server = startPgServer();
const reason = typeof server === 'string' ? server : '';
if (reason) console.log(`skipped: PostgreSQL index and recall repository tests (${reason})`);

/** Texts of several kinds: English of varied length, accents, CJK, numbers, a repeated word, a long token. */
const TEXTS = [
  'We moved the deploy script to the new CI runner on Tuesday.',
  'Deploying failed again: the runner ran out of disk space while deploying.',
  'Café résumé naïve: accents never decide a match, CAFE and cafe are the same word.',
  '東京都に住んでいます。毎朝コーヒーを飲みます。',
  '我们明天在北京开会，讨论部署脚本。',
  '서울에서 회의가 있습니다',
  'Order 66 was issued in 2024; version 3.14.15 shipped; call 555-0100.',
  `${'deploy '.repeat(300)}and one more deploy`,
  `token ${'x'.repeat(3000)} end`,
  'The cat sat on the mat. The dog chased the cat around the garden.',
  'Garden party planning: invite the neighbours, buy flowers, rent chairs.',
  'Running runners run; the runner who runs ran.',
  '',
];

function docs(): IndexDoc[] {
  return TEXTS.map((text, i) => ({
    layer: i % 3 === 0 ? 'radial' : 'archive',
    ref: String(i + 1),
    part: i % 3 === 0 ? 'full' : '',
    agentId: i === 5 ? 2 : i === 10 ? null : 1,
    lineId: i % 3 === 0 ? 'line-a' : null,
    sceneId: i % 3 === 0 ? null : i < 7 ? 'scene-1' : 'scene-2',
    topicId: i % 3 === 0 ? null : `topic-${Math.floor(i / 4)}`,
    createdAt: 1_000 + i * 10,
    text,
  }));
}

/**
 * The FTS5 expression recall would build (src/recall/query.ts, which this layer may not import):
 * each word quoted, joined by OR.
 */
function expressionOf(query: string): string {
  return tokenize(query)
    .map((word) => `"${word.replaceAll('"', '""')}"`)
    .join(' OR ');
}

/** Rowids differ only if one engine reuses a freed rowid; compare rows by what they index. */
const key = (doc: DocRow): string => `${doc.layer}/${doc.ref}/${doc.part}`;

function strip(doc: DocRow): Omit<DocRow, 'rowid'> {
  const { rowid: _rowid, ...rest } = doc as DocRow & { bm25?: number };
  delete (rest as { bm25?: number }).bm25;
  return rest;
}

describe.skipIf(reason !== '')('PgIndexRepo + PgRecallRepo give what IndexRepo + RecallRepo give', () => {
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

  /** Both engines' matches: the same rows in the same order, with the same BM25 (to 1e-9 relative). */
  async function sameMatch(query: string, filter: Parameters<Repos['recall']['match']>[1], limit = 50) {
    const match = expressionOf(query);
    const { sqlite, pg: fromPg } = await pair.both((r) => r.recall.match(match, filter, limit));
    const sorted = (rows: MatchedDoc[]) =>
      rows.map((row) => ({ key: key(row), bm25: row.bm25, row: strip(row) }));
    const a = sorted(sqlite);
    const b = sorted(fromPg);
    expect(b.map((x) => x.row)).toEqual(a.map((x) => x.row));
    for (const [i, x] of a.entries()) {
      expect(b[i]?.bm25).toBeCloseTo(x.bm25, 9);
    }
    return sqlite;
  }

  async function seed(): Promise<void> {
    await same(async (r) => {
      const out: number[] = [];
      for (const doc of docs()) out.push(await r.index.upsert(doc));
      return out;
    });
  }

  it('indexes the same rows and finds them with the same BM25 scores, in the same order', async () => {
    await seed();
    for (const query of [
      'deploy',
      'deploying the runner',
      'cafe',
      'CAFÉ résumé',
      '東京',
      'コーヒー',
      '北京 部署',
      '서울',
      '66',
      '2024 version',
      'x'.repeat(3000),
      'cat garden',
      'running',
      'nothing-matches-this',
    ]) {
      const hits = await sameMatch(query, { agentId: 1 });
      if (query === 'deploy') expect(hits.length).toBeGreaterThan(1);
      if (query === 'x'.repeat(3000)) expect(hits.map(key)).toEqual(['archive/9/']);
    }
    await sameMatch('deploy', { agentId: 2 });
    await sameMatch('deploy garden', { agentId: 1, layers: ['archive'] });
    await sameMatch('deploy garden', { agentId: 1, sceneId: 'scene-2' });
    await sameMatch('deploy', { agentId: 1, lineId: 'line-a' });
    await sameMatch('deploy cat', { agentId: 1, from: 1_020, to: 1_100 });
    await sameMatch('deploy cat', { agentId: 1, topicId: 'topic-0' });
    await sameMatch('deploy', { agentId: 1 }, 1);
  });

  it('keeps scores equal after rows are replaced and removed', async () => {
    await seed();
    await same((r) => r.index.upsert({ ...docs()[1]!, text: 'now about gardens and cats, not deploys' }));
    await same((r) => r.index.upsert({ ...docs()[7]!, text: 'deploy deploy' }));
    expect(await same((r) => r.index.remove('archive', '2'))).toBe(1);
    expect(await same((r) => r.index.remove('archive', 'missing'))).toBe(0);
    await sameMatch('deploy garden cats', { agentId: 1 });
    await sameMatch('running', { agentId: 1 });
  });

  it('document frequencies, recent rows, rows by id, neighbours and a topic’s records agree', async () => {
    await seed();
    for (const term of [stem('deploy'), 'deploy', stem('running'), 'cafe', '東京', 'nothing', '']) {
      await same((r) => r.recall.documentFrequency(term));
    }
    expect(await same((r) => r.recall.documentFrequency(stem('deploy')))).toBe(3);
    const recent = await pair.both(async (r) => (await r.recall.recent({ agentId: 1 }, 5)).map(strip));
    expect(recent.pg).toEqual(recent.sqlite);
    const filtered = await pair.both(async (r) =>
      (await r.recall.recent({ agentId: 1, layers: ['radial'], from: 1_000, to: 1_090 }, 50)).map(strip),
    );
    expect(filtered.pg).toEqual(filtered.sqlite);
    const byId = await pair.both(async (r) =>
      (await r.recall.docs([3, 1, 999, 5])).map(strip).sort((a, b) => a.ref.localeCompare(b.ref)),
    );
    expect(byId.pg).toEqual(byId.sqlite);
    expect(byId.pg).toHaveLength(3);
    const seeds = [
      { rowid: 5, sceneId: 'scene-1' },
      { rowid: 12, sceneId: 'scene-2' },
      { rowid: 1, sceneId: 'scene-1' },
    ];
    expect((await same((r) => r.recall.sceneNeighboursOf(seeds, 2))).size).toBeGreaterThan(0);
    await same((r) => r.recall.sceneNeighboursOf(seeds, 1));
    await same((r) => r.recall.topicRecords('topic-0', 10));
    await same((r) => r.recall.topicRecords('topic-1', 1));
    expect(
      (await same((r) => r.recall.topicsRecords(['topic-1', 'topic-0', 'topic-1'], 10))).length,
    ).toBeGreaterThan(1);
    await same((r) => r.recall.topicsRecords(['topic-0', 'topic-1'], 1));
    // One batched read gives what one read per topic gives (topics in id order, rows as written).
    const batched = await same((r) => r.recall.topicsRecords(['topic-1', 'topic-0'], 2));
    const each = [
      ...(await same((r) => r.recall.topicRecords('topic-0', 2))),
      ...(await same((r) => r.recall.topicRecords('topic-1', 2))),
    ];
    expect(batched).toEqual(each);
    await same((r) => r.recall.topicsRecords([], 5));
    await same((r) => r.recall.approximateDocCount());
  });

  it('reads archive records and resolves every layer’s text the same way', async () => {
    await same(async (r) => {
      await r.exec(
        "INSERT INTO scenes (id, agent_id, name, created_at, last_used_at) VALUES ('s1', 1, 'S', 1, 1)",
      );
      await r.exec(
        `INSERT INTO topics (id, agent_id, scene_id, kind, status, name, keywords, outcome, opened_at, closed_at)
         VALUES ('t1', 1, 's1', 'turn', 'closed', 'Deploys', '["ci","runner"]', 'fixed', 1, 2)`,
      );
      await r.exec(
        `INSERT INTO archive (id, agent_id, topic_id, seq, kind, role, speaker, content, created_at)
         VALUES (1, 1, 't1', 1, 'utterance', 'user', 'Ana', 'Ana: the runner is out of disk 東京', 3)`,
      );
      await r.exec(
        `INSERT INTO archive (id, agent_id, topic_id, seq, kind, event_type, content, created_at)
         VALUES (2, 1, 't1', 2, 'event', 'tool', '😀 emoji first, then text', 4)`,
      );
      await r.exec(
        `INSERT INTO profiles (agent_id, name, role, personality, preferences, updated_at)
         VALUES (1, 'Hop', 'helper', 'calm', '{"tea":"green","n":3}', 1)`,
      );
      await r.exec("INSERT INTO kg_graphs (id, label, created_at, updated_at) VALUES ('g1', 'Team', 1, 1)");
      await r.exec(
        `INSERT INTO kg_nodes (id, graph_id, title, type, content, observations, created_at, updated_at)
         VALUES ('k1', 'g1', 'Ana', 'person', 'runs CI', '["likes tea"]', 1, 1)`,
      );
    });
    await same((r) => r.recall.archiveRecords([1, 2, 3]));
    expect(await same((r) => r.recall.speakerHeads([1, 2, 3], 64))).toEqual(
      new Map([[1, { speaker: 'Ana' }]]),
    );
    await same((r) => r.recall.speakerHeads([1, 2], 3));
    const rows: DocRow[] = [
      {
        rowid: 1,
        agentId: 1,
        layer: 'archive',
        ref: '1',
        part: '',
        lineId: null,
        sceneId: 's1',
        topicId: 't1',
        createdAt: 3,
      },
      {
        rowid: 2,
        agentId: 1,
        layer: 'archive',
        ref: '2',
        part: '',
        lineId: null,
        sceneId: 's1',
        topicId: 't1',
        createdAt: 4,
      },
      {
        rowid: 3,
        agentId: 1,
        layer: 'topic',
        ref: 't1',
        part: '',
        lineId: null,
        sceneId: 's1',
        topicId: 't1',
        createdAt: 1,
      },
      {
        rowid: 4,
        agentId: 1,
        layer: 'profile',
        ref: '1',
        part: 'preferences',
        lineId: null,
        sceneId: null,
        topicId: null,
        createdAt: 1,
      },
      {
        rowid: 5,
        agentId: 1,
        layer: 'profile',
        ref: '1',
        part: '',
        lineId: null,
        sceneId: null,
        topicId: null,
        createdAt: 1,
      },
      {
        rowid: 6,
        agentId: null,
        layer: 'knowledge',
        ref: 'k1',
        part: '',
        lineId: null,
        sceneId: null,
        topicId: null,
        createdAt: 1,
      },
      {
        rowid: 7,
        agentId: 1,
        layer: 'archive',
        ref: '99',
        part: '',
        lineId: null,
        sceneId: null,
        topicId: null,
        createdAt: 1,
      },
      {
        rowid: 8,
        agentId: 1,
        layer: 'radial',
        ref: 'none',
        part: 'full',
        lineId: 'x',
        sceneId: null,
        topicId: null,
        createdAt: 1,
      },
    ];
    const resolved = await same((r) => r.recall.resolve(rows));
    expect(resolved.size).toBe(6);
    expect(resolved.get(4)?.text).toBe('tea: green');
  });

  it('in a read snapshot, answers the archive records of rows it has read from what came with them, as SQLite answers', async () => {
    const long = `Bo: ${'word '.repeat(500)}end`;
    const records: [number, string, string | null, string | null, string][] = [
      [1, 'utterance', 'user', 'Ana', 'Ana: the runner is out of disk'],
      [2, 'utterance', 'agent', null, 'Caroline: deploy the runner again 東京'],
      [3, 'utterance', 'user', null, 'no label, but deploy: here'],
      [4, 'utterance', 'agent', null, long],
      [5, 'event', null, null, '😀 deploy output'],
    ];
    await same(async (r) => {
      await r.exec(
        "INSERT INTO scenes (id, agent_id, name, created_at, last_used_at) VALUES ('s1', 1, 'S', 1, 1)",
      );
      await r.exec(
        `INSERT INTO topics (id, agent_id, scene_id, kind, status, name, keywords, outcome, opened_at, closed_at)
         VALUES ('t1', 1, 's1', 'turn', 'closed', 'Deploys', '[]', NULL, 1, 2)`,
      );
      for (const [id, kind, role, speaker, content] of records) {
        await r.exec(
          `INSERT INTO archive (id, agent_id, topic_id, seq, kind, role, speaker, event_type, content, created_at)
           VALUES (?, 1, 't1', ?, ?, ?, ?, ?, ?, ?)`,
          [id, id, kind, role, speaker, kind === 'event' ? 'tool' : null, content, id],
        );
        await r.index.upsert({
          layer: 'archive',
          ref: String(id),
          part: '',
          agentId: 1,
          lineId: null,
          sceneId: 's1',
          topicId: 't1',
          createdAt: id,
          text: content,
        });
      }
    });
    const ids = [1, 2, 3, 4, 5];
    const ask = async (recall: Repos['recall'], found: readonly DocRow[]) => ({
      records: await recall.archiveRecords(ids),
      heads: await recall.speakerHeads(ids, 64),
      short: await recall.speakerHeads(ids, 9),
      texts: await recall.resolve(found),
    });
    const expected = await pair.sqlite.read('expected', async (tx) => {
      const found = await tx.recall.topicsRecords(['t1'], 10);
      return { found, ...(await ask(tx.recall, found)) };
    });
    expect(expected.found).toHaveLength(5);
    let statements = 0;
    const counting = {
      query: <R extends object>(text: string, values?: readonly unknown[]) => {
        statements++;
        return pair.pg.db.query<R>(text, values);
      },
    };
    await pair.pg.db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    try {
      const repo = new PgRecallRepo(counting, undefined, true);
      const found = await repo.topicsRecords(['t1'], 10);
      const before = statements;
      const got = { found, ...(await ask(repo, found)) };
      expect(got).toEqual(expected);
      // Only the record too long to come along is read again (its words, then its text).
      expect(statements - before).toBe(2);
    } finally {
      await pair.pg.db.query('COMMIT');
    }
  });

  it('a read keeps its counts for later matches and reads, caps counts when asked, and counts afresh after a write', async () => {
    await seed();
    const terms = [stem('deploy'), stem('cat'), stem('garden'), '東京', 'nothing'];
    const query = 'deploy cat garden 東京';
    const expected = await pair.sqlite.read('expected', async (tx) => {
      const statistics = await tx.recall.termStatistics(terms);
      return {
        documents: statistics.documents,
        frequencies: terms.map((t) => statistics.frequency(t)),
        match: await tx.recall.match(expressionOf(query), { agentId: 1 }, 50),
      };
    });
    expect(expected.frequencies[0]).toBe(3);
    const shared = new TermCounts();
    /** One `store.read`-like snapshot on PostgreSQL: statistics (capped first, then exact), then a match. */
    const onPg = async () => {
      await pair.pg.db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const repo = new PgRecallRepo(pair.pg.db, shared);
        const capped = await repo.termStatistics(terms, 1);
        const statistics = await repo.termStatistics(terms);
        const match = await repo.match(expressionOf(query), { agentId: 1 }, 50);
        return {
          capped: terms.map((t) => capped.frequency(t)),
          documents: statistics.documents,
          frequencies: terms.map((t) => statistics.frequency(t)),
          match,
        };
      } finally {
        await pair.pg.db.query('COMMIT');
      }
    };
    for (let round = 0; round < 2; round++) {
      const got = await onPg();
      // Above the cap a count only says so (counting stopped at 2 in the first read; the second
      // reuses the first's exact counts); at or below it, it is exact.
      got.capped.forEach((count, i) => {
        const exact = expected.frequencies[i] as number;
        if (exact > 1) expect(count).toBe(round === 0 ? 2 : exact);
        else expect(count).toBe(exact);
      });
      expect(got.frequencies).toEqual(expected.frequencies);
      expect(got.documents).toBe(expected.documents);
      expect(got.match.map((row) => ({ key: key(row), row: strip(row) }))).toEqual(
        expected.match.map((row) => ({ key: key(row), row: strip(row) })),
      );
      got.match.forEach((row, i) => expect(row.bm25).toBeCloseTo(expected.match[i]!.bm25, 9));
      expect(shared.snapshot).toBeDefined();
    }
    // A write makes a new snapshot: the kept counts are not used for it.
    const before = shared.snapshot;
    await same((r) => r.index.upsert({ ...docs()[0]!, ref: '100', text: 'deploy the cat' }));
    const after = await onPg();
    expect(shared.snapshot).not.toBe(before);
    const fresh = await pair.sqlite.read('fresh', async (tx) => {
      const statistics = await tx.recall.termStatistics(terms);
      return terms.map((t) => statistics.frequency(t));
    });
    expect(fresh[0]).toBe(4);
    expect(after.frequencies).toEqual(fresh);
  });

  it('refuses a match expression that is not quoted words joined by OR', async () => {
    await seed();
    for (const bad of ['deploy', '"deploy" AND "cat"', '"unterminated', '"a" OR', 'NEAR("a" "b")']) {
      const { pg: fromPg } = await pair.both((r) => r.recall.match(bad, { agentId: 1 }, 5));
      expect(fromPg).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    }
  });
});
