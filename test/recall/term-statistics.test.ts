import { afterEach, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import { stem } from '../../src/recall/query.js';
import { freshMemoryPath } from '../helpers/engines.js';

// SQLite only: the statistics cache across writes is the SQLite repository's (PostgreSQL reads
// the frequencies of each query in one batch and keeps none).
const WORDS = ['deploy', 'server', 'review', 'budget', 'meeting', 'client', 'lantern', 'harbor'];
const T0 = Date.UTC(2025, 0, 1);
const opened: MemoryDB[] = [];

afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

/** Each word's frequency through the cache, beside a fresh count from `search_vocab`. */
function frequencies(db: MemoryDB): { cached: number[]; fresh: number[] } {
  const stems = WORDS.map((w) => stem(w));
  return db.store.engine.read('t', () => {
    const statistics = db.store.direct.recall.termStatistics(stems);
    return {
      cached: stems.map((s) => statistics.frequency(s)),
      fresh: stems.map((s) => db.store.direct.recall.documentFrequency(s)),
    };
  });
}

it('remembered document frequencies follow every kind of write (own inserts, deletes, another connection)', async () => {
  const path = freshMemoryPath();
  const db = await openMemory(path, { durability: 'normal', dream: { auto: false } });
  opened.push(db);
  const agent = db.primary();
  await agent.search({ newScene: true });
  await agent.appendArchiveMany(
    Array.from({ length: 40 }, (_, i) => ({
      kind: 'utterance' as const,
      role: 'user' as const,
      content: `${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]} notes`,
      createdAt: T0 + i,
    })),
  );
  await agent.update({ createdAt: T0 + 100, outcome: 'first' });
  const first = frequencies(db);
  expect(first.cached).toEqual(first.fresh);

  // A few own inserts: only their words are forgotten, and re-read.
  await agent.search({ newScene: true });
  await agent.appendArchive({
    kind: 'utterance',
    role: 'user',
    content: 'lantern lantern harbor',
    createdAt: T0 + 200,
  });
  const second = frequencies(db);
  expect(second.cached).toEqual(second.fresh);
  expect(second.fresh[WORDS.indexOf('lantern')]).toBe((first.fresh[WORDS.indexOf('lantern')] ?? 0) + 1);

  // Many inserts (more than are noted one by one) in one call.
  await agent.appendArchiveMany(
    Array.from({ length: 100 }, (_, i) => ({
      kind: 'event' as const,
      eventType: 'tool_result',
      content: `budget review ${i}`,
      createdAt: T0 + 300 + i,
    })),
  );
  const third = frequencies(db);
  expect(third.cached).toEqual(third.fresh);

  // A deleted turn: the words of the deleted rows are unknown, all are forgotten.
  const topic = (await agent.searchArchive({ text: 'lantern harbor', limit: 1 }))[0]?.topicId;
  expect(topic).toBeDefined();
  await agent.deleteTopic(topic as string);
  const fourth = frequencies(db);
  expect(fourth.cached).toEqual(fourth.fresh);
  expect(fourth.fresh).not.toEqual(third.fresh);

  // Another connection's commit.
  const other = await openMemory(path, { durability: 'normal', dream: { auto: false } });
  opened.push(other);
  const writer = other.primary();
  await writer.search({ newScene: true });
  await writer.appendArchive({
    kind: 'utterance',
    role: 'user',
    content: 'deploy client meeting',
    createdAt: T0 + 900,
  });
  await writer.update({ createdAt: T0 + 901, outcome: 'other' });
  const fifth = frequencies(db);
  expect(fifth.cached).toEqual(fifth.fresh);
  expect(fifth.fresh).not.toEqual(fourth.fresh);
});

it('a capped count is exact up to the cap and above it past the cap, and never stands for an exact count', async () => {
  const db = await openMemory(freshMemoryPath(), { durability: 'normal', dream: { auto: false } });
  opened.push(db);
  const agent = db.primary();
  await agent.search({ newScene: true });
  // 'lantern' in 30 records and the turn's topic row, 'harbor' in 5 and the topic row; 'agreed'
  // stems to a term that FTS5 would stem again (counted exactly).
  await agent.appendArchiveMany(
    Array.from({ length: 30 }, (_, i) => ({
      kind: 'utterance' as const,
      role: 'user' as const,
      content: `lantern notes ${i < 5 ? 'harbor agreed' : 'plain'}`,
      createdAt: T0 + i,
    })),
  );
  await agent.update({ createdAt: T0 + 100, outcome: 'seeded' });
  const read = <T>(fn: (repo: typeof db.store.direct.recall) => T): T =>
    db.store.engine.read('t', () => fn(db.store.direct.recall));
  const [lantern, harbor, agreed] = ['lantern', 'harbor', 'agreed'].map((w) => stem(w)) as [
    string,
    string,
    string,
  ];
  const exact = (term: string): number => read((repo) => repo.documentFrequency(term));
  expect([exact(lantern), exact(harbor), exact(agreed)]).toEqual([31, 6, 6]);
  read((repo) => {
    const capped = repo.termStatistics([lantern, harbor, agreed], 10);
    expect(capped.frequency(lantern)).toBeGreaterThan(10);
    expect(capped.frequency(harbor)).toBe(6);
    expect(capped.frequency(agreed)).toBe(6);
    // A lower cap is answered from what the higher one learned; a higher one counts again.
    expect(repo.termStatistics([lantern], 4).frequency(lantern)).toBeGreaterThan(4);
    expect(repo.termStatistics([lantern], 20).frequency(lantern)).toBeGreaterThan(20);
    expect(repo.termStatistics([lantern], 100).frequency(lantern)).toBe(31);
  });
  read((repo) => {
    repo.termStatistics([lantern], 10).frequency(lantern);
    // The remembered capped count is not taken for the exact one.
    expect(repo.termStatistics([lantern, harbor]).frequency(lantern)).toBe(31);
    expect(repo.termStatistics([harbor]).frequency(harbor)).toBe(6);
  });
});
