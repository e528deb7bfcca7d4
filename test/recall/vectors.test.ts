import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import { HedgehopError } from '../../src/core/errors.js';
import { searchIndex } from '../../src/recall/search.js';
import { backfillEmbeddings, configureEmbedder } from '../../src/recall/vectors.js';
import { MockEmbedder } from '../../src/llm/mock-embedder.js';
import type { Embedder } from '../../src/llm/types.js';
import { describeEngines, freshMemoryPath } from '../helpers/engines.js';
import { tempFile } from '../helpers/temp.js';

let path: string;
let db: MemoryDB;
const T0 = Date.UTC(2024, 0, 1);

beforeEach(async () => {
  path = freshMemoryPath();
  db = await openMemory(path, { durability: 'normal', dream: { auto: false } });
});

afterEach(async () => {
  if (!db.closed) await db.close();
});

/** An embedder that maps texts about animals and texts about money to two directions. */
class TopicEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId = 'topic-2';
  readonly dimensions = 2;
  calls = 0;
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    return Promise.resolve(
      texts.map((t) =>
        /cat|dog|kitten|puppy|pet/iu.test(t) ? new Float32Array([1, 0.01]) : new Float32Array([0.01, 1]),
      ),
    );
  }
}

async function say(agentName: string | undefined, lines: readonly string[]): Promise<void> {
  const agent = agentName ? await db.agent(agentName) : db.primary();
  for (const line of lines) {
    await agent.search({});
    await agent.update({ input: line, createdAt: T0 });
  }
}

