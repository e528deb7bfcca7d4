import { describe, expect, it } from 'vitest';
import type { MemoryDB } from '../../src/api/memory-db.js';
import { searchIndex } from '../../src/recall/search.js';
import type { KnowledgeBatch, KnowledgeImportProgress } from '../../src/core/model/knowledge.js';
import { describeEngines, memoryDigest, memorySql } from '../helpers/engines.js';
import { rejection } from '../helpers/errors.js';
import { fresh } from './helpers.js';

const architecture: KnowledgeBatch = {
  graph: 'architecture',
  nodes: [
    {
      title: 'API gateway',
      type: 'service',
      content: 'Routes HTTP traffic to the services.',
      keywords: ['http', 'routing'],
      sourceRef: { source: 'docs/arch.md', start: 10, end: 24 },
    },
    { title: 'Auth service', type: 'service', content: 'Issues JWT tokens.', keywords: ['auth', 'jwt'] },
    { title: 'Users DB', type: 'database', observations: ['PostgreSQL 16', 'backed up nightly'] },
  ],
  edges: [
    { kind: 'dependency', directed: true, members: ['API gateway', 'Auth service'] },
    { kind: 'dependency', directed: true, members: ['Auth service', 'Users DB'] },
    { kind: 'related', members: ['API gateway', 'Auth service'] },
    { kind: 'custom', label: 'reads from', directed: true, members: ['Auth service', 'Users DB'] },
  ],
};

