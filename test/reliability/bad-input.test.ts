/**
 * Bad input: a seeded fast-check run of random sequences of valid and invalid calls against the
 * public API (radial memory, the turn loop and archive, plans, profile, knowledge graphs, the
 * memory-server tools, recall, agents). Every call either succeeds or fails with a typed
 * HedgehopError of an expected code; a call refused with INVALID_INPUT leaves the memory
 * unchanged (the file's bytes on SQLite, every row of every table on PostgreSQL); after each
 * sequence the invariants hold and the memory passes `check()`. Runs on both engines
 * (test/helpers/engines.ts); PostgreSQL runs fewer sequences (a server round trip per call and
 * two per digest).
 * The CLI, MCP tools and HTTP API have their own fuzz tests beside their adapters (test/http/fuzz.test.ts,
 * test/mcp/, test/cli/).
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { HedgehopError, openMemory, type Agent, type MemoryDB } from '../../src/index.js';
import { describeEngines } from '../helpers/engines.js';
import { recordFigure } from './helpers.js';

const SEED = 20261130;
const RUNS = { sqlite: 300, postgres: 20 } as const;

/** Codes a call may fail with on bad input or an unlucky order of calls. */
const EXPECTED_CODES = new Set(['INVALID_INPUT', 'NOT_FOUND', 'CONFLICT']);

interface Ctx {
  readonly db: MemoryDB;
  readonly agent: Agent;
}

interface Command {
  readonly label: string;
  readonly run: (ctx: Ctx) => Promise<unknown>;
}

const nasty = fc.constantFrom(
  '',
  ' ',
  '\uD800',
  'x\u0000y',
  'NEAR(a b)',
  '"unbalanced',
  "'; DROP TABLE nodes; --",
  'AND OR NOT *',
  '^-+:',
  '日本語のテキスト',
  '🦔 hedgehog',
  'a'.repeat(5000),
);
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  nasty,
  fc.constantFrom('auth', 'login', 'deploy', 'cache'),
);
const anything = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.object({ maxDepth: 1 }),
);
const lineId = fc.oneof(fc.constantFrom('auth', 'infra', 'rec'), text, anything);
const time = fc.oneof(
  fc.constant(1_800_000_000_000),
  fc.integer({ min: 1, max: 2e12 }),
  fc.constant(1_700_000_000),
  fc.constant(-5),
  anything,
);
const position = fc.oneof(fc.integer({ min: -2, max: 6 }), fc.double(), anything);

const command = (label: string, args: fc.Arbitrary<(ctx: Ctx) => Promise<unknown>>): fc.Arbitrary<Command> =>
  args.map((run) => ({ label, run }));

