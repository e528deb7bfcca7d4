import { afterEach, describe, expect, it } from 'vitest';
import { ORIGIN_URI } from '../../src/mcp/index.js';
import { fileDigest } from '../helpers/temp.js';
import { connect, json, text, type Connected } from './helpers.js';

const HEDGEHOP_TOOLS = [
  'memory_origin',
  'memory_lines',
  'memory_history',
  'memory_navigate',
  'memory_load',
  'memory_drill',
  'memory_restore',
  'memory_commit',
  'memory_recall',
  'memory_turn_begin',
  'memory_turn_append',
  'memory_plan_add',
  'memory_plan_update',
  'memory_turn_end',
  'memory_profile_get',
  'memory_profile_update',
  'memory_dream',
  'knowledge_graphs',
  'knowledge_search',
  'knowledge_query',
  'knowledge_subgraph',
];
const MEMORY_SERVER_TOOLS = [
  'create_entities',
  'create_relations',
  'add_observations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
  'read_graph',
  'search_nodes',
  'open_nodes',
];

const LOGIN_STATE = 'POST /login → tokens.\nExact bytes: café 東京 "q" \\ \t end';

const open: Connected[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
});

async function server(options = {}): Promise<Connected> {
  const connected = await connect(options);
  open.push(connected);
  return connected;
}

async function commitLogin(c: Connected): Promise<string> {
  const result = await c.call('memory_commit', {
    lineId: 'auth',
    taskLabel: 'Implement JWT login',
    fullContext: LOGIN_STATE,
    conversationSummary: 'Stateless JWT chosen over sessions.',
    fileChanges: [{ path: 'src/login.ts', changeType: 'created' }],
    todos: ['rate limit'],
    lineName: 'Authentication',
  });
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { node: { nodeId: string } }).node.nodeId;
}