describeEngines('knowledge import', () => {
  it('creates the graph, nodes and edges, and reports them', async () => {
    const { db } = await fresh();
    const report = await db.knowledge.import(architecture);
    expect(report.graphCreated).toBe(true);
    expect(report.created).toHaveLength(3);
    expect(report.updated).toEqual([]);
    expect(report.skipped).toBe(0);
    expect(report.edgesCreated).toBe(4);
    expect(report.edgesExisting).toBe(0);
    expect(report.errors).toEqual([]);

    const graph = await db.knowledge.getOrThrow(report.graphId);
    expect(graph.graph).toMatchObject({ label: 'architecture', nodeCount: 3, edgeCount: 4 });
    expect(graph.nodes.map((node) => node.title)).toEqual(['API gateway', 'Auth service', 'Users DB']);
    expect(graph.nodes[0]?.sourceRef).toEqual({ source: 'docs/arch.md', start: 10, end: 24 });
    expect(graph.nodes[2]?.observations).toEqual(['PostgreSQL 16', 'backed up nightly']);
    expect(graph.nodes.map((node) => node.id)).toEqual(report.created);
    await db.check();
  });

  it('is idempotent: the same batch again writes nothing and reports nothing new', async () => {
    const { db, path } = await fresh();
    const first = await db.knowledge.import(architecture);
    const before = await db.knowledge.get(first.graphId);
    const digest = await memoryDigest(path);
    for (const mode of ['merge', 'skip', 'overwrite'] as const) {
      const again = await db.knowledge.import(architecture, { mode });
      expect(again).toEqual({
        graphId: first.graphId,
        graphCreated: false,
        created: [],
        updated: [],
        skipped: 3,
        edgesCreated: 0,
        edgesExisting: 4,
        errors: [],
      });
    }
    expect(await memoryDigest(path)).toBe(digest);
    expect(await db.knowledge.get(first.graphId)).toEqual(before);
  });

  it('lets many concurrent imports into one new graph all land, the graph created once', async () => {
    const { db, path } = await fresh();
    const { db: other } = await fresh(path);
    // Every import reads "no graph" before any of them writes (two handles; on PostgreSQL each
    // import runs on its own pooled connection): all but one meet the first one's rows (the graph,
    // the shared node) and must join them, not fail.
    const reports = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? db : other).knowledge.import({
          graph: 'racing',
          nodes: [
            { title: 'hub', observations: [`seen by ${i}`] },
            { title: `node ${i}`, content: `fact ${i}` },
          ],
          edges: [{ kind: 'related', members: ['hub', `node ${i}`] }],
        }),
      ),
    );
    expect(reports.filter((report) => report.graphCreated)).toHaveLength(1);
    expect(new Set(reports.map((report) => report.graphId)).size).toBe(1);
    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    const graph = await db.knowledge.getOrThrow(reports[0]!.graphId);
    expect(graph.graph).toMatchObject({ nodeCount: 25, edgeCount: 24 });
    // The shared node was created once and merged into by every other import.
    expect(graph.nodes.find((node) => node.title === 'hub')?.observations).toHaveLength(24);
    expect(await db.knowledge.list()).toHaveLength(1);
    await db.check();
  });

  it('lets concurrent imports that add one new node to an existing graph all land, merged into it', async () => {
    const { db, path } = await fresh();
    const { db: other } = await fresh(path);
    await db.knowledge.import({ graph: 'racing', nodes: [{ title: 'seed' }] });
    const reports = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? db : other).knowledge.import({
          graph: 'racing',
          nodes: [{ title: 'hub', observations: [`seen by ${i}`] }],
        }),
      ),
    );
    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    expect(reports.filter((report) => report.created.length === 1)).toHaveLength(1);
    const graph = await db.knowledge.getOrThrow(reports[0]!.graphId);
    expect(graph.graph.nodeCount).toBe(2);
    expect(graph.nodes.find((node) => node.title === 'hub')?.observations).toHaveLength(24);
    await db.check();
  });

  it('gives the same ids in another file (ids derive from labels and titles)', async () => {
    const a = await fresh();
    const b = await fresh();
    const left = await a.db.knowledge.import(architecture);
    const right = await b.db.knowledge.import(architecture);
    expect(right.graphId).toBe(left.graphId);
    expect(right.created).toEqual(left.created);
    const edges = async (db: MemoryDB, id: string) =>
      (await db.knowledge.getOrThrow(id)).edges.map((e) => e.id);
    expect(await edges(b.db, right.graphId)).toEqual(await edges(a.db, left.graphId));
  });

  it('lets one pair hold several relations; an undirected edge is the same from either end', async () => {
    const { db } = await fresh();
    await db.knowledge.import({ graph: 'g', nodes: [{ title: 'A' }, { title: 'B' }] });
    const report = await db.knowledge.import({
      graph: 'g',
      edges: [
        { kind: 'related', members: ['A', 'B'] },
        { kind: 'related', members: ['B', 'A'] },
        { kind: 'causal', members: ['A', 'B'] },
        { kind: 'custom', label: 'likes', directed: true, members: ['A', 'B'] },
        { kind: 'custom', label: 'likes', directed: true, members: ['B', 'A'] },
        { kind: 'custom', label: 'fears', directed: true, members: ['A', 'B'] },
      ],
    });
    expect(report.edgesCreated).toBe(5);
    const again = await db.knowledge.import({
      graph: 'g',
      edges: [{ kind: 'related', members: ['B', 'A'] }],
    });
    expect(again.edgesCreated).toBe(0);
    expect(again.edgesExisting).toBe(1);
    const graph = await db.knowledge.getOrThrow(report.graphId);
    expect(graph.edges).toHaveLength(5);
    const likes = graph.edges.filter((edge) => edge.label === 'likes');
    expect(
      likes.map((edge) => edge.members.map((id) => graph.nodes.find((n) => n.id === id)?.title)),
    ).toEqual([
      ['A', 'B'],
      ['B', 'A'],
    ]);
  });

  it('merge unions, overwrite replaces, skip leaves alone; updatedAt moves only on change', async () => {
    const { db } = await fresh();
    const first = await db.knowledge.import(architecture);
    const authId = first.created[1] as string;
    const node = async () => (await db.knowledge.queryNodes({ ids: [authId] }))[0];
    const stamp = (await db.knowledge.getOrThrow(first.graphId)).graph.updatedAt;

    const skipped = await db.knowledge.import(
      { graph: 'architecture', nodes: [{ title: 'Auth service', type: 'other' }] },
      { mode: 'skip' },
    );
    expect(skipped.skipped).toBe(1);
    expect((await node())?.type).toBe('service');
    expect((await db.knowledge.getOrThrow(first.graphId)).graph.updatedAt).toBe(stamp);

    const merged = await db.knowledge.import(
      {
        graph: 'architecture',
        nodes: [
          {
            title: 'Auth service',
            content: 'Rotates signing keys.',
            keywords: ['jwt', 'keys'],
            observations: ['on-call: Ada'],
          },
        ],
      },
      { mode: 'merge' },
    );
    expect(merged.updated).toEqual([authId]);
    expect(await node()).toMatchObject({
      type: 'service',
      content: 'Issues JWT tokens.\nRotates signing keys.',
      keywords: ['auth', 'jwt', 'keys'],
      observations: ['on-call: Ada'],
    });
    expect((await db.knowledge.getOrThrow(first.graphId)).graph.updatedAt).toBeGreaterThan(stamp);

    const overwritten = await db.knowledge.import(
      { graph: 'architecture', nodes: [{ title: 'Auth service', type: 'idp' }] },
      { mode: 'overwrite' },
    );
    expect(overwritten.updated).toEqual([authId]);
    expect(await node()).toMatchObject({
      type: 'idp',
      content: '',
      keywords: [],
      observations: [],
      sourceRef: undefined,
    });
    // Edges survive node updates.
    expect((await db.knowledge.getOrThrow(first.graphId)).edges).toHaveLength(4);
    await db.check();
  });

  it('writes large batches in atomic chunks and reports progress after each', async () => {
    const { db } = await fresh();
    const nodes = Array.from({ length: 35 }, (_, i) => ({ title: `n${i}` }));
    const edges = Array.from({ length: 20 }, (_, i) => ({
      kind: 'sequence' as const,
      directed: true,
      members: [`n${i}`, `n${i + 1}`],
    }));
    const progress: KnowledgeImportProgress[] = [];
    const report = await db.knowledge.import(
      { graph: 'big', nodes, edges },
      { chunkSize: 10, onProgress: (p) => progress.push(p) },
    );
    expect(report.created).toHaveLength(35);
    expect(report.edgesCreated).toBe(20);
    expect(progress.map((p) => p.done)).toEqual([10, 20, 30, 40, 50, 55]);
    expect(progress.every((p) => p.total === 55)).toBe(true);
    expect(progress.map((p) => p.phase)).toEqual(['nodes', 'nodes', 'nodes', 'edges', 'edges', 'edges']);
    const again = await db.knowledge.import({ graph: 'big', nodes, edges }, { chunkSize: 7 });
    expect(again.created).toEqual([]);
    expect(again.edgesCreated).toBe(0);
  });
});

