/**
 * The floor: what the same bytes cost when written straight into SQLite with better-sqlite3 at
 * the same durability (WAL, `synchronous` FULL or NORMAL, one transaction per commit) and found
 * again with a bare FTS5 query. No memory layer can be cheaper than the engine it runs on, so
 * every hedgehop write path and recall is reported as a ratio to this floor, measured
 * interleaved in the same process.
 *
 * The floor table keeps each text once (`records`) with an external-content FTS5 index over it
 * (`records_fts`, the same tokenizer as hedgehop's index): the least work that still stores the
 * verbatim text and can find it by its words. A plain insert without the index is measured too,
 * to show what the full-text index alone costs.
 */
import { join } from 'node:path';
import { openMemory, type Agent, type ArchiveInput, type MemoryDB } from '../src/index.js';
import { searchIndex } from '../src/recall/search.js';
import { SyntheticCorpus } from './corpus.js';
import { RawFloor, type FloorDurability } from './raw-floor.js';
import {
  compareInterleaved,
  median,
  percentile,
  tempDir,
  type BenchModule,
  type BenchRow,
} from './harness.js';

/** A timing of hedgehop against the floor: medians, p99s, ratios (the median's row named `centre`). */
export function ratioRows(
  bench: string,
  name: string,
  result: { readonly subject: readonly number[]; readonly baseline: readonly number[] },
  note: string,
  centre: 'median' | 'p50' = 'median',
): BenchRow[] {
  const p50 = median(result.subject);
  const base50 = median(result.baseline);
  const p99 = percentile(result.subject, 99);
  const base99 = percentile(result.baseline, 99);
  return [
    {
      bench,
      case: name,
      metric: centre,
      value: p50,
      unit: 'ms',
      baseline: base50,
      ratio: p50 / base50,
      note,
    },
    { bench, case: name, metric: 'p99', value: p99, unit: 'ms', baseline: base99, ratio: p99 / base99 },
  ];
}

/** An archive utterance of the synthetic corpus (what one conversation record looks like). */
export function utterance(
  corpus: SyntheticCorpus,
  time: number,
): { kind: 'utterance'; role: 'user'; content: string; createdAt: number } {
  return { kind: 'utterance', role: 'user', content: corpus.text(240), createdAt: time };
}

const BASE_TIME = 1_800_000_000_000;

/**
 * The `index`-th record of a bulk load: one utterance in ten, the rest tool results (events), as
 * an agent's archive mostly holds. Utterances feed the turn's keyword distillation, events do not.
 */
export function bulkRecord(content: string, time: number, index: number): ArchiveInput {
  return index % 10 === 0
    ? { kind: 'utterance', role: 'user', content, createdAt: time }
    : { kind: 'event', eventType: 'tool_result', content, createdAt: time };
}

/** Appends `texts` as one turn of bulk records (one `appendArchiveMany`, at most 10,000). */
export async function appendTurn(agent: Agent, texts: readonly string[], time: number): Promise<void> {
  await agent.search({ newScene: true });
  await agent.appendArchiveMany(texts.map((content, i) => bulkRecord(content, time + i, i)));
  await agent.update({ createdAt: time, outcome: 'bulk load' });
}

/** Fills an agent's archive and the floor with the same `count` texts (one turn per 10,000). */
export async function prefill(
  agent: Agent,
  floor: RawFloor,
  corpus: SyntheticCorpus,
  count: number,
): Promise<void> {
  for (let done = 0; done < count; ) {
    const batch = Math.min(10_000, count - done);
    const texts = Array.from({ length: batch }, () => corpus.text(240));
    await appendTurn(agent, texts, BASE_TIME + done);
    floor.insertMany(texts);
    done += batch;
  }
}

interface Fixture {
  readonly db: MemoryDB;
  readonly agent: Agent;
  readonly floor: RawFloor;
  readonly plain: RawFloor;
}

async function openFixture(dir: string, name: string, durability: FloorDurability): Promise<Fixture> {
  const db = await openMemory(join(dir, `${name}.db`), { durability });
  return {
    db,
    agent: db.primary(),
    floor: RawFloor.open(join(dir, `${name}-floor.db`), durability),
    plain: RawFloor.open(join(dir, `${name}-plain.db`), durability),
  };
}

async function closeFixture(fixture: Fixture): Promise<void> {
  fixture.floor.close();
  fixture.plain.close();
  await fixture.db.close();
}

