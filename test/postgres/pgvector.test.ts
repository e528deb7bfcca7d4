import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { exportDump, importDump, openMemory, type MemoryDB } from '../../src/index.js';
import type { Embedder } from '../../src/llm/types.js';
import { MockEmbedder } from '../../src/llm/mock-embedder.js';
import { startPgliteVector } from '../helpers/pglite-vector.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The whole engine on pgvector's `vector(n)` column (Debian's PostgreSQL has no pgvector, so
 * the throwaway server of `npm run test:postgres` tests the `real[]` path): a PGlite with
 * pgvector reached by URL through its socket server, as any server is.
 */
const lite = await startPgliteVector();
const skip = typeof lite === 'string' ? lite : undefined;
if (skip) console.log(`skipped: hedgehop on pgvector (${skip})`);
afterAll(async () => {
  if (typeof lite !== 'string') await lite.stop();
});

const embedder = new MockEmbedder({ dimensions: 8 });
let memories = 0;

function memoryUrl(): string {
  if (typeof lite === 'string') throw new Error(lite);
  // PGlite's connections share one server session, so a statement prepared through one client
  // is already there for the next: the engine must send its statements unnamed.
  return `${lite.url}?prepared_statements=false&memory=vec_${process.pid}_${++memories}`;
}

async function dumpOf(path: string): Promise<string> {
  const db = await openMemory(path, { embedder, dream: { auto: false } });
  const lines: string[] = [];
  await exportDump(db, (line) => lines.push(line));
  await db.close();
  return lines.join('');
}

async function fill(path: string): Promise<void> {
  const db = await openMemory(path, { embedder, dream: { auto: false } });
  const agent = db.primary();
  await agent.radial.createLine('auth', 'Authentication', 'Login and tokens');
  await agent.radial.completeTask({
    lineId: 'auth',
    taskLabel: 'JWT login',
    fullContext: 'POST /login returns tokens. café — 東京',
    conversationSummary: 'Stateless JWT with a refresh token.',
  });
  for (const [input, output] of [
    ['Where is the JWT secret?', 'In the vault at auth/jwt.'],
    ['How long do refresh tokens live?', 'Thirty days, rotated on use.'],
    ['Which database holds the invoices?', 'The billing replica.'],
  ]) {
    await agent.search({});
    await agent.update({ input, output, createdAt: 2_000 });
  }
  await agent.recall('tokens');
  await db.close();
}

async function columnType(url: string): Promise<string | undefined> {
  const memory = new URLSearchParams(url.split('?')[1]).get('memory');
  const client = new pg.Client({ connectionString: url.split('?')[0] });
  await client.connect();
  try {
    const { rows } = await client.query<{ t: string }>(
      `SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute
       WHERE attrelid = to_regclass($1) AND attname = 'embedding'`,
      [`"hedgehop_${memory}".search_vec`],
    );
    return rows[0]?.t;
  } finally {
    await client.end();
  }
}

/** Texts about animals and texts about anything else point two ways. */
class TopicEmbedder implements Embedder {
  readonly specificationVersion = 'v1' as const;
  readonly modelId = 'topic-2';
  readonly dimensions = 2;
  embed(texts: readonly string[]): Promise<Float32Array[]> {
    return Promise.resolve(
      texts.map((t) =>
        /cat|dog|kitten|puppy|pet/iu.test(t) ? new Float32Array([1, 0.01]) : new Float32Array([0.01, 1]),
      ),
    );
  }
}

const hitsOf = async (db: MemoryDB, query: string): Promise<string[][]> =>
  (await db.primary().recall(query)).hits.map((hit) => [hit.layer, hit.ref]);

describe.skipIf(skip !== undefined)('hedgehop on a pgvector column (PGlite)', () => {
  it('embeds into a vector(n) column and recall finds by meaning what no word matches', async () => {
    const url = memoryUrl();
    const topics = new TopicEmbedder();
    const db = await openMemory(url, { embedder: topics, dream: { auto: false } });
    try {
      const agent = db.primary();
      for (const line of [
        'I adopted a kitten last week',
        'The invoice total was wrong',
        'Budget review on Monday',
      ]) {
        await agent.search({});
        await agent.update({ input: line, createdAt: 1_000 });
      }
      await agent.recall('budget');
      expect(await columnType(url)).toMatch(/vector\(2\)$/u);
      // "pet" is in no record: only the vector search can find the kitten.
      const { hits } = await agent.recall('pet', { layers: ['archive'] });
      const records = await agent.searchArchive({});
      expect(records.find((r) => r.id === hits[0]?.ref)?.content).toContain('kitten');
    } finally {
      await db.close();
    }
  });

  it('SQLite → pgvector → SQLite: byte-identical dumps, vectors included, and the same recall hits', async () => {
    const dir = tempDir();
    const source = join(dir, 'source.db');
    await fill(source);
    const first = await dumpOf(source);
    expect(first).toContain('{"table":"search_vec"');
    const url = memoryUrl();
    await importDump(url, first.split('\n'));
    expect(await columnType(url)).toMatch(/vector\(8\)$/u);
    expect(await dumpOf(url)).toBe(first);
    const moved = await openMemory(url, { embedder, dream: { auto: false } });
    const original = await openMemory(source, { embedder, dream: { auto: false } });
    try {
      for (const query of ['where do we keep the secret', 'invoices database', 'how long are tokens valid']) {
        const expected = await hitsOf(original, query);
        const got = await hitsOf(moved, query);
        expect(expected.length).toBeGreaterThan(0);
        // Rows at exactly the same distance (the mock embedder gives many) come in no defined
        // order from sqlite-vec; the same rows are found, the best first.
        expect(got[0]).toEqual(expected[0]);
        expect([...got].sort()).toEqual([...expected].sort());
      }
      const back = join(dir, 'back.db');
      await moved.compactTo(back);
      expect(await dumpOf(back)).toBe(first);
    } finally {
      await moved.close();
      await original.close();
    }
  });
});