describeEngines('bad batches change nothing', () => {
  const cases: [string, unknown, unknown, string][] = [
    ['an empty batch', { graph: 'g' }, undefined, 'batch'],
    ['a blank label', { graph: '  ', nodes: [{ title: 'A' }] }, undefined, 'batch.graph'],
    [
      'a blank title',
      { graph: 'g', nodes: [{ title: 'A' }, { title: ' ' }] },
      undefined,
      'batch.nodes.1.title',
    ],
    [
      'a title twice',
      { graph: 'g', nodes: [{ title: 'A' }, { title: 'A' }] },
      undefined,
      'batch.nodes.1.title',
    ],
    ['an unknown field', { graph: 'g', nodes: [{ title: 'A', keyword: 'x' }] }, undefined, 'batch.nodes.0'],
    [
      'an unknown edge kind',
      {
        graph: 'g',
        nodes: [{ title: 'A' }, { title: 'B' }],
        edges: [{ kind: 'likes', members: ['A', 'B'] }],
      },
      undefined,
      'batch.edges.0.kind',
    ],
    [
      'a one-member edge',
      { graph: 'g', nodes: [{ title: 'A' }], edges: [{ kind: 'related', members: ['A'] }] },
      undefined,
      'batch.edges.0.members',
    ],
    [
      'an undirected self-loop',
      { graph: 'g', nodes: [{ title: 'A' }], edges: [{ kind: 'related', members: ['A', 'A'] }] },
      undefined,
      'batch.edges.0.members.1',
    ],
    [
      'a source range ending before it starts',
      { graph: 'g', nodes: [{ title: 'A', sourceRef: { source: 'f', start: 5, end: 2 } }] },
      undefined,
      'batch.nodes.0.sourceRef.end',
    ],
    ['an unknown mode', { graph: 'g', nodes: [{ title: 'A' }] }, { mode: 'replace' }, 'options.mode'],
    ['a zero chunk size', { graph: 'g', nodes: [{ title: 'A' }] }, { chunkSize: 0 }, 'options.chunkSize'],
  ];

  it.each(cases)('refuses %s', async (_name, batch, options, field) => {
    const { db, path } = await fresh();
    await db.knowledge.import(architecture);
    const digest = await memoryDigest(path);
    const error = await rejection(db.knowledge.import(batch as KnowledgeBatch, options as never));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.field).toBe(field);
    expect(await memoryDigest(path)).toBe(digest);
  });

  it('refuses an edge naming a node neither in the batch nor in the graph, even in chunks', async () => {
    const { db, path } = await fresh();
    await db.knowledge.import(architecture);
    const digest = await memoryDigest(path);
    const nodes = Array.from({ length: 50 }, (_, i) => ({ title: `n${i}` }));
    const error = await rejection(
      db.knowledge.import(
        {
          graph: 'architecture',
          nodes,
          edges: [
            { kind: 'related', members: ['n0', 'API gateway'] },
            { kind: 'related', members: ['n1', 'Nowhere'] },
          ],
        },
        { chunkSize: 5 },
      ),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.field).toBe('batch.edges.1.members.1');
    expect(error.message).toContain('Nowhere');
    expect(await memoryDigest(path)).toBe(digest);
  });

  it('does not let an edge reach into another graph', async () => {
    const { db } = await fresh();
    await db.knowledge.import(architecture);
    const error = await rejection(
      db.knowledge.import({
        graph: 'other',
        nodes: [{ title: 'X' }],
        edges: [{ kind: 'related', members: ['X', 'Users DB'] }],
      }),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect((await db.knowledge.list()).map((g) => g.label)).toEqual(['architecture']);
  });
});