/* eslint-disable @typescript-eslint/no-explicit-any -- the point is to pass what the types forbid */
const COMMANDS: fc.Arbitrary<Command>[] = [
  command(
    'createLine',
    fc.tuple(lineId, text, text).map(
      ([id, name, description]) =>
        ({ agent }) =>
          agent.radial.createLine(id as any, name, description),
    ),
  ),
  command(
    'completeTask',
    fc
      .record(
        {
          lineId,
          taskLabel: text,
          fullContext: fc.oneof(text, anything),
          conversationSummary: fc.oneof(text, anything),
          todos: fc.oneof(fc.array(text, { maxLength: 3 }), anything),
        },
        { requiredKeys: ['lineId', 'taskLabel'] },
      )
      .chain((task) => fc.oneof(fc.constant(task), fc.constant({ ...task, unknownField: 1 })))
      .map(
        (task) =>
          ({ agent }) =>
            agent.radial.completeTask(task as any),
      ),
  ),
  command(
    'navigate',
    fc.tuple(fc.oneof(text, anything), fc.oneof(fc.constant(undefined), fc.record({ lineId }), anything)).map(
      ([q, o]) =>
        ({ agent }) =>
          agent.radial.navigate(q as any, o as any),
    ),
  ),
  command(
    'getNode',
    fc.tuple(lineId, position).map(
      ([id, p]) =>
        ({ agent }) =>
          agent.radial.getNode(id as any, p as any),
    ),
  ),
  command(
    'loadNodeContext',
    fc.tuple(lineId, position, fc.oneof(fc.integer({ min: -1, max: 5 }), text)).map(
      ([id, p, level]) =>
        ({ agent }) =>
          agent.radial.loadNodeContext(id as any, p as any, level as any),
    ),
  ),
  command(
    'search',
    fc
      .oneof(
        fc.constant({}),
        fc.record({ newScene: fc.oneof(fc.boolean(), anything) }),
        fc.record({ sceneId: text }),
        anything,
      )
      .map(
        (q) =>
          ({ agent }) =>
            agent.search(q as any),
      ),
  ),
  command(
    'appendArchive',
    fc
      .record(
        {
          kind: fc.oneof(fc.constantFrom('utterance', 'event'), anything),
          role: fc.oneof(fc.constantFrom('user', 'agent', 'dream'), anything),
          eventType: fc.oneof(fc.constant('tool_call'), text),
          content: text,
          createdAt: time,
          seq: fc.oneof(fc.integer({ min: -1, max: 8 }), anything),
        },
        { requiredKeys: ['kind', 'content', 'createdAt'] },
      )
      .map(
        (record) =>
          ({ agent }) =>
            agent.appendArchive(record as any),
      ),
  ),
  command(
    'update',
    fc.record({ input: text, output: text, outcome: text, createdAt: time }, { requiredKeys: [] }).map(
      (end) =>
        ({ agent }) =>
          agent.update(end as any),
    ),
  ),
  command(
    'planNodeAdd',
    fc.tuple(fc.oneof(fc.integer({ min: -1, max: 4 }), anything), text).map(
      ([parent, title]) =>
        ({ agent }) =>
          agent.planNodeAdd(parent as any, title),
    ),
  ),
  command(
    'planNodeUpdate',
    fc
      .record({
        seq: position,
        status: fc.oneof(fc.constantFrom('done', 'in_progress', 'failed', 'nope'), anything),
        summary: text,
      })
      .map(
        (step) =>
          ({ agent }) =>
            agent.planNodeUpdate(step as any),
      ),
  ),
  command(
    'searchArchive',
    fc
      .oneof(
        fc.record(
          { text, limit: fc.oneof(fc.integer({ min: -1, max: 20 }), anything) },
          { requiredKeys: [] },
        ),
        anything,
      )
      .map(
        (q) =>
          ({ agent }) =>
            agent.searchArchive(q as any),
      ),
  ),
  command(
    'recall',
    fc
      .tuple(
        fc.oneof(text, anything),
        fc.oneof(
          fc.record(
            {
              budgetTokens: fc.oneof(fc.integer({ min: -10, max: 2000 }), anything),
              limit: fc.oneof(fc.integer({ min: -1, max: 30 }), anything),
              layers: fc.oneof(fc.constant(['archive', 'radial']), fc.array(text, { maxLength: 2 })),
            },
            { requiredKeys: [] },
          ),
          anything,
        ),
      )
      .map(
        ([q, o]) =>
          ({ agent }) =>
            agent.recall(q as any, o as any),
      ),
  ),
  command(
    'updateProfile',
    fc
      .oneof(
        fc.record(
          { role: text, preferences: fc.dictionary(text, fc.oneof(text, fc.constant(null)), { maxKeys: 3 }) },
          { requiredKeys: [] },
        ),
        anything,
      )
      .map(
        (p) =>
          ({ agent }) =>
            agent.updateProfile(p as any),
      ),
  ),
  command(
    'agent',
    fc.oneof(text, anything).map(
      (name) =>
        ({ db }) =>
          db.agent(name as any),
    ),
  ),
  command(
    'knowledge.import',
    fc
      .record(
        {
          graph: fc.oneof(fc.constant('g'), text, anything),
          nodes: fc.oneof(
            fc.array(
              fc.record({ title: fc.oneof(text, anything), type: text }, { requiredKeys: ['title'] }),
              { maxLength: 4 },
            ),
            anything,
          ),
          edges: fc.oneof(
            fc.array(
              fc.record({
                kind: fc.oneof(fc.constantFrom('related', 'causal', 'bogus'), anything),
                members: fc.array(text, { maxLength: 3 }),
              }),
              { maxLength: 3 },
            ),
            anything,
          ),
        },
        { requiredKeys: ['graph'] },
      )
      .map(
        (batch) =>
          ({ db }) =>
            db.knowledge.import(batch as any),
      ),
  ),
  command(
    'knowledge.querySubgraph',
    fc
      .tuple(
        fc.oneof(fc.array(text, { maxLength: 2 }), anything),
        fc.oneof(fc.record({ depth: fc.oneof(fc.integer({ min: -1, max: 4 }), anything) }), anything),
      )
      .map(
        ([ids, o]) =>
          ({ db }) =>
            db.knowledge.querySubgraph(ids as any, o as any),
      ),
  ),
  command(
    'knowledge.search',
    fc
      .tuple(
        fc.oneof(text, anything),
        fc.oneof(fc.record({ limit: fc.oneof(fc.integer({ min: -1, max: 5 }), anything) }), anything),
      )
      .map(
        ([q, o]) =>
          ({ db }) =>
            db.knowledge.search(q as any, o as any),
      ),
  ),
  command(
    'memoryServer.createEntities',
    fc
      .oneof(
        fc.array(
          fc.record({ name: text, entityType: text, observations: fc.array(text, { maxLength: 2 }) }),
          { maxLength: 3 },
        ),
        anything,
      )
      .map(
        (e) =>
          ({ db }) =>
            db.knowledge.memoryServer().createEntities(e as any),
      ),
  ),
  command(
    'memoryServer.createRelations',
    fc
      .oneof(fc.array(fc.record({ from: text, to: text, relationType: text }), { maxLength: 2 }), anything)
      .map(
        (r) =>
          ({ db }) =>
            db.knowledge.memoryServer().createRelations(r as any),
      ),
  ),
  command(
    'memoryServer.addObservations',
    fc
      .oneof(
        fc.array(fc.record({ entityName: text, contents: fc.array(text, { maxLength: 2 }) }), {
          maxLength: 2,
        }),
        anything,
      )
      .map(
        (o) =>
          ({ db }) =>
            db.knowledge.memoryServer().addObservations(o as any),
      ),
  ),
  command(
    'memoryServer.deleteEntities',
    fc.oneof(fc.array(text, { maxLength: 2 }), anything).map(
      (names) =>
        ({ db }) =>
          db.knowledge.memoryServer().deleteEntities(names as any),
    ),
  ),
  command(
    'memoryServer.searchNodes',
    fc.oneof(text, anything).map(
      (q) =>
        ({ db }) =>
          db.knowledge.memoryServer().searchNodes(q as any),
    ),
  ),
  command(
    'context.load',
    fc.oneof(text, anything).map(
      (q) =>
        ({ agent }) =>
          agent.context.load(q as any),
    ),
  ),
];
/* eslint-enable @typescript-eslint/no-explicit-any */

