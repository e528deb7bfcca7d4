/**
 * mem0's TypeScript open-source mode (`mem0ai/oss`) beside hedgehop, in one process, with the
 * same local deterministic embedder (feature hashing, 256 dimensions) and no network:
 * - mem0: its default `memory` vector store (SQLite through better-sqlite3) and its default
 *   SQLite history store, `add(text, { userId, infer: false })` (stores the text as a memory
 *   without asking an LLM: with `infer: true` every add is an LLM extraction call, which needs
 *   a model server) and `search(query, { filters: { userId }, topK: 10 })`;
 * - hedgehop: `appendArchive` of the same text in an open turn, with the same embedder, and
 *   `recall(query, { limit: 10 })` (BM25 + vectors fused), at `durability: 'full'`.
 * The LLM is pointed at a closed loopback port so that any call it made would fail here.
 * Started by bench/peers.ts with MEM0_TELEMETRY=false and HOME in a temporary folder (mem0
 * writes ~/.mem0/config.json). Args: <dir> <sizes JSON> <samples>. Prints one JSON line.
 */
import { join } from 'node:path';
import { Memory } from 'mem0ai/oss';
import { openMemory, type Embedder } from '../../src/index.js';
import { SyntheticCorpus } from '../corpus.js';
import { median, percentile } from '../harness.js';

const DIMENSIONS = 256;

/** Feature hashing: each word adds ±1 to one of 256 buckets; the vector is L2-normalised. */
function hashVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (word.length === 0) continue;
    let hash = 0x811c9dc5;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193) >>> 0;
    vector[hash % DIMENSIONS] = (vector[hash % DIMENSIONS] as number) + (hash & 0x80000000 ? -1 : 1);
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

/** The embedder mem0 takes (a LangChain-shaped object, via its `langchain` provider). */
const mem0Embedder = {
  embedQuery: async (text: string): Promise<number[]> => hashVector(text),
  embedDocuments: async (texts: string[]): Promise<number[][]> => texts.map(hashVector),
};

/** The same embedder for hedgehop. */
const hedgehopEmbedder: Embedder = {
  specificationVersion: 'v1',
  modelId: 'hashing-256',
  dimensions: DIMENSIONS,
  embed: async (texts) => texts.map((text) => Float32Array.from(hashVector(text))),
};

const [dir = '.', sizesJson = '[1000]', samplesText = '30'] = process.argv.slice(2);
const sizes = JSON.parse(sizesJson) as number[];
const samples = Number(samplesText);
const corpus = new SyntheticCorpus(23);
const USER = 'bench-user';

const mem0 = new Memory({
  embedder: { provider: 'langchain', config: { model: mem0Embedder } },
  vectorStore: {
    provider: 'memory',
    config: { collectionName: 'bench', dimension: DIMENSIONS, dbPath: join(dir, 'vector_store.db') },
  },
  historyStore: { provider: 'sqlite', config: { historyDbPath: join(dir, 'history.db') } },
  llm: { provider: 'openai', config: { apiKey: 'unused', baseURL: 'http://127.0.0.1:9/v1', model: 'none' } },
} as ConstructorParameters<typeof Memory>[0]);
const db = await openMemory(join(dir, 'hedgehop.db'), { embedder: hedgehopEmbedder });
const agent = db.primary();
await agent.search({ newScene: true });

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;
let time = 1_800_000_000_000;

async function addBoth(text: string): Promise<[number, number]> {
  const a = process.hrtime.bigint();
  await mem0.add(text, { userId: USER, infer: false });
  const theirs = ms(a);
  const b = process.hrtime.bigint();
  await agent.appendArchive({ kind: 'utterance', role: 'user', content: text, createdAt: time++ });
  return [ms(b), theirs];
}

/** Rows recall embeds per call at most (src/recall/recall.ts, RECALL_BACKFILL). */
const RECALL_BACKFILL = 64;
let embedded = 0;

/** Recalls until every memory added so far has had its turn at the backfill. */
async function catchUp(total: number): Promise<void> {
  for (; embedded < total; embedded += RECALL_BACKFILL) await agent.recall(corpus.query(), { limit: 10 });
  await agent.recall(corpus.query(), { limit: 10 });
}

interface Point {
  readonly size: number;
  readonly add: { ours: number[]; theirs: number[] };
  readonly search: { ours: number[]; theirs: number[] };
  readonly buildSeconds: { ours: number; theirs: number };
  readonly hits: { ours: number; theirs: number };
}

const points: Point[] = [];
let held = 0;
for (const size of sizes) {
  const build = { ours: 0, theirs: 0 };
  while (held < size) {
    const [ours, theirs] = await addBoth(corpus.text(200));
    build.ours += ours / 1000;
    build.theirs += theirs / 1000;
    held++;
    if (held % 1000 === 0) process.stderr.write(`mem0 probe: ${held} memories\n`);
  }
  // hedgehop embeds pending records on later recalls (at most RECALL_BACKFILL a call, in a write
  // transaction of its own): catch up before timing, so that the timed searches are recalls over
  // caught-up vectors (the steady state of one add per recall), not backfills.
  await catchUp(held);
  const add = { ours: [] as number[], theirs: [] as number[] };
  for (let i = 0; i < samples; i++) {
    const [ours, theirs] = await addBoth(corpus.text(200));
    add.ours.push(ours);
    add.theirs.push(theirs);
    held++;
  }
  await catchUp(held);
  const search = { ours: [] as number[], theirs: [] as number[] };
  const hits = { ours: 0, theirs: 0 };
  for (let i = 0; i < samples; i++) {
    const query = corpus.query();
    const a = process.hrtime.bigint();
    const found = await mem0.search(query, { filters: { user_id: USER }, topK: 10 });
    search.theirs.push(ms(a));
    const b = process.hrtime.bigint();
    const recalled = await agent.recall(query, { limit: 10 });
    search.ours.push(ms(b));
    hits.theirs += found.results.length;
    hits.ours += recalled.hits.length;
  }
  points.push({ size, add, search, buildSeconds: build, hits });
}
await db.close();
const summary = points.map((p) => ({
  size: p.size,
  add: {
    ours: [median(p.add.ours), percentile(p.add.ours, 99)],
    theirs: [median(p.add.theirs), percentile(p.add.theirs, 99)],
  },
  search: {
    ours: [median(p.search.ours), percentile(p.search.ours, 99)],
    theirs: [median(p.search.theirs), percentile(p.search.theirs, 99)],
  },
  buildSeconds: p.buildSeconds,
  meanHits: { ours: p.hits.ours / samples, theirs: p.hits.theirs / samples },
}));
process.stdout.write(`${JSON.stringify(summary)}\n`);
