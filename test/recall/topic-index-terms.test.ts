import { afterEach, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import { exportDump, importDump } from '../../src/api/dump.js';
import { reindex } from '../../src/memory/recall/reindex.js';
import { indexTerms } from '../../src/core/topic-terms.js';
import { describeEngines, freshMemoryPath } from '../helpers/engines.js';

// A turn shows at most 15 keywords, but its topic row in the recall index holds every word of
// the turn a keyword could have been: a question that names a word the 15 left out still finds
// the turn's topic, and renaming, reindexing or a dump round trip keep it so.
const input =
  'Before the trip I packed the tent, two sleeping bags, a camping stove, the water filter, ' +
  'headlamps, spare batteries, a first-aid kit, trekking poles, rain jackets, wool socks, ' +
  'a paper map, a compass, sunscreen, insect repellent, and the old enamel kettle.';
const output = 'That sounds like a well-planned trip to the lakes.';

const dbs: MemoryDB[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) if (!db.closed) await db.close();
});

async function open(path = freshMemoryPath()): Promise<MemoryDB> {
  const db = await openMemory(path, { durability: 'normal', dream: { auto: false } });
  dbs.push(db);
  return db;
}

async function topicHits(db: MemoryDB, query: string): Promise<string[]> {
  const { hits } = await db.primary().recall(query, { layers: ['topic'], budgetTokens: 0 });
  return hits.map((h) => h.ref);
}

describeEngines('topic index terms', () => {
  it('lists content words, adjacent pairs and facts of the texts, distinct, in order', () => {
    const terms = indexTerms(['Alice moved the billing DB to Postgres 16 on 2024-05-01.']);
    expect(terms).toEqual(expect.arrayContaining(['Alice', 'billing', 'billing DB', 'DB', '2024-05-01']));
    expect(terms).not.toContain('the');
    expect(new Set(terms.map((t) => t.toLowerCase())).size).toBe(terms.length);
    expect(indexTerms([' ', ''])).toEqual([]);
  });

  it('finds a turn by a word its shown keywords left out, after rename, reindex and a dump round trip', async () => {
    const db = await open();
    const agent = db.primary();
    await agent.search({ newScene: true, sceneName: 'trip planning' });
    const { topic } = await agent.update({ input, output });
    expect(topic.keywords.length).toBeLessThanOrEqual(15);
    const shown = topic.keywords.join(' ').toLowerCase();
    // A word of the turn the keywords do not hold (the input names 16 things).
    const missing = ['kettle', 'enamel', 'repellent', 'sunscreen', 'compass', 'socks', 'headlamps'].find(
      (w) => !shown.includes(w),
    );
    expect(missing).toBeDefined();
    expect(await topicHits(db, missing!)).toEqual([topic.id]);

    await agent.renameTopic(topic.id, 'Packing list');
    expect(await topicHits(db, missing!)).toEqual([topic.id]);
    expect(await topicHits(db, 'packing list')).toEqual([topic.id]);

    await reindex(db.memoryStore);
    expect(await topicHits(db, missing!)).toEqual([topic.id]);

    const lines: string[] = [];
    await exportDump(db, (line) => lines.push(line));
    const restored = freshMemoryPath();
    await importDump(restored, lines);
    const copy = await open(restored);
    expect(await topicHits(copy, missing!)).toEqual([topic.id]);
    await expect(copy.check()).resolves.toMatchObject({ ok: true });
  });
});