async function invariants(db: MemoryDB): Promise<void> {
  await db.check();
  for (const info of await db.agents()) {
    const agent = await db.agent(info.name);
    for (const line of await agent.radial.listLines()) {
      const positions = (await agent.radial.getLineHistory(line.id))
        .map((e) => e.position)
        .sort((a, b) => a - b);
      expect(positions).toEqual(positions.map((_, i) => i + 1));
    }
  }
  const graph = await db.knowledge.memoryServer().readGraph();
  const names = new Set(graph.entities.map((e) => e.name));
  for (const relation of graph.relations) {
    expect(
      names.has(relation.from) && names.has(relation.to),
      `relation ${relation.from} → ${relation.to} names a missing entity`,
    ).toBe(true);
  }
}

describeEngines('bad input', (engine) => {
  const runs = RUNS[engine.name];
  it(`${runs} seeded sequences of random valid and invalid calls: typed errors only, memory unchanged on refusal, invariants hold`, async () => {
    const outcomes = new Map<string, number>();
    let calls = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(...COMMANDS), { minLength: 10, maxLength: 40 }),
        async (commands) => {
          const path = engine.memoryPath();
          const db = await openMemory(path, { dream: { auto: false } });
          const agent = db.primary();
          await agent.radial.createLine('auth', 'Authentication', 'Login and tokens');
          try {
            for (const cmd of commands) {
              calls++;
              const before = await engine.digest(path);
              try {
                await cmd.run({ db, agent });
                outcomes.set('ok', (outcomes.get('ok') ?? 0) + 1);
              } catch (error) {
                if (!HedgehopError.isInstance(error))
                  throw new Error(`${cmd.label} threw an untyped error: ${String(error)}`, { cause: error });
                if (!EXPECTED_CODES.has(error.code))
                  throw new Error(`${cmd.label} failed with ${error.code}: ${error.message}`, {
                    cause: error,
                  });
                outcomes.set(error.code, (outcomes.get(error.code) ?? 0) + 1);
                if (error.code === 'INVALID_INPUT')
                  expect(await engine.digest(path), `${cmd.label} was refused but changed the memory`).toBe(
                    before,
                  );
              }
            }
            await invariants(db);
          } finally {
            await db.close();
          }
        },
      ),
      { seed: SEED, numRuns: runs, endOnFailure: true },
    );
    recordFigure({
      suite: 'bad-input',
      engine: engine.name,
      seed: SEED,
      sequences: runs,
      calls,
      outcomes: Object.fromEntries(outcomes),
    });
    expect(calls).toBeGreaterThan(runs * 7);
  }, 400_000);
});