/** `appendArchive` of one utterance in an open turn vs the floor commit of the same text. */
async function appendPath(
  fixture: Fixture,
  corpus: SyntheticCorpus,
  iterations: number,
  durability: FloorDurability,
): Promise<BenchRow[]> {
  const { agent, floor, plain } = fixture;
  await agent.search({ newScene: true });
  const texts = Array.from({ length: iterations }, () => corpus.text(240));
  for (let i = 0; i < 5; i++) {
    await agent.appendArchive(utterance(corpus, BASE_TIME + i));
    floor.insert(corpus.text(240));
  }
  const result = await compareInterleaved(
    iterations,
    (i) =>
      agent.appendArchive({
        kind: 'utterance',
        role: 'user',
        content: texts[i] as string,
        createdAt: BASE_TIME + i,
      }),
    (i) => floor.insert(texts[i] as string),
  );
  const bare = await compareInterleaved(
    iterations,
    (i) => floor.insert(texts[i] as string),
    (i) => plain.insertPlain(texts[i] as string),
  );
  await agent.update({ input: 'done', output: 'ok', createdAt: BASE_TIME });
  return [
    ...ratioRows(
      'floor',
      `appendArchive (one 240-char utterance), ${durability}`,
      result,
      'floor: the same text + its FTS5 entry, one commit',
    ),
    {
      bench: 'floor',
      case: `floor itself: insert + FTS5 vs plain insert, ${durability}`,
      metric: 'median',
      value: median(bare.subject),
      unit: 'ms',
      baseline: median(bare.baseline),
      ratio: bare.ratio,
      note: 'what the full-text index alone costs',
    },
  ];
}

/** A whole turn (open, two appends, close with input and output) vs 4 floor commits of the same texts. */
async function turnPath(fixture: Fixture, corpus: SyntheticCorpus, iterations: number): Promise<BenchRow[]> {
  const { agent, floor } = fixture;
  const turns = Array.from({ length: iterations }, () => [
    corpus.text(240),
    corpus.text(240),
    corpus.text(120),
    corpus.text(400),
  ]);
  const result = await compareInterleaved(
    iterations,
    async (i) => {
      const [a, b, input, output] = turns[i] as string[];
      await agent.search();
      await agent.appendArchive({
        kind: 'event',
        eventType: 'tool_call',
        content: a as string,
        createdAt: BASE_TIME + i,
      });
      await agent.appendArchive({
        kind: 'event',
        eventType: 'tool_result',
        content: b as string,
        createdAt: BASE_TIME + i,
      });
      await agent.update({ input: input as string, output: output as string, createdAt: BASE_TIME + i });
    },
    (i) => {
      const texts = turns[i] as string[];
      floor.insert(texts[0] as string); // the turn opening: one commit in hedgehop too
      floor.insert(texts[0] as string);
      floor.insert(texts[1] as string);
      floor.insertMany(texts.slice(2));
    },
  );
  return ratioRows(
    'floor',
    'full turn: search + 2 appends + update (offline keywords)',
    result,
    'floor: 4 commits of the same texts',
  );
}

/** `radial.completeTask` (offline summariser) vs one floor commit of the task's input bytes. */
async function radialPath(
  fixture: Fixture,
  corpus: SyntheticCorpus,
  iterations: number,
): Promise<BenchRow[]> {
  const { agent, floor } = fixture;
  await agent.radial.getOrCreateLine('bench', 'Bench', 'Floor benchmark line');
  const tasks = Array.from({ length: iterations + 3 }, (_, i) => ({
    lineId: 'bench',
    taskLabel: `${corpus.sentence(3, 6)} #${i}`,
    fullContext: corpus.text(1500),
    conversationSummary: corpus.text(450),
    todos: [corpus.sentence(4, 8)],
  }));
  const bytes = (i: number): string => {
    const task = tasks[i] as (typeof tasks)[number];
    return [task.taskLabel, task.conversationSummary, task.fullContext, ...task.todos].join('\n');
  };
  for (let i = 0; i < 3; i++)
    await agent.radial.completeTask(tasks[iterations + i] as (typeof tasks)[number]);
  const result = await compareInterleaved(
    iterations,
    (i) => agent.radial.completeTask(tasks[i] as (typeof tasks)[number]),
    (i) => floor.insert(bytes(i)),
  );
  return ratioRows(
    'floor',
    'radial completeTask (1.5 KB context, offline summariser)',
    result,
    'floor: the task’s input bytes + FTS5, one commit; hedgehop also writes 4 summaries and index rows',
  );
}

/** `knowledge.import` of 10 nodes and 10 edges vs one floor commit of their texts. */
async function knowledgePath(
  fixture: Fixture,
  corpus: SyntheticCorpus,
  iterations: number,
): Promise<BenchRow[]> {
  const { db, floor } = fixture;
  const batches = Array.from({ length: iterations }, (_, b) => {
    const nodes = Array.from({ length: 10 }, (_, n) => ({
      title: `entity ${b}-${n} ${corpus.word()}`,
      type: 'concept',
      content: corpus.text(160),
      keywords: [corpus.word(), corpus.word()],
    }));
    const edges = nodes.map((node, n) => ({
      kind: 'related' as const,
      members: [node.title, (nodes[(n + 1) % nodes.length] as (typeof nodes)[number]).title],
    }));
    return { graph: 'floor', nodes, edges };
  });
  const texts = (b: number): string[] => {
    const batch = batches[b] as (typeof batches)[number];
    return [
      ...batch.nodes.map((n) => `${n.title}\n${n.type}\n${n.content}\n${n.keywords.join(' ')}`),
      ...batch.edges.map((e) => `${e.kind} ${e.members.join(' ')}`),
    ];
  };
  const result = await compareInterleaved(
    iterations,
    (b) => db.knowledge.import(batches[b] as (typeof batches)[number]),
    (b) => floor.insertMany(texts(b)),
  );
  return ratioRows(
    'floor',
    'knowledge import (10 nodes + 10 edges)',
    result,
    'floor: 20 rows + FTS5 in one commit',
  );
}

