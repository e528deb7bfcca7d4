import { describe, expect, it } from 'vitest';
import { openMemory, type KnowledgeItem, type MemoryDB } from '../../src/index.js';
import { MockLanguageModel } from '../../src/llm/mock-language-model.js';
import { rejection } from '../helpers/errors.js';
import { fileDigest, tempFile } from '../helpers/temp.js';

const T0 = Date.UTC(2026, 0, 5, 9);

async function fresh(): Promise<{ db: MemoryDB; path: string }> {
  const path = tempFile();
  return { db: await openMemory(path, { dream: { auto: false } }), path };
}

/** A model that answers every keyword request with one recognisable keyword. */
function keywordModel(word: string): MockLanguageModel {
  return new MockLanguageModel(() => ({ keywords: [word] }));
}

describe('db.agent(name, { profile, llm })', () => {
  it('seeds a new agent’s profile, never overwrites it, and uses the agent’s own model', async () => {
    const { db } = await fresh();
    const model = keywordModel('from-the-sub-model');
    const sub = await db.agent('researcher', {
      profile: { name: 'researcher', role: 'reads papers' },
      llm: model,
    });
    expect((await sub.getProfile()).role).toBe('reads papers');
    // A later call with another profile leaves the stored one alone.
    await db.agent('researcher', { profile: { name: 'researcher', role: 'something else' } });
    expect((await sub.getProfile()).role).toBe('reads papers');
    // The sub-agent's turns are distilled by its model; the primary keeps the offline one.
    await sub.search();
    const { topic } = await sub.update({ input: 'Summarise the attention paper', createdAt: T0 });
    expect(topic.keywords).toEqual(['from-the-sub-model']);
    expect(model.calls.length).toBeGreaterThan(0);
    const calls = model.calls.length;
    const primary = db.primary();
    await primary.search();
    const own = await primary.update({ input: 'Summarise the attention paper', createdAt: T0 });
    expect(own.topic.keywords).not.toContain('from-the-sub-model');
    expect(model.calls.length).toBe(calls);
    // Dream of the sub-agent runs on its model too (the profile stage asks it).
    await sub.dream();
    expect(model.calls.length).toBeGreaterThanOrEqual(calls);
    await db.close();
  });

  it('re-points an open agent to a new model, and opens an agent by its id', async () => {
    const { db } = await fresh();
    const first = await db.agent('writer', { llm: keywordModel('first') });
    const second = keywordModel('second');
    const again = await db.agent('writer', { llm: second });
    expect(again).toBe(first);
    await first.search();
    expect((await first.update({ input: 'Draft the release notes', createdAt: T0 })).topic.keywords).toEqual([
      'second',
    ]);
    const byId = await db.agent(first.info().id);
    expect(byId).toBe(first);
    await db.close();
    const reopened = await openMemory(tempFileOf(db));
    expect((await reopened.agent(first.info().id)).name).toBe('writer');
    await reopened.close();
  });

  it('refuses bad options and unknown ids with the field named, writing nothing', async () => {
    const { db, path } = await fresh();
    await db.agent('writer');
    await db.close();
    const before = fileDigest(path);
    const again = await openMemory(path, { dream: { auto: false } });
    const unknownOption = await rejection(again.agent('new-one', { model: 'gpt' } as never));
    expect(unknownOption.code).toBe('INVALID_INPUT');
    expect(unknownOption.field).toBe('options');
    const badLlm = await rejection(again.agent('new-one', { llm: {} as never }));
    expect(badLlm.field).toBe('options.llm');
    const badProfile = await rejection(again.agent('new-one', { profile: { name: '' } }));
    expect(badProfile.field).toBe('options.profile.name');
    const missing = await rejection(again.agent(999));
    expect(missing.code).toBe('NOT_FOUND');
    expect((await rejection(again.agent(1.5))).field).toBe('id');
    expect((await again.agents()).map((a) => a.name)).toEqual(['primary', 'writer']);
    await again.close();
    expect(fileDigest(path)).toBe(before);
  });
});

function tempFileOf(db: MemoryDB): string {
  return db.path;
}

const ITEMS: KnowledgeItem[] = [
  { title: 'API gateway', domain: 'architecture', node_type: 'service', keywords: ['http'] },
  {
    title: 'Auth service',
    domain: 'architecture',
    content: 'Issues JWTs',
    source_ref: 'docs/arch.md',
    related: [{ titles: ['API gateway'], kind: 4 }],
  },
  { title: 'Token store', domain: 'architecture', related: [{ titles: ['Auth service'], kind: 'part_of' }] },
  { title: 'On-call', domain: 'runbooks', related: [] },
];