async function chain(db: MemoryDB): Promise<{ graphId: string; id: (title: string) => string }> {
  const report = await db.knowledge.import({
    graph: 'chain',
    nodes: ['A', 'B', 'C', 'D', 'E'].map((title) => ({ title })),
    edges: [
      { kind: 'sequence', directed: true, members: ['A', 'B'] },
      { kind: 'sequence', directed: true, members: ['B', 'C'] },
      { kind: 'sequence', directed: true, members: ['C', 'D'] },
      { kind: 'causal', members: ['A', 'D'] },
      { kind: 'part_of', members: ['C', 'D', 'E'] },
    ],
  });
  const graph = await db.knowledge.getOrThrow(report.graphId);
  const ids = new Map(graph.nodes.map((node) => [node.title, node.id]));
  return { graphId: report.graphId, id: (title) => ids.get(title) as string };
}

describeEngines('querySubgraph', () => {
  it('walks breadth-first to the given depth, returning edges whose members were all visited', async () => {
    const { db } = await fresh();
    const { id } = await chain(db);
    const titles = async (depth: number, edgeKinds?: ('sequence' | 'causal' | 'part_of')[]) => {
      const sub = await db.knowledge.querySubgraph([id('A')], { depth, ...(edgeKinds ? { edgeKinds } : {}) });
      const byId = new Map(sub.nodes.map((node) => [node.id, node.title]));
      return {
        nodes: sub.nodes.map((node) => node.title),
        edges: sub.edges.map((edge) => `${edge.kind}:${edge.members.map((m) => byId.get(m)).join('-')}`),
        distances: Object.fromEntries(Object.entries(sub.distances).map(([k, v]) => [byId.get(k), v])),
      };
    };
    // 0 (or less) is MemHop's "unlimited": as far as the edges go.
    expect(await titles(0)).toEqual(await titles(10_000));
    expect(await titles(-3)).toEqual(await titles(10_000));
    const one = await titles(1);
    expect(one.nodes).toEqual(['A', 'B', 'D']);
    expect(one.edges.sort()).toEqual(['causal:A-D', 'sequence:A-B'].sort());
    const two = await titles(2);
    expect(two.nodes).toEqual(['A', 'B', 'D', 'C', 'E']);
    expect(two.edges).toHaveLength(5);
    expect(two.distances).toEqual({ A: 0, B: 1, D: 1, C: 2, E: 2 });
    const sequenceOnly = await titles(2, ['sequence']);
    expect(sequenceOnly.nodes).toEqual(['A', 'B', 'C']);
    expect(sequenceOnly.edges.every((edge) => edge.startsWith('sequence:'))).toBe(true);
  });

  it('follows directed edges one way when asked', async () => {
    const { db } = await fresh();
    const { id } = await chain(db);
    const walk = async (direction: 'forward' | 'backward') =>
      (
        await db.knowledge.querySubgraph([id('C')], { depth: 5, edgeKinds: ['sequence'], direction })
      ).nodes.map((node) => node.title);
    expect(await walk('forward')).toEqual(['C', 'D']);
    expect(await walk('backward')).toEqual(['C', 'B', 'A']);
  });

  it('refuses an undefined edge kind instead of answering with an empty graph', async () => {
    const { db } = await fresh();
    const { id } = await chain(db);
    const unknown = await rejection(
      db.knowledge.querySubgraph([id('A')], { depth: 1, edgeKinds: ['likes' as never] }),
    );
    expect(unknown.code).toBe('INVALID_INPUT');
    expect(unknown.field).toBe('options.edgeKinds.0');
    expect(unknown.message).toContain('likes');
    const empty = await rejection(db.knowledge.querySubgraph([id('A')], { edgeKinds: [] }));
    expect(empty.code).toBe('INVALID_INPUT');
    expect((await rejection(db.knowledge.querySubgraph([], {}))).code).toBe('INVALID_INPUT');
    expect((await rejection(db.knowledge.querySubgraph([id('A')], { depth: 10_001 }))).code).toBe(
      'INVALID_INPUT',
    );
    expect((await rejection(db.knowledge.querySubgraph([id('A')], { depth: 1.5 }))).field).toBe(
      'options.depth',
    );
    expect((await rejection(db.knowledge.querySubgraph(['kn_0000000000000000']))).code).toBe('NOT_FOUND');
  });
});

