import fc from 'fast-check';
import { expect, it } from 'vitest';
import { exportMemoryServerJsonl, importMemoryServerJsonl } from '../../src/api/memory-server-graph.js';
import { describeEngines, memoryDigest } from '../helpers/engines.js';
import { rejection } from '../helpers/errors.js';
import { fresh } from './helpers.js';

async function seeded() {
  const { db, path } = await fresh();
  const memory = db.knowledge.memoryServer();
  await memory.createEntities([
    { name: 'Ada', entityType: 'person', observations: ['writes Rust', 'lives in Lyon'] },
    { name: 'Acme', entityType: 'organization', observations: ['makes anvils'] },
    { name: 'Bob', entityType: 'person', observations: ['likes chess'] },
  ]);
  await memory.createRelations([
    { from: 'Ada', to: 'Acme', relationType: 'works at' },
    { from: 'Bob', to: 'Ada', relationType: 'mentors' },
    { from: 'Ada', to: 'Bob', relationType: 'knows' },
  ]);
  return { db, path, memory };
}

describeEngines('the MCP memory server tools', () => {
  it('create_entities creates new names only, the first of a repeated name winning', async () => {
    const { memory } = await seeded();
    const created = await memory.createEntities([
      { name: 'Ada', entityType: 'robot', observations: ['ignored'] },
      { name: 'Cy', entityType: 'person', observations: [] },
      { name: 'Cy', entityType: 'cat', observations: ['second'] },
    ]);
    expect(created).toEqual([{ name: 'Cy', entityType: 'person', observations: [] }]);
    const graph = await memory.readGraph();
    expect(graph.entities.map((e) => `${e.name}:${e.entityType}`)).toEqual([
      'Ada:person',
      'Acme:organization',
      'Bob:person',
      'Cy:person',
    ]);
    expect(graph.entities[0]?.observations).toEqual(['writes Rust', 'lives in Lyon']);
  });

  it('create_relations stores those between entities, skips those naming a missing one, and returns only new relations', async () => {
    const { memory, path } = await seeded();
    const digest = await memoryDigest(path);
    const onlyDangling = await memory.createRelations([
      { from: 'Zed', to: 'Bob', relationType: 'admires' },
      { from: 'Ada', to: 'Zed', relationType: 'knows' },
      { from: 'Yan', to: 'Zed', relationType: 'knows' },
    ]);
    expect(onlyDangling).toEqual({
      relations: [],
      skipped: [
        { from: 'Zed', to: 'Bob', relationType: 'admires', missingEntities: ['Zed'] },
        { from: 'Ada', to: 'Zed', relationType: 'knows', missingEntities: ['Zed'] },
        { from: 'Yan', to: 'Zed', relationType: 'knows', missingEntities: ['Yan', 'Zed'] },
      ],
    });
    expect(await memoryDigest(path)).toBe(digest);
    const mixed = await memory.createRelations([
      { from: 'Ada', to: 'Bob', relationType: 'admires' },
      { from: 'Ada', to: 'Zed', relationType: 'knows' },
    ]);
    expect(mixed.relations).toEqual([{ from: 'Ada', to: 'Bob', relationType: 'admires' }]);
    expect(mixed.skipped.map((r) => r.to)).toEqual(['Zed']);
    expect((await memory.readGraph()).relations).toHaveLength(4);
    const created = await memory.createRelations([
      { from: 'Ada', to: 'Acme', relationType: 'works at' },
      { from: 'Acme', to: 'Ada', relationType: 'works at' },
      { from: 'Ada', to: 'Acme', relationType: 'founded' },
      { from: 'Ada', to: 'Acme', relationType: 'founded' },
      { from: 'Ada', to: 'Ada', relationType: 'is' },
    ]);
    expect(created).toEqual({
      relations: [
        { from: 'Acme', to: 'Ada', relationType: 'works at' },
        { from: 'Ada', to: 'Acme', relationType: 'founded' },
        { from: 'Ada', to: 'Ada', relationType: 'is' },
      ],
      skipped: [],
    });
    expect((await memory.readGraph()).relations).toHaveLength(7);
  });

  it('add_observations returns what was new; an unknown entity refuses the whole call', async () => {
    const { memory, path } = await seeded();
    const added = await memory.addObservations([
      { entityName: 'Ada', contents: ['writes Rust', 'speaks French'] },
      { entityName: 'Bob', contents: ['plays go'] },
    ]);
    expect(added).toEqual([
      { entityName: 'Ada', addedObservations: ['speaks French'] },
      { entityName: 'Bob', addedObservations: ['plays go'] },
    ]);
    const digest = await memoryDigest(path);
    const error = await rejection(
      memory.addObservations([
        { entityName: 'Ada', contents: ['never'] },
        { entityName: 'Nobody', contents: ['x'] },
      ]),
    );
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toBe('Entity with name Nobody not found');
    expect(await memoryDigest(path)).toBe(digest);
  });

  it('delete_entities removes entities and their relations, reporting unknown names', async () => {
    const { memory } = await seeded();
    expect(await memory.deleteEntities(['Bob', 'Nobody'])).toEqual({
      deleted: ['Bob'],
      notFound: ['Nobody'],
    });
    const graph = await memory.readGraph();
    expect(graph.entities.map((e) => e.name)).toEqual(['Ada', 'Acme']);
    expect(graph.relations).toEqual([{ from: 'Ada', to: 'Acme', relationType: 'works at' }]);
  });

  it('delete_observations counts what went and names unknown entities', async () => {
    const { memory } = await seeded();
    const report = await memory.deleteObservations([
      { entityName: 'Ada', observations: ['lives in Lyon', 'never held'] },
      { entityName: 'Nobody', observations: ['x'] },
    ]);
    expect(report).toEqual({ deletedCount: 1, missingEntities: ['Nobody'] });
    expect((await memory.openNodes(['Ada'])).entities[0]?.observations).toEqual(['writes Rust']);
  });

  it('delete_relations deletes exact (from, to, type) matches only', async () => {
    const { memory } = await seeded();
    expect(
      await memory.deleteRelations([
        { from: 'Acme', to: 'Ada', relationType: 'works at' },
        { from: 'Ada', to: 'Acme', relationType: 'employs' },
        { from: 'Nobody', to: 'Ada', relationType: 'x' },
      ]),
    ).toEqual({ deletedCount: 0 });
    expect(await memory.deleteRelations([{ from: 'Ada', to: 'Acme', relationType: 'works at' }])).toEqual({
      deletedCount: 1,
    });
    expect((await memory.readGraph()).relations).toEqual([
      { from: 'Bob', to: 'Ada', relationType: 'mentors' },
      { from: 'Ada', to: 'Bob', relationType: 'knows' },
    ]);
  });

  it('read_graph lists everything in creation order; an unused graph reads empty', async () => {
    const { db, memory } = await seeded();
    expect(await memory.readGraph()).toEqual({
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['writes Rust', 'lives in Lyon'] },
        { name: 'Acme', entityType: 'organization', observations: ['makes anvils'] },
        { name: 'Bob', entityType: 'person', observations: ['likes chess'] },
      ],
      relations: [
        { from: 'Ada', to: 'Acme', relationType: 'works at' },
        { from: 'Bob', to: 'Ada', relationType: 'mentors' },
        { from: 'Ada', to: 'Bob', relationType: 'knows' },
      ],
    });
    const other = db.knowledge.memoryServer({ graph: 'elsewhere' });
    expect(await other.readGraph()).toEqual({ entities: [], relations: [] });
    expect(await other.searchNodes('Ada')).toEqual({ entities: [], relations: [] });
    expect(await other.deleteEntities(['Ada'])).toEqual({ deleted: [], notFound: ['Ada'] });
    expect((await db.knowledge.list()).map((g) => g.label)).toEqual(['memory']);
  });

  it('search_nodes finds what the memory server finds, ranked, with relations touching the hits', async () => {
    const { memory } = await seeded();
    await memory.createEntities([{ name: 'Lyon', entityType: 'city', observations: [] }]);
    const hits = await memory.searchNodes('LYON');
    expect(hits.entities.map((e) => e.name)).toEqual(['Lyon', 'Ada']);
    expect(hits.relations).toEqual([
      { from: 'Ada', to: 'Acme', relationType: 'works at' },
      { from: 'Bob', to: 'Ada', relationType: 'mentors' },
      { from: 'Ada', to: 'Bob', relationType: 'knows' },
    ]);
    expect((await memory.searchNodes('organ')).entities.map((e) => e.name)).toEqual(['Acme']);
    expect((await memory.searchNodes('')).entities).toHaveLength(4);
    expect((await memory.searchNodes('chess anvils')).entities.map((e) => e.name).sort()).toEqual([
      'Acme',
      'Bob',
    ]);
    expect((await memory.searchNodes('nothing like this')).entities).toEqual([]);
  });

  it('search_nodes keeps entities that match equally in the order they were created, as the reference does', async () => {
    const { db } = await fresh();
    const memory = db.knowledge.memoryServer();
    // One call each: every entity is written later than the one before it.
    for (const name of ['Ada', 'Bob', 'Cyd']) {
      await memory.createEntities([
        { name, entityType: 'person', observations: ['maintains the billing gateway'] },
      ]);
    }
    expect((await memory.searchNodes('billing')).entities.map((e) => e.name)).toEqual(['Ada', 'Bob', 'Cyd']);
    expect((await db.knowledge.search('gateway', { limit: 2 })).map((hit) => hit.node.title)).toEqual([
      'Ada',
      'Bob',
    ]);
  });

  it('open_nodes returns the named entities that exist and every relation touching one', async () => {
    const { memory } = await seeded();
    const opened = await memory.openNodes(['Acme', 'Nobody']);
    expect(opened).toEqual({
      entities: [{ name: 'Acme', entityType: 'organization', observations: ['makes anvils'] }],
      relations: [{ from: 'Ada', to: 'Acme', relationType: 'works at' }],
    });
    expect(await memory.openNodes([])).toEqual({ entities: [], relations: [] });
  });

  it('checks arguments like tool input', async () => {
    const { memory, path } = await seeded();
    const digest = await memoryDigest(path);
    const bad = [
      memory.createEntities([{ name: 'X', observations: [] } as never]),
      memory.createEntities([{ name: ' ', entityType: 't', observations: [] }]),
      memory.createRelations([{ from: 'Ada', to: 'Bob' } as never]),
      memory.addObservations([{ entityName: 'Ada', contents: 'text' } as never]),
      memory.searchNodes(42 as never),
    ];
    for (const call of bad) expect((await rejection(call)).code).toBe('INVALID_INPUT');
    expect(await memoryDigest(path)).toBe(digest);
  });

  it('loses no update between two connections writing the same file', async () => {
    const { db, path } = await fresh();
    const { db: other } = await fresh(path);
    const left = db.knowledge.memoryServer();
    const right = other.knowledge.memoryServer();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? left : right).createEntities([
          { name: `e${i}`, entityType: 't', observations: [`o${i}`] },
        ]),
      ),
    );
    await Promise.all([
      left.addObservations([{ entityName: 'e0', contents: ['from left'] }]),
      right.addObservations([{ entityName: 'e0', contents: ['from right'] }]),
    ]);
    const graph = await left.readGraph();
    expect(graph.entities).toHaveLength(20);
    // Which concurrent write commits first is the server's choice (PostgreSQL runs them at once).
    const e0 = graph.entities.find((entity) => entity.name === 'e0');
    expect(e0?.observations[0]).toBe('o0');
    expect([...(e0?.observations ?? [])].sort()).toEqual(['from left', 'from right', 'o0']);
  });
});

