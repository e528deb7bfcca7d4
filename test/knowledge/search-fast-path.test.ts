import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/api/memory-db.js';
import type { KnowledgeBatch } from '../../src/core/model/knowledge.js';
import { SCHEMA_VERSION } from '../../src/store/migrations/index.js';
import { tempFile } from '../helpers/temp.js';
import { fresh } from './helpers.js';

const WORDS = ['auth', 'cache', 'Queue', 'billing', 'İstanbul', 'straße', 'kelvin', '東京タワー', 'node'];

/** A seeded graph whose words fall in titles, titles equal to a word, and other fields. */
function seededBatch(seed: number, count: number): KnowledgeBatch {
  const [picks] = fc.sample(
    fc.array(fc.tuple(fc.nat(WORDS.length - 1), fc.nat(WORDS.length - 1), fc.nat(3)), {
      minLength: count,
      maxLength: count,
    }),
    { seed, numRuns: 1 },
  );
  const used = new Set<string>();
  const nodes = (picks ?? []).map(([a, b, shape], i) => {
    const first = WORDS[a] as string;
    const second = WORDS[b] as string;
    // Some titles are a word itself (upper-cased once), some hold it, some hold neither.
    const bare = used.has(first) ? first.toUpperCase() : first;
    const title = shape === 0 && !used.has(bare) ? bare : shape <= 1 ? `node ${i} ${first}` : `item ${i}`;
    used.add(title);
    return {
      title,
      type: shape === 2 ? second : 'thing',
      keywords: shape === 3 ? [first, second] : [],
      content: `The ${second} part of item ${i}.`,
      observations: i % 5 === 0 ? [`seen with ${first}`] : [],
    };
  });
  return { graph: 'g', nodes };
}

const QUERIES = [
  'auth',
  'AUTH',
  'queue',
  'billing part',
  'i̇stanbul',
  'istanbul',
  'STRASSE',
  'straße',
  'kelvin',
  'タワー',
  'node',
  // Parts of words: the word index finds nothing, every hit comes from the substring tiers.
  'uth',
  'ode 1',
  'tem 2',
  'ueu',
  'no',
  'x',
  'item 1',
  'part of',
  '"quoted"',
  '*',
];

describe('knowledge search: the top of a limited search', () => {
  it('is the head of the full ranking (same nodes, same order)', async () => {
    for (const seed of [1, 2, 3]) {
      const { db } = await fresh();
      const { graphId } = await db.knowledge.import(seededBatch(seed, 300));
      // The memory-server search has no limit: it ranks every substring match (the full path).
      const memory = db.knowledge.memoryServer({ graph: 'g' });
      for (const query of QUERIES) {
        const full = (await memory.searchNodes(query)).entities.map((entity) => entity.name);
        for (const limit of [1, 5, 20]) {
          const top = await db.knowledge.search(query, { graphId, limit });
          expect(
            top.map((hit) => hit.node.title),
            `${query} / ${limit}`,
          ).toEqual(full.slice(0, limit));
        }
      }
      await db.close();
    }
  });

  it('finds what a JavaScript case-insensitive substring test finds, in any script', async () => {
    const { db } = await fresh();
    const { graphId } = await db.knowledge.import(seededBatch(9, 200));
    const all = await db.knowledge.queryNodes({ graphId });
    for (const query of QUERIES) {
      const lowered = query.toLowerCase();
      const expected = all
        .filter((node) =>
          [node.title, node.type, node.content, ...node.keywords, ...node.observations].some((text) =>
            text.toLowerCase().includes(lowered),
          ),
        )
        .map((node) => node.id);
      const found = await db.knowledge.queryNodes({ graphId, keyword: query });
      expect(
        found.map((node) => node.id),
        query,
      ).toEqual(expected);
    }
  });

  it('searches for a needle holding NUL (which FTS5 cannot parse) by scanning, without an error', async () => {
    const { db } = await fresh();
    const { graphId } = await db.knowledge.import({
      graph: 'g',
      nodes: [
        { title: 'with a nul', type: 'thing', content: 'before\u0000after the break' },
        { title: 'plain', type: 'thing', content: 'before and after' },
      ],
    });
    const found = await db.knowledge.queryNodes({ graphId, keyword: 'ore\u0000aft' });
    expect(found.map((node) => node.title)).toEqual(['with a nul']);
    const ranked = await db.knowledge.search('ore\u0000aft', { graphId, limit: 5 });
    expect(Array.isArray(ranked)).toBe(true);
  });

  it('keeps the substring index in step with updates and deletes', async () => {
    const { db } = await fresh();
    const { graphId } = await db.knowledge.import({
      graph: 'g',
      nodes: [
        { title: 'Alpha', content: 'holds the marker zebrafish' },
        { title: 'Beta', content: 'plain' },
      ],
    });
    const titles = async (query: string): Promise<string[]> =>
      (await db.knowledge.search(query, { graphId, limit: 10 })).map((hit) => hit.node.title);
    expect(await titles('zebrafish')).toEqual(['Alpha']);
    await db.knowledge.import(
      { graph: 'g', nodes: [{ title: 'Alpha', content: 'now about otters' }] },
      { mode: 'overwrite' },
    );
    expect(await titles('zebrafish')).toEqual([]);
    expect(await titles('otters')).toEqual(['Alpha']);
    const [beta] = await db.knowledge.queryNodes({ graphId, titles: ['Beta'] });
    await db.knowledge.addObservations([{ nodeId: beta?.id ?? '', observations: ['saw otters too'] }]);
    expect(await titles('otters')).toEqual(['Alpha', 'Beta']);
    await db.knowledge.deleteNodes([beta?.id ?? '']);
    expect(await titles('otters')).toEqual(['Alpha']);
    await db.knowledge.delete(graphId);
    const again = await db.knowledge.import({ graph: 'g', nodes: [{ title: 'Gamma', content: 'quiet' }] });
    expect(await db.knowledge.search('otters', { graphId: again.graphId, limit: 10 })).toEqual([]);
  });

  it('indexes the nodes of a file written before the index existed (schema 5)', async () => {
    const path = tempFile();
    const first = await openMemory(path);
    const { graphId } = await first.knowledge.import({
      graph: 'g',
      nodes: [
        { title: 'Old node', content: 'written at schema five about walruses' },
        { title: 'Other', content: 'nothing' },
      ],
    });
    await first.close();
    const raw = new Database(path);
    raw.exec('DROP TABLE kg_node_text');
    raw.pragma('user_version = 5');
    raw.close();
    const db = await openMemory(path);
    expect((await db.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    expect((await db.check()).ok).toBe(true);
    const hits = await db.knowledge.search('walrus', { graphId, limit: 5 });
    expect(hits.map((hit) => hit.node.title)).toEqual(['Old node']);
    await db.close();
  });
});