describeEngines('queryNodes', () => {
  it('ANDs every condition', async () => {
    const { db } = await fresh();
    const arch = await db.knowledge.import(architecture);
    await db.knowledge.import({
      graph: 'other',
      nodes: [{ title: 'Auth notes', type: 'service', keywords: ['auth'] }],
    });
    const titles = async (query: Parameters<MemoryDB['knowledge']['queryNodes']>[0]) =>
      (await db.knowledge.queryNodes(query)).map((node) => node.title);
    expect(await titles({ type: 'service' })).toEqual(['API gateway', 'Auth service', 'Auth notes']);
    expect(await titles({ type: 'service', graphId: arch.graphId })).toEqual(['API gateway', 'Auth service']);
    expect(await titles({ keyword: 'AUTH' })).toEqual(['Auth service', 'Auth notes']);
    expect(await titles({ keyword: 'auth', graphId: arch.graphId, type: 'service' })).toEqual([
      'Auth service',
    ]);
    expect(await titles({ keyword: 'auth', type: 'database' })).toEqual([]);
    expect(await titles({ keyword: 'nightly' })).toEqual(['Users DB']);
    expect(await titles({ keyword: 'routing' })).toEqual(['API gateway']);
    expect(
      await titles({ ids: [arch.created[0] as string, arch.created[2] as string], type: 'database' }),
    ).toEqual(['Users DB']);
    expect(await titles({ titles: ['Users DB', 'Auth notes'], graphId: arch.graphId })).toEqual(['Users DB']);
    expect(await titles({ type: 'service', limit: 1 })).toEqual(['API gateway']);
    expect((await rejection(db.knowledge.queryNodes({ limit: 0 }))).field).toBe('query.limit');
    expect((await rejection(db.knowledge.queryNodes({ keyword: '' }))).field).toBe('query.keyword');
  });
});