const referenceFile = [
  '{"type":"entity","name":"Ada","entityType":"person","observations":["writes Rust","lives in Lyon"]}',
  '{"type":"entity","name":"Acme","entityType":"organization","observations":[]}',
  '{"type":"entity","name":"Bob","entityType":"","observations":["line\\nbreak","quote \\" inside"]}',
  '{"type":"relation","from":"Ada","to":"Acme","relationType":"works at"}',
  '{"type":"relation","from":"Acme","to":"Ada","relationType":"employs"}',
  '{"type":"relation","from":"Ada","to":"Acme","relationType":"founded"}',
  '{"type":"relation","from":"Bob","to":"Bob","relationType":""}',
  '',
].join('\n');

describeEngines('memory-server JSONL', (engine) => {
  it('imports a memory-server file and exports it byte for byte', async () => {
    const { db } = await fresh();
    const report = await importMemoryServerJsonl(db, referenceFile);
    expect(report).toMatchObject({
      entities: 3,
      relations: 4,
      ignoredLines: 0,
      skippedRelations: [],
      edgesCreated: 4,
    });
    expect(report.created).toHaveLength(3);
    expect(await exportMemoryServerJsonl(db)).toBe(referenceFile);
  });

  it('is idempotent: importing the same file again adds nothing', async () => {
    const { db, path } = await fresh();
    await importMemoryServerJsonl(db, referenceFile);
    const digest = await memoryDigest(path);
    const again = await importMemoryServerJsonl(db, referenceFile);
    expect(again).toMatchObject({ created: [], updated: [], skipped: 3, edgesCreated: 0, edgesExisting: 4 });
    expect(await memoryDigest(path)).toBe(digest);
  });

  it('skips and reports relations to entities that exist nowhere', async () => {
    const { db } = await fresh();
    await db.knowledge
      .memoryServer()
      .createEntities([{ name: 'Zoe', entityType: 'person', observations: [] }]);
    const report = await importMemoryServerJsonl(
      db,
      [
        '{"type":"entity","name":"Ada","entityType":"person","observations":[]}',
        '{"type":"relation","from":"Ada","to":"Zoe","relationType":"knows"}',
        '{"type":"relation","from":"Ada","to":"Ghost","relationType":"haunts"}',
      ].join('\n'),
    );
    expect(report.edgesCreated).toBe(1);
    expect(report.skippedRelations).toEqual(["line 3: relation 'Ada' -> 'Ghost' names no entity 'Ghost'"]);
  });

  it('refuses a malformed file whole, naming the line', async () => {
    const { db, path } = await fresh();
    await importMemoryServerJsonl(db, referenceFile);
    const digest = await memoryDigest(path);
    const error = await rejection(
      importMemoryServerJsonl(
        db,
        `{"type":"entity","name":"New","entityType":"t","observations":[]}\n{"type":"relation"`,
      ),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.field).toBe('line 2');
    expect(await memoryDigest(path)).toBe(digest);
  });

  it('imports into a named graph and merges observations into existing entities', async () => {
    const { db } = await fresh();
    await importMemoryServerJsonl(db, referenceFile, { graph: 'people' });
    await importMemoryServerJsonl(
      db,
      '{"type":"entity","name":"Ada","entityType":"","observations":["lives in Lyon","plays go"]}\n',
      { graph: 'people' },
    );
    const ada = (await db.knowledge.memoryServer({ graph: 'people' }).openNodes(['Ada'])).entities[0];
    expect(ada).toEqual({
      name: 'Ada',
      entityType: 'person',
      observations: ['writes Rust', 'lives in Lyon', 'plays go'],
    });
    expect(await exportMemoryServerJsonl(db)).toBe('');
  });

  it('exports graphs built with import() (content, hyperedges) and round-trips them', async () => {
    const { db } = await fresh();
    await db.knowledge.import({
      graph: 'memory',
      nodes: [
        { title: 'A', type: 'x', content: 'about A', observations: ['about A', 'more'] },
        { title: 'B' },
        { title: 'C' },
      ],
      edges: [
        { kind: 'part_of', members: ['A', 'B', 'C'] },
        { kind: 'sequence', directed: true, members: ['C', 'B', 'A'] },
        { kind: 'dependency', label: 'needs', members: ['A', 'B'] },
        { kind: 'custom', label: 'part_of', directed: true, members: ['A', 'B'] },
      ],
    });
    const first = await exportMemoryServerJsonl(db);
    expect(first.split('\n').filter((line) => line.includes('"relation"'))).toHaveLength(6);
    expect(first).toContain(
      '{"type":"entity","name":"A","entityType":"x","observations":["about A","more"]}',
    );
    const { db: copy } = await fresh();
    await importMemoryServerJsonl(copy, first);
    expect(await exportMemoryServerJsonl(copy)).toBe(first);
  });

  // Two fresh memories per run (a schema migrated on the server each): fewer runs on PostgreSQL.
  const numRuns = engine.name === 'postgres' ? 10 : 25;
  it(
    'round-trips any graph: export, import into an empty file, export gives the same text',
    { timeout: 180_000 },
    async () => {
      const name = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim().length > 0);
      const graphArb = fc
        .uniqueArray(
          fc.record({
            name,
            entityType: fc.string({ maxLength: 8 }),
            observations: fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }),
          }),
          {
            selector: (entity) => entity.name,
            minLength: 1,
            maxLength: 8,
          },
        )
        .chain((entities) =>
          fc.record({
            entities: fc.constant(entities),
            relations: fc.array(
              fc.record({
                from: fc.constantFrom(...entities.map((e) => e.name)),
                to: fc.constantFrom(...entities.map((e) => e.name)),
                relationType: fc.string({ maxLength: 10 }),
              }),
              { maxLength: 12 },
            ),
          }),
        );
      await fc.assert(
        fc.asyncProperty(graphArb, async ({ entities, relations }) => {
          const source = await fresh();
          const memory = source.db.knowledge.memoryServer();
          await memory.createEntities(entities);
          await memory.createRelations(relations);
          const first = await exportMemoryServerJsonl(source.db);
          const target = await fresh();
          await importMemoryServerJsonl(target.db, first);
          expect(await exportMemoryServerJsonl(target.db)).toBe(first);
          const again = await importMemoryServerJsonl(source.db, first);
          expect(again.created).toEqual([]);
          expect(again.updated).toEqual([]);
          expect(again.edgesCreated).toBe(0);
          expect(await exportMemoryServerJsonl(source.db)).toBe(first);
          await source.db.close();
          await target.db.close();
        }),
        { numRuns },
      );
    },
  );
});