/** The memory-server drop-in's `createEntities` (one entity, 3 observations) vs one floor commit. */
async function memoryServerPath(
  fixture: Fixture,
  corpus: SyntheticCorpus,
  iterations: number,
): Promise<BenchRow[]> {
  const { db, floor } = fixture;
  const memory = db.knowledge.memoryServer({ graph: 'floor-memory' });
  const entities = Array.from({ length: iterations }, (_, i) => ({
    name: `person ${i} ${corpus.word()}`,
    entityType: 'person',
    observations: [corpus.sentence(), corpus.sentence(), corpus.sentence()],
  }));
  const result = await compareInterleaved(
    iterations,
    (i) => memory.createEntities([entities[i] as (typeof entities)[number]]),
    (i) => {
      const entity = entities[i] as (typeof entities)[number];
      floor.insert([entity.name, entity.entityType, ...entity.observations].join('\n'));
    },
  );
  return ratioRows(
    'floor',
    'memoryServer createEntities (1 entity, 3 observations)',
    result,
    'floor: the same text + FTS5, one commit',
  );
}

/** `agent.recall` vs a bare FTS5 query of the same words over the same texts. */
async function recallPath(
  fixture: Fixture,
  corpus: SyntheticCorpus,
  size: number,
  samples: number,
): Promise<BenchRow[]> {
  const { agent, floor } = fixture;
  const queries = Array.from({ length: samples }, () => corpus.query());
  for (const query of queries.slice(0, 5)) {
    await agent.recall(query, { budgetTokens: 1000 });
    floor.query(query);
  }
  const result = await compareInterleaved(
    samples,
    (i) => agent.recall(queries[i] as string, { budgetTokens: 1000 }),
    (i) => floor.query(queries[i] as string, 10),
  );
  const archive = await compareInterleaved(
    samples,
    (i) => agent.searchArchive({ text: queries[i] as string, limit: 10 }),
    (i) => floor.query(queries[i] as string, 10),
  );
  const agentId = agent.info().id;
  const index = await compareInterleaved(
    samples,
    (i) => searchIndex(fixture.db.store, { agentId, query: queries[i] as string, limit: 10 }),
    (i) => floor.query(queries[i] as string, 10),
  );
  const note = 'floor: BM25 top 10 of the same words over the same texts, with their text';
  return [
    ...ratioRows('floor', `recall @${size} records (10 hits, 1,000-token context)`, result, note),
    ...ratioRows('floor', `searchArchive @${size} records (10 records)`, archive, note),
    ...ratioRows('floor', `searchIndex @${size} records (10 hits)`, index, note),
  ];
}

/** The floor benchmark: every write path and recall against raw better-sqlite3. */
export const runFloor: BenchModule = async (options) => {
  const iterations = options.quick ? 40 : 200;
  const size = options.quick ? 2_000 : 20_000;
  const { dir, cleanup } = tempDir('hedgehop-bench-floor-');
  const rows: BenchRow[] = [];
  const corpus = new SyntheticCorpus(11);
  try {
    for (const durability of ['full', 'normal'] as const) {
      options.log(`floor: appendArchive vs raw insert, durability ${durability}`);
      const fixture = await openFixture(dir, `append-${durability}`, durability);
      rows.push(...(await appendPath(fixture, corpus, iterations, durability)));
      await closeFixture(fixture);
    }
    const fixture = await openFixture(dir, 'paths', 'full');
    try {
      options.log('floor: full turn, completeTask, knowledge import, createEntities (durability full)');
      rows.push(...(await turnPath(fixture, corpus, Math.ceil(iterations / 2))));
      rows.push(...(await radialPath(fixture, corpus, Math.ceil(iterations / 2))));
      rows.push(...(await knowledgePath(fixture, corpus, Math.ceil(iterations / 2))));
      rows.push(...(await memoryServerPath(fixture, corpus, iterations)));
    } finally {
      await closeFixture(fixture);
    }
    options.log(`floor: recall over ${size} records`);
    const reading = await openFixture(dir, 'recall', 'normal');
    try {
      await prefill(reading.agent, reading.floor, corpus, size);
      rows.push(...(await recallPath(reading, corpus, size, options.quick ? 40 : 150)));
    } finally {
      await closeFixture(reading);
    }
  } finally {
    cleanup();
  }
  return {
    name: 'floor',
    rows,
    notes: [
      'floor = better-sqlite3 on its own: one row per text plus an external-content FTS5 index (porter unicode61), WAL, the same synchronous level, one transaction per commit',
      `synthetic text: Zipf-distributed words from a 20,000-word generated vocabulary; recall over ${size.toLocaleString('en')} 240-character records (1 in 10 an utterance, the rest tool-result events), queries of 2–4 mid-frequency words`,
    ],
  };
};