describeEngines('search', () => {
  it('ranks title matches first and finds word matches the substring test misses', async () => {
    const { db } = await fresh();
    const report = await db.knowledge.import({
      graph: 'g',
      nodes: [
        { title: 'Notes', content: 'the auth flow uses refresh tokens' },
        { title: 'Auth service', content: 'Issues tokens.' },
        { title: 'Auth', type: 'topic' },
        { title: 'Gateway', observations: ['routes requests', 'checks tokens'] },
      ],
    });
    const hits = await db.knowledge.search('auth');
    expect(hits.map((hit) => hit.node.title)).toEqual(['Auth', 'Auth service', 'Notes']);
    const words = await db.knowledge.search('refresh gateway');
    expect(words.map((hit) => hit.node.title).sort()).toEqual(['Gateway', 'Notes']);
    expect(
      (await db.knowledge.search('auth', { graphId: report.graphId, limit: 1 })).map((h) => h.node.title),
    ).toEqual(['Auth']);
    expect(await db.knowledge.search('auth', { graphId: 'kg_0000000000000000' })).toEqual([]);
  });

  it('matches case-insensitively as JavaScript does, quotes and all', async () => {
    const { db } = await fresh();
    await db.knowledge.import({
      graph: 'g',
      nodes: [
        { title: '\u212Aelvin scale' },
        { title: 'B\u0130G' },
        { title: 'Quote', observations: ['she said "hi" twice'], keywords: ['a', 'b'] },
        { title: 'Ünïcode Straße' },
      ],
    });
    const titles = async (query: string) => (await db.knowledge.search(query)).map((hit) => hit.node.title);
    expect(await titles('kelvin')).toEqual(['\u212Aelvin scale']);
    expect(await titles('bi')).toEqual(['B\u0130G']);
    expect(await titles('"hi"')).toEqual(['Quote']);
    // Not a substring of any one keyword: found by its words only (score below the substring tiers).
    const joined = await db.knowledge.search('a","b');
    expect(joined.map((hit) => hit.node.title)).toEqual(['Quote']);
    expect(joined[0]?.score).toBeLessThan(1);
    expect(await titles('ünïcode')).toEqual(['Ünïcode Straße']);
    expect((await db.knowledge.queryNodes({ keyword: 'KELVIN' })).map((node) => node.title)).toEqual([
      '\u212Aelvin scale',
    ]);
  });
});

describeEngines('graphs', () => {
  it('renames a graph, keeping its id; the same label is a no-op; a taken label is a conflict', async () => {
    const { db, path } = await fresh();
    const arch = await db.knowledge.import(architecture);
    const other = await db.knowledge.import({ graph: 'other', nodes: [{ title: 'X' }] });
    const renamed = await db.knowledge.update(arch.graphId, { label: 'systems' });
    expect(renamed).toMatchObject({ id: arch.graphId, label: 'systems' });
    const digest = await memoryDigest(path);
    expect(await db.knowledge.update(arch.graphId, { label: 'systems' })).toEqual(renamed);
    expect(await memoryDigest(path)).toBe(digest);
    expect((await rejection(db.knowledge.update(arch.graphId, { label: 'other' }))).code).toBe('CONFLICT');
    expect((await rejection(db.knowledge.update(arch.graphId, { label: ' ' }))).code).toBe('INVALID_INPUT');
    expect((await rejection(db.knowledge.update('kg_0000000000000000', { label: 'z' }))).code).toBe(
      'NOT_FOUND',
    );
    expect(await memoryDigest(path)).toBe(digest);
    // Imports route by the current label; the old label makes a new graph with a new id.
    expect((await db.knowledge.import({ graph: 'systems', nodes: [{ title: 'Users DB' }] })).graphId).toBe(
      arch.graphId,
    );
    const reused = await db.knowledge.import({ graph: 'architecture', nodes: [{ title: 'Y' }] });
    expect(reused.graphCreated).toBe(true);
    expect(new Set([reused.graphId, arch.graphId, other.graphId]).size).toBe(3);
    expect((await db.knowledge.getByLabel('architecture'))?.id).toBe(reused.graphId);
  });

  it('deletes a graph with its nodes, edges and index rows, and clears scene anchors', async () => {
    const { db } = await fresh();
    const arch = await db.knowledge.import(architecture);
    const keep = await db.knowledge.import({ graph: 'keep', nodes: [{ title: 'Auth keep' }] });
    const agentId = db.primary().info().id;
    for (const [id, graphId] of [
      ['scn_a', arch.graphId],
      ['scn_b', arch.graphId],
      ['scn_c', keep.graphId],
    ] as const)
      await memorySql(
        db,
        'INSERT INTO scenes (id, agent_id, name, knowledge_id, created_at, last_used_at) VALUES (?, ?, ?, ?, 1, 1)',
        id,
        agentId,
        id.slice(4),
        graphId,
      );
    const report = await db.knowledge.delete(arch.graphId);
    expect(report).toEqual({
      graphId: arch.graphId,
      label: 'architecture',
      nodesDeleted: 3,
      edgesDeleted: 4,
      scenesUnanchored: 2,
    });
    expect(await db.knowledge.get(arch.graphId)).toBeUndefined();
    expect((await rejection(db.knowledge.getOrThrow(arch.graphId))).code).toBe('NOT_FOUND');
    expect((await rejection(db.knowledge.delete(arch.graphId))).code).toBe('NOT_FOUND');
    const anchors = await memorySql(db, 'SELECT id, knowledge_id FROM scenes ORDER BY id');
    expect(anchors).toEqual([
      { id: 'scn_a', knowledge_id: null },
      { id: 'scn_b', knowledge_id: null },
      { id: 'scn_c', knowledge_id: keep.graphId },
    ]);
    expect((await db.knowledge.search('auth')).map((hit) => hit.node.title)).toEqual(['Auth keep']);
    const indexRows = await memorySql(db, "SELECT count(*) AS n FROM search_docs WHERE layer = 'knowledge'");
    expect(indexRows).toEqual([{ n: 1 }]);
    await db.check();
  });
});