describe('MCP server (in memory)', () => {
  it('lists every tool with a description and an input schema, and the origin resource', async () => {
    const c = await server();
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name).sort();
    expect(names).toEqual([...HEDGEHOP_TOOLS, ...MEMORY_SERVER_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(20);
      expect(tool.inputSchema.type).toBe('object');
    }
    const { resources } = await c.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([ORIGIN_URI]);
  });

  it('offers only reading tools when read-only', async () => {
    const c = await server({ readOnly: true });
    const names = (await c.client.listTools()).tools.map((t) => t.name);
    for (const write of [
      'memory_commit',
      'memory_turn_begin',
      'memory_profile_update',
      'create_entities',
      'delete_entities',
    ]) {
      expect(names).not.toContain(write);
    }
    expect(names).toContain('memory_navigate');
    expect(names).toContain('read_graph');
  });

  it('commits, shows the origin, navigates, loads, drills level by level and restores verbatim', async () => {
    const c = await server();
    const nodeId = await commitLogin(c);
    const origin = text(await c.call('memory_origin'));
    expect(origin).toContain('auth');
    const resource = await c.client.readResource({ uri: ORIGIN_URI });
    expect(resource.contents[0]).toMatchObject({ uri: ORIGIN_URI, text: origin });

    const lines = json<{ id: string; nodeCount: number }[]>(await c.call('memory_lines'));
    expect(lines).toMatchObject([{ id: 'auth', nodeCount: 1 }]);
    const history = json<unknown[]>(await c.call('memory_history', { lineId: 'auth' }));
    expect(history).toHaveLength(1);

    const found = await c.call('memory_navigate', { query: 'how does JWT login work?' });
    expect(found.isError).toBeFalsy();
    expect(found.structuredContent).toMatchObject({
      node: { nodeId, lineId: 'auth', position: 1 },
      level: 1,
    });
    expect((found.structuredContent as { confidence: number }).confidence).toBeGreaterThan(0);
    expect(text(found)).toContain('confidence');

    const levels = [1];
    for (let i = 0; i < 3; i++) {
      const deeper = await c.call('memory_drill');
      levels.push((deeper.structuredContent as { level: number }).level);
    }
    expect(levels).toEqual([1, 2, 3, 4]);

    const restored = await c.call('memory_restore');
    expect(text(restored)).toBe(LOGIN_STATE);
    expect(text(await c.call('memory_restore', { lineId: 'auth', position: 1 }))).toBe(LOGIN_STATE);
    expect(text(await c.call('memory_restore', { nodeId }))).toBe(LOGIN_STATE);

    const loaded = await c.call('memory_load', { lineId: 'auth', level: 'detailed' });
    expect(loaded.structuredContent).toMatchObject({ level: 3, levelName: 'detailed' });
    const drilled = await c.call('memory_drill', { nodeId, level: 0 });
    expect(drilled.structuredContent).toMatchObject({ level: 1 });
  });

  it('recalls within a token budget', async () => {
    const c = await server();
    await commitLogin(c);
    const result = await c.call('memory_recall', { query: 'JWT login tokens', budgetTokens: 60 });
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as {
      usedTokens: number;
      budgetTokens: number;
      hits: { rank: number; wordsFound: number }[];
    };
    expect(body.budgetTokens).toBe(60);
    expect(body.usedTokens).toBeLessThanOrEqual(60);
    expect(body.hits.length).toBeGreaterThan(0);
    // Hits come in rank order; the share of query words found is reported beside, not as the order.
    expect(body.hits.map((hit) => hit.rank)).toEqual(body.hits.map((_, i) => i + 1));
    for (const hit of body.hits) expect(hit.wordsFound).toBeGreaterThanOrEqual(0);
    expect(body.hits[0]?.wordsFound).toBeGreaterThan(0.5);
  });

  it('runs the turn loop: begin, append, plan steps, end', async () => {
    const c = await server();
    const begun = json<{ turnId: string; resumed: boolean }>(
      await c.call('memory_turn_begin', { newScene: true, sceneName: 'deploy' }),
    );
    expect(begun.resumed).toBe(false);
    const again = json<{ turnId: string; resumed: boolean }>(await c.call('memory_turn_begin'));
    expect(again).toMatchObject({ turnId: begun.turnId, resumed: true });
    const step = json<{ step: { seq: number } }>(await c.call('memory_plan_add', { title: 'read the log' }));
    expect(step.step.seq).toBe(1);
    const slot = json<{ seq: number }>(
      await c.call('memory_turn_append', {
        kind: 'event',
        eventType: 'tool_call',
        content: 'ci logs --last',
        planStep: 1,
      }),
    );
    expect(slot.seq).toBe(3);
    const updated = json<{ plan: { doneCount: number } }>(
      await c.call('memory_plan_update', { seq: 1, status: 'done', summary: 'migration 0042 failed' }),
    );
    expect(updated.plan.doneCount).toBe(1);
    const ended = await c.call('memory_turn_end', {
      input: 'Why did deploy fail?',
      output: 'Migration 0042.',
      outcome: 'resolved',
    });
    expect(ended.isError).toBeFalsy();
    expect(ended.structuredContent).toMatchObject({ topic: { id: begun.turnId, status: 'closed' } });
    const records = await c.db.primary().searchArchive({});
    expect(records.map((r) => r.content)).toEqual(
      expect.arrayContaining(['ci logs --last', 'Why did deploy fail?', 'Migration 0042.']),
    );
    const noTurn = await c.call('memory_turn_append', { kind: 'event', eventType: 'x', content: 'y' });
    expect(noTurn.isError).toBe(true);
    expect(text(noTurn)).toMatch(/^INVALID_INPUT: .*no turn is open/);
  });

  it('runs a Dream pass and reports it', async () => {
    const c = await server();
    await commitLogin(c);
    const result = await c.call('memory_dream');
    expect(result.isError, text(result)).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: expect.stringMatching(/ok|partial/) });
    expect((result.structuredContent as { stages: unknown[] }).stages.length).toBeGreaterThan(0);
  });

  it('reads and updates the profile', async () => {
    const c = await server();
    const updated = json<{ name: string; preferences: Record<string, string> }>(
      await c.call('memory_profile_update', { name: 'Ada', preferences: { editor: 'vim' } }),
    );
    expect(updated).toMatchObject({ name: 'Ada', preferences: { editor: 'vim' } });
    await c.call('memory_profile_update', { role: 'engineer', preferences: { editor: null } });
    expect(json(await c.call('memory_profile_get'))).toMatchObject({
      name: 'Ada',
      role: 'engineer',
      preferences: {},
    });
  });

  it('queries knowledge graphs', async () => {
    const c = await server();
    await c.db.knowledge.import({
      graph: 'architecture',
      nodes: [
        { title: 'API gateway', type: 'service', observations: ['routes /auth'] },
        { title: 'Auth service', type: 'service' },
        { title: 'Postgres', type: 'database' },
      ],
      edges: [
        { kind: 'dependency', directed: true, members: ['API gateway', 'Auth service'] },
        { kind: 'dependency', directed: true, members: ['Auth service', 'Postgres'] },
      ],
    });
    expect(json<{ label: string }[]>(await c.call('knowledge_graphs'))).toMatchObject([
      { label: 'architecture', nodeCount: 3 },
    ]);
    const search = json<{ title: string }[]>(await c.call('knowledge_search', { query: 'gateway' }));
    expect(search[0]?.title).toBe('API gateway');
    const query = json<{ title: string }[]>(
      await c.call('knowledge_query', { graph: 'architecture', type: 'database' }),
    );
    expect(query.map((n) => n.title)).toEqual(['Postgres']);
    const sub = json<{ nodes: { title: string; distance: number }[]; edges: unknown[] }>(
      await c.call('knowledge_subgraph', { graph: 'architecture', titles: ['API gateway'], depth: 2 }),
    );
    expect(sub.nodes.map((n) => [n.title, n.distance])).toEqual([
      ['API gateway', 0],
      ['Auth service', 1],
      ['Postgres', 2],
    ]);
    expect(sub.edges).toHaveLength(2);
    const unknownGraph = await c.call('knowledge_query', { graph: 'nope' });
    expect(unknownGraph.isError).toBe(true);
    expect(text(unknownGraph)).toMatch(/^NOT_FOUND/);
  });

  it('answers a wrongly typed argument to any tool with isError', async () => {
    const c = await server();
    const { tools } = await c.client.listTools();
    let checked = 0;
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
      const [name, schema] = Object.entries(properties)[0] ?? [];
      if (name === undefined) continue;
      const wrong = schema?.type === 'string' ? 12345 : 'not-the-right-type';
      const result = await c.call(tool.name, { [name]: wrong });
      expect(result.isError, `${tool.name}.${name}`).toBe(true);
      expect(text(result)).not.toBe('');
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('refuses bad arguments with isError and leaves the file unchanged', async () => {
    const c = await server();
    await commitLogin(c);
    await c.db.checkpoint();
    const before = fileDigest(c.path);
    const bad: [string, Record<string, unknown>][] = [
      ['memory_commit', { lineId: 'auth' }],
      ['memory_commit', { lineId: '', taskLabel: 'x', fullContext: 'y', conversationSummary: 'z' }],
      [
        'memory_commit',
        { lineId: 'auth', taskLabel: 'x', fullContext: 'lone \ud800', conversationSummary: 'z' },
      ],
      ['memory_navigate', { query: 42 }],
      ['memory_navigate', { query: 'nothing like this at all zzzqqq' }],
      ['memory_load', { lineId: 'auth', position: 0 }],
      ['memory_load', { lineId: 'auth', level: 'huge' }],
      ['memory_restore', { lineId: 'nope' }],
      ['memory_history', { lineId: 'nope' }],
      ['memory_recall', { query: 'x', budgetTokens: -1 }],
      ['memory_recall', { query: '   ' }],
      ['memory_plan_add', { title: 'no turn open' }],
      ['memory_turn_end', { input: 'no turn open' }],
      ['memory_profile_update', { preferences: 'vim' }],
      ['create_entities', { entities: [{ name: 'A' }] }],
      ['add_observations', { observations: [{ entityName: 'Ghost', contents: ['boo'] }] }],
      ['open_nodes', { names: 'A' }],
      ['knowledge_subgraph', { nodeIds: ['kn_missing'] }],
      ['knowledge_subgraph', { titles: ['A'] }],
    ];
    for (const [name, args] of bad) {
      const result = await c.call(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(text(result).length).toBeGreaterThan(5);
    }
    const dangling = await c.call('create_relations', {
      relations: [{ from: 'A', to: 'B', relationType: 'knows' }],
    });
    expect(dangling.isError).toBeFalsy();
    expect(dangling.structuredContent).toMatchObject({
      relations: [],
      skipped: [{ missingEntities: ['A', 'B'] }],
    });
    await c.db.checkpoint();
    expect(fileDigest(c.path)).toBe(before);
  });
});

describe('MCP server: drop-in for the reference memory server', () => {
  it('creates, reads, searches, opens and deletes with the same shapes', async () => {
    const c = await server();
    const entities = [
      { name: 'Ada', entityType: 'person', observations: ['writes Rust', 'lives in Lyon'] },
      { name: 'Acme', entityType: 'organization', observations: ['builds rockets'] },
    ];
    const created = await c.call('create_entities', { entities });
    expect(json(created)).toEqual(entities);
    expect(created.structuredContent).toEqual({ entities });
    expect(json(await c.call('create_entities', { entities }))).toEqual([]);

    const relation = { from: 'Ada', to: 'Acme', relationType: 'works_at' };
    expect(json(await c.call('create_relations', { relations: [relation] }))).toEqual([relation]);
    expect(
      json(
        await c.call('add_observations', {
          observations: [{ entityName: 'Ada', contents: ['likes tea', 'writes Rust'] }],
        }),
      ),
    ).toEqual([{ entityName: 'Ada', addedObservations: ['likes tea'] }]);

    const graph = json<{ entities: unknown[]; relations: unknown[] }>(await c.call('read_graph'));
    expect(graph).toEqual({
      entities: [
        { ...entities[0], observations: ['writes Rust', 'lives in Lyon', 'likes tea'] },
        entities[1],
      ],
      relations: [relation],
    });
    const searched = json<{ entities: { name: string }[]; relations: unknown[] }>(
      await c.call('search_nodes', { query: 'rust' }),
    );
    expect(searched.entities.map((e) => e.name)).toEqual(['Ada']);
    const opened = json<{ entities: { name: string }[]; relations: unknown[] }>(
      await c.call('open_nodes', { names: ['Ada', 'Acme', 'Nobody'] }),
    );
    expect(opened.entities.map((e) => e.name)).toEqual(['Ada', 'Acme']);
    expect(opened.relations).toEqual([relation]);

    const delObs = await c.call('delete_observations', {
      deletions: [{ entityName: 'Ada', observations: ['likes tea'] }],
    });
    expect(text(delObs)).toBe('Observations deleted successfully');
    expect(delObs.structuredContent).toMatchObject({
      success: true,
      message: 'Observations deleted successfully',
    });
    expect(text(await c.call('delete_relations', { relations: [relation] }))).toBe(
      'Relations deleted successfully',
    );
    const delEnt = await c.call('delete_entities', { entityNames: ['Acme', 'Nobody'] });
    expect(text(delEnt)).toBe('Entities deleted successfully');
    expect(delEnt.structuredContent).toMatchObject({
      success: true,
      deleted: ['Acme'],
      notFound: ['Nobody'],
    });
    expect(json(await c.call('read_graph'))).toEqual({
      entities: [{ ...entities[0], observations: ['writes Rust', 'lives in Lyon'] }],
      relations: [],
    });
  });

  it('works on the graph named by options.graph', async () => {
    const c = await server({ graph: 'people' });
    await c.call('create_entities', { entities: [{ name: 'Bo', entityType: 'person', observations: [] }] });
    expect((await c.db.knowledge.list()).map((g) => g.label)).toEqual(['people']);
  });
});