describe('knowledge.import with MemHop ImportL3 items', () => {
  it('maps items to nodes, keywords and edges, one graph per domain', async () => {
    const { db } = await fresh();
    const report = await db.knowledge.import(ITEMS);
    expect(report.graphIds).toHaveLength(2);
    expect(report.created).toHaveLength(4);
    expect(report.edgesCreated).toBe(2);
    const arch = await db.knowledge.getOrThrow(report.graphIds[0] as string);
    expect(arch.graph.label).toBe('architecture');
    const auth = arch.nodes.find((n) => n.title === 'Auth service');
    expect(auth?.sourceRef).toEqual({ source: 'docs/arch.md' });
    expect(arch.nodes.find((n) => n.title === 'API gateway')?.type).toBe('service');
    expect(arch.edges.map((e) => e.kind).sort()).toEqual(['dependency', 'part_of']);
    // Importing again changes nothing (ids are deterministic), in skip or merge mode.
    const again = await db.knowledge.import(ITEMS, { mode: 'skip' });
    expect(again.created).toEqual([]);
    expect(again.edgesCreated).toBe(0);
    expect(again.edgesExisting).toBe(2);
    // A related title may be a node stored earlier.
    const later = await db.knowledge.import([
      { title: 'Rate limiter', domain: 'architecture', related: [{ titles: ['API gateway'] }] },
    ]);
    expect(later.edgesCreated).toBe(1);
    await db.close();
  });

  it('refuses a bad item naming it, and writes nothing', async () => {
    const { db: first, path } = await fresh();
    await first.knowledge.import(ITEMS.slice(0, 1));
    await first.close();
    const before = fileDigest(path);
    const db = await openMemory(path, { dream: { auto: false } });
    const cases: [unknown, string][] = [
      [[], 'items'],
      [[{ title: 'x' }], 'items.0.domain'],
      [[{ title: ' ', domain: 'd' }], 'items.0.title'],
      [[{ title: 'x', domain: 'd', related: [{ titles: ['x'] }] }], 'items.0.related.0.titles.0'],
      [[{ title: 'x', domain: 'd', related: [{ titles: ['y'], kind: 9 }] }], 'items.0.related.0.kind'],
      [[{ title: 'x', domain: 'd', related: [{ titles: ['y'], kind: 'likes' }] }], 'items.0.related.0.kind'],
      [
        [
          { title: 'ok', domain: 'other' },
          { title: 'x', domain: 'architecture', related: [{ titles: ['nowhere'] }] },
        ],
        'items.1.related.0.titles.0',
      ],
      [
        [
          { title: 'x', domain: 'd' },
          { title: 'x', domain: 'd' },
        ],
        'items.1.title',
      ],
    ];
    for (const [items, field] of cases) {
      const error = await rejection(db.knowledge.import(items as KnowledgeItem[]));
      expect(error.code, field).toBe('INVALID_INPUT');
      expect(error.field).toBe(field);
    }
    expect((await db.knowledge.list()).map((g) => g.label)).toEqual(['architecture']);
    await db.close();
    expect(fileDigest(path)).toBe(before);
  });
});

describe('querySubgraph depth ≤ 0', () => {
  it('walks as far as the edges go', async () => {
    const { db } = await fresh();
    const chain: KnowledgeItem[] = Array.from({ length: 12 }, (_, i) => ({
      title: `n${i}`,
      domain: 'chain',
      ...(i > 0 ? { related: [{ titles: [`n${i - 1}`], kind: 'sequence' as const }] } : {}),
    }));
    const report = await db.knowledge.import(chain);
    const start = report.created[0] as string;
    expect((await db.knowledge.querySubgraph([start])).nodes).toHaveLength(2);
    expect((await db.knowledge.querySubgraph([start], { depth: 0 })).nodes).toHaveLength(12);
    const unlimited = await db.knowledge.querySubgraph([start], { depth: -1 });
    expect(unlimited.nodes).toHaveLength(12);
    expect(unlimited.edges).toHaveLength(11);
    expect(Math.max(...Object.values(unlimited.distances))).toBe(11);
    await db.close();
  });
});

describe('searchArchive: contains, ids and the default limit', () => {
  it('finds a substring the stemmed word match cannot, and filters by ids', async () => {
    const { db } = await fresh();
    const agent = db.primary();
    await agent.search();
    await agent.update({ input: 'I have a dentist appointment on Friday', createdAt: T0 });
    await agent.search();
    await agent.update({ input: 'Ärger mit dem Vermieter', createdAt: T0 + 1000 });
    expect(await agent.searchArchive({ text: 'dentis' })).toEqual([]);
    const found = await agent.searchArchive({ contains: 'DENTIS' });
    expect(found.map((r) => r.content)).toEqual(['I have a dentist appointment on Friday']);
    expect((await agent.searchArchive({ contains: 'ärger' })).map((r) => r.content)).toEqual([
      'Ärger mit dem Vermieter',
    ]);
    const all = await agent.searchArchive();
    expect(all).toHaveLength(2);
    const second = all[1]?.id as string;
    expect((await agent.searchArchive({ ids: [second] })).map((r) => r.id)).toEqual([second]);
    expect(await agent.searchArchive({ ids: [second], contains: 'dentist' })).toEqual([]);
    expect((await agent.searchArchive({ ids: [second], text: 'Vermieter' })).map((r) => r.id)).toEqual([
      second,
    ]);
    await db.close();
  });

  it('keeps the newest 100 by default, and refuses bad conditions', async () => {
    const { db } = await fresh();
    const agent = db.primary();
    await agent.search();
    await agent.appendArchiveMany(
      Array.from({ length: 130 }, (_, i) => ({
        kind: 'event' as const,
        eventType: 'tick',
        content: `tick ${i}`,
        createdAt: T0 + i,
      })),
    );
    const newest = await agent.searchArchive({ contains: 'tick' });
    expect(newest).toHaveLength(100);
    expect(newest.at(-1)?.content).toBe('tick 129');
    expect(newest[0]?.content).toBe('tick 30');
    for (const [query, field] of [
      [{ ids: ['abc'] }, 'searchArchive.ids.0'],
      [{ ids: [] }, 'searchArchive.ids'],
      [{ contains: '' }, 'searchArchive.contains'],
    ] as const) {
      const error = await rejection(agent.searchArchive(query as never));
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.field).toBe(field);
    }
    await db.close();
  });
});