describeEngines('node-level edits', () => {
  it('deletes nodes with every edge they belong to, reporting unknown ids', async () => {
    const { db } = await fresh();
    const { graphId, id } = await chain(db);
    const report = await db.knowledge.deleteNodes([id('C'), 'kn_0000000000000000', id('C')]);
    expect(report).toEqual({ deleted: [id('C')], notFound: ['kn_0000000000000000'], edgesDeleted: 3 });
    const graph = await db.knowledge.getOrThrow(graphId);
    expect(graph.nodes.map((n) => n.title)).toEqual(['A', 'B', 'D', 'E']);
    expect(graph.edges.map((e) => e.kind)).toEqual(['sequence', 'causal']);
    await db.check();
  });

  it('deletes edges by id', async () => {
    const { db } = await fresh();
    const { graphId } = await chain(db);
    const edges = (await db.knowledge.getOrThrow(graphId)).edges;
    const report = await db.knowledge.deleteEdges([edges[0]?.id as string, 'ke_0000000000000000']);
    expect(report).toEqual({ deleted: [edges[0]?.id], notFound: ['ke_0000000000000000'] });
    expect((await db.knowledge.getOrThrow(graphId)).edges).toHaveLength(4);
  });

  it('adds and removes observations; a missing node refuses the whole addition', async () => {
    const { db, path } = await fresh();
    const arch = await db.knowledge.import(architecture);
    const usersDb = arch.created[2] as string;
    const added = await db.knowledge.addObservations([
      { nodeId: usersDb, observations: ['PostgreSQL 16', 'read replica in eu-west'] },
    ]);
    expect(added).toEqual([{ nodeId: usersDb, added: ['read replica in eu-west'] }]);
    const digest = await memoryDigest(path);
    const error = await rejection(
      db.knowledge.addObservations([
        { nodeId: usersDb, observations: ['never written'] },
        { nodeId: 'kn_0000000000000000', observations: ['x'] },
      ]),
    );
    expect(error.code).toBe('NOT_FOUND');
    expect(await memoryDigest(path)).toBe(digest);
    const removed = await db.knowledge.deleteObservations([
      { nodeId: usersDb, observations: ['PostgreSQL 16', 'not held'] },
      { nodeId: 'kn_0000000000000000', observations: ['x'] },
    ]);
    expect(removed).toEqual({ deleted: 1, notFound: ['kn_0000000000000000'] });
    expect((await db.knowledge.queryNodes({ ids: [usersDb] }))[0]?.observations).toEqual([
      'backed up nightly',
      'read replica in eu-west',
    ]);
    expect((await db.knowledge.search('replica')).map((hit) => hit.node.id)).toEqual([usersDb]);
    await db.check();
  });
});