describeEngines('vectors', () => {
  it('backfills pending rows outside transactions and fuses vector hits with BM25', async () => {
    await say(undefined, [
      'I adopted a kitten last week',
      'The invoice total was wrong',
      'The budget review is on Monday',
    ]);
    const store = db.memoryStore;
    const embedder = new TopicEmbedder();
    expect(await configureEmbedder(store, embedder)).toBe('created');
    expect(await store.read('t', (tx) => tx.vectors.pendingCount())).toBeGreaterThan(0);
    const report = await backfillEmbeddings(store, embedder, { batchSize: 2 });
    expect(report.embedded).toBeGreaterThan(0);
    expect(report.pending).toBe(0);
    const agentId = db.primary().info().id;
    // "pet" is in no record: BM25 finds nothing, the vector finds the kitten.
    const lexical = await searchIndex(store, { agentId, query: 'pet', layers: ['archive'] });
    expect(lexical).toEqual([]);
    const fused = await searchIndex(store, { agentId, query: 'pet', layers: ['archive'], embedder });
    expect(fused[0]?.ref).toBeDefined();
    const record = (await db.primary().searchArchive({})).find((r) => r.id === fused[0]?.ref);
    expect(record?.content).toContain('kitten');
  });

  it('marks rewritten rows pending and keeps agents apart in the vector search', async () => {
    await say(undefined, ['my cat sleeps all day']);
    await say('other', ['their dog barks at night']);
    const store = db.memoryStore;
    const embedder = new TopicEmbedder();
    await backfillEmbeddings(store, embedder);
    const other = (await db.agent('other')).info().id;
    const hits = await searchIndex(store, { agentId: other, query: 'pet', layers: ['archive'], embedder });
    const records = await (await db.agent('other')).searchArchive({});
    expect(hits.every((h) => records.some((r) => r.id === h.ref))).toBe(true);
    await say(undefined, ['a new puppy arrived']);
    expect(await store.read('t', (tx) => tx.vectors.pendingCount())).toBeGreaterThan(0);
  });

  it('never mixes models: another model is a CONFLICT unless replaced', async () => {
    await say(undefined, ['hello there']);
    const store = db.memoryStore;
    await backfillEmbeddings(store, new MockEmbedder({ dimensions: 8 }));
    const error = await (async () => {
      try {
        await configureEmbedder(store, new MockEmbedder({ dimensions: 16 }));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(HedgehopError.isInstance(error) && error.code).toBe('CONFLICT');
    expect(await configureEmbedder(store, new MockEmbedder({ dimensions: 16 }), { replace: true })).toBe(
      'replaced',
    );
    expect(await store.read('t', (tx) => tx.vectors.model())).toEqual({
      modelId: 'mock-hash-16',
      dimensions: 16,
    });
    expect(await store.read('t', (tx) => tx.vectors.pendingCount())).toBeGreaterThan(0);
    const report = await backfillEmbeddings(store, new MockEmbedder({ dimensions: 16 }));
    expect(report.pending).toBe(0);
  });

  it('leaves rows pending when the embedder fails, and recall still answers', async () => {
    await db.close();
    const embedder = new MockEmbedder({ dimensions: 8 });
    embedder.failing = true;
    db = await openMemory(path, { durability: 'normal', dream: { auto: false }, embedder });
    await say(undefined, ['the deploy key expired']);
    await expect(backfillEmbeddings(db.memoryStore, embedder)).rejects.toThrow();
    const result = await db.primary().recall('deploy key');
    expect(result.hits.length).toBeGreaterThan(0);
    expect(await db.memoryStore.read('t', (tx) => tx.vectors.pendingCount())).toBeGreaterThan(0);
    embedder.failing = false;
    await db.primary().recall('deploy key');
    expect(await db.memoryStore.read('t', (tx) => tx.vectors.pendingCount())).toBe(0);
  });
});

/** An embedder that turns `angle N` in a text into the unit vector at N degrees (else 90°). */
class AngleEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId = 'angle-2';
  readonly dimensions = 2;
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(
      texts.map((text) => {
        const degrees = Number(/angle (\d+)/u.exec(text)?.[1] ?? 90);
        const radians = (degrees * Math.PI) / 180;
        return new Float32Array([Math.cos(radians), Math.sin(radians)]);
      }),
    );
  }
}

describeEngines('vector nearest over own and file-wide rows', () => {
  it("returns the k nearest of the agent's own and the file-wide rows together, never another agent's", async () => {
    await say(undefined, ['angle 10 from me', 'angle 50 from me']);
    await say('other', ['angle 5 from them', 'angle 20 from them']);
    await db.knowledge
      .memoryServer()
      .createEntities([{ name: 'angle 30 shared', entityType: 'thing', observations: [] }]);
    const store = db.memoryStore;
    await backfillEmbeddings(store, new AngleEmbedder());
    const own = db.primary().info().id;
    const other = (await db.agent('other')).info().id;
    const query = new Float32Array([1, 0]);
    const described = (k: number) =>
      store.read('t', async (tx) => {
        const matches = await tx.vectors.nearest(query, own, k);
        const docs = new Map((await tx.recall.docs(matches.map((m) => m.rowid))).map((d) => [d.rowid, d]));
        return matches.map((m) => ({ distance: m.distance, doc: docs.get(m.rowid) }));
      });
    const all = await described(100);
    expect(all.length).toBeGreaterThan(0);
    expect(all.some((hit) => hit.doc?.agentId === other)).toBe(false);
    expect(all.every((hit) => hit.doc?.agentId === own || hit.doc?.agentId === null)).toBe(true);
    const distances = all.map((hit) => hit.distance);
    expect(distances).toEqual([...distances].sort((a, b) => a - b));
    // Nearest to 0°: the own 10° utterance, then the shared 30° node, then the own 50° one.
    const angles = (hits: typeof all) =>
      hits.map((hit) => Math.round((Math.acos(1 - hit.distance) * 180) / Math.PI));
    expect(angles(all).slice(0, 3)).toEqual([10, 30, 50]);
    expect(all[1]?.doc?.layer).toBe('knowledge');
    expect(angles(await described(2))).toEqual([10, 30]);
    // The other agent's rows have vectors too: its own nearest is its 5° utterance.
    const theirs = await store.read('t', (tx) => tx.vectors.nearest(query, other, 1));
    expect(Math.round((Math.acos(1 - (theirs[0]?.distance ?? 1)) * 180) / Math.PI)).toBe(5);
  });
});

describe('vector table layout (SQLite)', () => {
  it('rebuilds a table of the old layout (1,024-vector chunks) when an embedder is configured, keeping every vector', async () => {
    const file = tempFile('vectors-layout.db');
    let memory = await openMemory(file, { durability: 'normal', dream: { auto: false } });
    const agent = memory.primary();
    for (const [i, line] of ['angle 10 a', 'angle 40 b', 'angle 70 c'].entries()) {
      await agent.search({});
      await agent.update({ input: line, createdAt: T0 + i });
    }
    await backfillEmbeddings(memory.memoryStore, new AngleEmbedder());
    await memory.close();
    // What an earlier build wrote: sqlite-vec's default chunks.
    const raw = new Database(file);
    raw.loadExtension(sqliteVec.getLoadablePath());
    const before = raw
      .prepare('SELECT rowid AS id, agent_id, embedding FROM search_vec ORDER BY rowid')
      .all() as { id: number; agent_id: number; embedding: Buffer }[];
    raw.exec('DROP TABLE search_vec');
    raw.exec(
      'CREATE VIRTUAL TABLE search_vec USING vec0(agent_id integer, embedding float[2] distance_metric=cosine)',
    );
    const insert = raw.prepare('INSERT INTO search_vec (rowid, agent_id, embedding) VALUES (?, ?, ?)');
    for (const row of before) insert.run(BigInt(row.id), BigInt(row.agent_id), row.embedding);
    raw.close();
    expect(before.length).toBeGreaterThanOrEqual(3);

    memory = await openMemory(file, { durability: 'normal', dream: { auto: false } });
    const store = memory.memoryStore;
    expect(await store.read('t', (tx) => tx.vectors.layoutCurrent())).toBe(false);
    const embedder = new AngleEmbedder();
    let calls = 0;
    const counting: Embedder = {
      ...embedder,
      modelId: embedder.modelId,
      dimensions: embedder.dimensions,
      specificationVersion: 'v1',
      embed: (texts) => {
        calls += texts.length;
        return embedder.embed(texts);
      },
    };
    expect(await configureEmbedder(store, counting)).toBe('unchanged');
    expect(await store.read('t', (tx) => tx.vectors.layoutCurrent())).toBe(true);
    expect(await store.read('t', (tx) => tx.vectors.pendingCount())).toBe(0);
    const nearest = await store.read('t', (tx) =>
      tx.vectors.nearest(new Float32Array([1, 0]), memory.primary().info().id, 10),
    );
    await memory.close();
    expect(calls).toBe(0);
    const check = new Database(file);
    check.loadExtension(sqliteVec.getLoadablePath());
    const sql = check.prepare("SELECT sql FROM sqlite_master WHERE name = 'search_vec'").pluck().get();
    const after = check
      .prepare('SELECT rowid AS id, agent_id, embedding FROM search_vec ORDER BY rowid')
      .all() as typeof before;
    check.close();
    expect(sql).toContain('chunk_size=32');
    expect(after).toEqual(before);
    expect(nearest.map((match) => match.rowid)).toEqual(
      [...before]
        .sort((a, b) => b.embedding.readFloatLE(0) - a.embedding.readFloatLE(0))
        .map((row) => row.id),
    );
  });
});