// SQLite only: the other writer changes the graph inside the import's synchronous onProgress
// callback, through the SQLite store's synchronous repositories (store.direct); PostgreSQL has no
// synchronous path, and an asynchronous write there would race the next chunk instead of landing
// between two chunks. (Not yet covered on PostgreSQL: it needs an awaited progress hook.)
describe('writers changing the graph while a chunked import runs', () => {
  it('reports edges whose member another writer deleted, and writes the rest', async () => {
    const { db, path } = await fresh();
    const { db: other } = await fresh(path);
    await db.knowledge.import({ graph: 'g', nodes: [{ title: 'old' }] });
    const nodes = Array.from({ length: 6 }, (_, i) => ({ title: `n${i}` }));
    const edges = [
      { kind: 'related' as const, members: ['n0', 'n1'] },
      { kind: 'related' as const, members: ['n2', 'old'] },
      { kind: 'related' as const, members: ['n3', 'n4'] },
    ];
    let deleted = false;
    const report = await db.knowledge.import(
      { graph: 'g', nodes, edges },
      {
        chunkSize: 3,
        onProgress: () => {
          if (deleted) return;
          deleted = true;
          // Another connection (as another process would) deletes a node the batch's edges name.
          const old = other.store.direct.knowledge.graphByLabel('g');
          const id = other.store.direct.knowledge.scanNodes(
            { graphId: old?.id, titles: ['old'] },
            () => true,
            1,
          )[0]?.id;
          other.store.direct.knowledge.deleteNodes([id as string], Date.now());
        },
      },
    );
    expect(report.created).toHaveLength(6);
    expect(report.edgesCreated).toBe(2);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatch(/^edges\.1: member node kn_[0-9a-f]+ no longer exists/);
    await db.check();
  });

  it('stops, reporting how far it got, when another writer deletes the graph', async () => {
    const { db, path } = await fresh();
    const { db: other } = await fresh(path);
    const nodes = Array.from({ length: 9 }, (_, i) => ({ title: `n${i}` }));
    const report = await db.knowledge.import(
      { graph: 'g', nodes },
      {
        chunkSize: 3,
        onProgress: (progress) => {
          const graph = other.store.direct.knowledge.graphByLabel('g');
          if (progress.done === 3 && graph) other.store.direct.knowledge.deleteGraph(graph.id);
        },
      },
    );
    expect(report.created).toHaveLength(3);
    expect(report.errors).toEqual(['stopped after 3 of 9 items: the graph was deleted while the import ran']);
    expect(await db.knowledge.list()).toEqual([]);
    await db.check();
  });
});

describeEngines('sharing', () => {
  it('is visible from every agent and every connection to the file', async () => {
    const { db, path } = await fresh();
    const alice = await db.agent('alice');
    const bob = await db.agent('bob');
    const report = await db.knowledge.import(architecture);
    for (const agent of [db.primary(), alice, bob]) {
      const hits = await searchIndex(db.memoryStore, {
        agentId: agent.info().id,
        query: 'JWT tokens',
        layers: ['knowledge'],
      });
      expect(hits.map((hit) => hit.ref)).toContain(report.created[1]);
      expect(hits.every((hit) => hit.agentId === null)).toBe(true);
    }
    const { db: second } = await fresh(path);
    expect((await second.knowledge.list()).map((graph) => graph.id)).toEqual([report.graphId]);
    await second.knowledge.import({ graph: 'architecture', nodes: [{ title: 'Cache' }] });
    expect((await db.knowledge.getOrThrow(report.graphId)).nodes).toHaveLength(4);
  });

  it('reads a read-only file but refuses to write it', async () => {
    const { db, path } = await fresh();
    const report = await db.knowledge.import(architecture);
    await db.close();
    const { db: reader } = await fresh(path, { readOnly: true });
    expect((await reader.knowledge.getOrThrow(report.graphId)).nodes).toHaveLength(3);
    expect((await rejection(reader.knowledge.import({ graph: 'x', nodes: [{ title: 'A' }] }))).code).toBe(
      'READ_ONLY',
    );
  });

  it('refuses every call once the file is closed', async () => {
    const { db } = await fresh();
    const knowledge = db.knowledge;
    await db.close();
    expect((await rejection(knowledge.list())).code).toBe('CLOSED');
    expect((await rejection(knowledge.import(architecture))).code).toBe('CLOSED');
  });
});
