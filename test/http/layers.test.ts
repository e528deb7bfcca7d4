import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { fileDigest, tempFile } from '../helpers/temp.js';
import { openDemo } from './demo-memory.js';

async function setup() {
  const path = tempFile();
  const db = await openDemo(path);
  return { db, path, app: createHttpApp(db, { webRoot: false }) };
}

const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

async function ok<T>(response: Response | Promise<Response>): Promise<T> {
  const answer = await response;
  const body = (await answer.json()) as T;
  expect(answer.status, JSON.stringify(body)).toBe(200);
  return body;
}

describe('conversation, recall and knowledge endpoints', () => {
  it('lists scenes and shows a scene as turns with utterances and events', async () => {
    const { db, app } = await setup();
    const scenes = await ok<{ id: string; name: string; current: boolean }[]>(
      app.request('/api/agents/primary/scenes'),
    );
    expect(scenes.map((s) => s.name)).toEqual(['Login work', 'Token audit']);
    expect(scenes.map((s) => s.current)).toEqual([false, true]);
    const login = scenes[0]!;
    const scene = await ok<{ topics: { id: string; messages: { role: string; content: string }[] }[] }>(
      app.request(`/api/agents/primary/scenes/${login.id}`),
    );
    expect(scene.topics).toHaveLength(2);
    expect(scene.topics[0]!.messages.map((m) => m.role)).toEqual(['user', 'agent']);
    const turn = await ok<{ records: { kind: string; eventType?: string; planStep?: number }[] }>(
      app.request(`/api/agents/primary/turns/${scene.topics[0]!.id}`),
    );
    expect(
      turn.records.some((r) => r.kind === 'event' && r.eventType === 'tool_call' && r.planStep === 1),
    ).toBe(true);
    const current = await ok<{ scene: { id: string } }>(app.request('/api/agents/primary/scene'));
    expect(current.scene.id).toBe(scenes[1]!.id);
    await db.close();
  });

  it('searches the archive with conditions from the query string', async () => {
    const { db, app } = await setup();
    const hits = await ok<{ content: string }[]>(
      app.request('/api/agents/primary/archive?text=refresh&kind=utterance'),
    );
    expect(hits.some((h) => h.content.includes('How long do refresh tokens live?'))).toBe(true);
    const bad = await app.request('/api/agents/primary/archive?kind=nonsense');
    expect(bad.status).toBe(400);
    await db.close();
  });

  it('runs a turn through the API: open, plan, archive, close', async () => {
    const { db, app } = await setup();
    const opened = await ok<{ turnId: string }>(app.request('/api/agents/primary/turn', post({})));
    await ok(app.request('/api/agents/primary/turn/plan', post({ parentSeq: 0, title: 'Check logs' })));
    const plan = await ok<{ turnId: string; roots: { title: string }[] }>(
      app.request('/api/agents/primary/plan'),
    );
    expect(plan.turnId).toBe(opened.turnId);
    expect(plan.roots[0]!.title).toBe('Check logs');
    await ok(
      app.request(
        '/api/agents/primary/turn/archive',
        post({ kind: 'event', eventType: 'tool_call', content: 'tail -f', createdAt: 5 }),
      ),
    );
    const closed = await ok<{ topic: { id: string; status: string } }>(
      app.request(
        '/api/agents/primary/turn/end',
        post({ input: 'Any errors?', output: 'None.', createdAt: 10 }),
      ),
    );
    expect(closed.topic).toMatchObject({ id: opened.turnId, status: 'closed' });
    const noTurn = await app.request('/api/agents/primary/plan');
    expect(noTurn.status).toBe(400);
    await db.close();
  });

  it('recalls ranked hits with provenance and a context within the budget', async () => {
    const { db, app } = await setup();
    const result = await ok<{
      hits: { layer: string; provenance: { table: string } }[];
      usedTokens: number;
      budgetTokens: number;
      context: string;
    }>(app.request('/api/agents/primary/recall', post({ query: 'JWT secret', budgetTokens: 120 })));
    expect(result.hits.length).toBeGreaterThan(0);
    expect(result.budgetTokens).toBe(120);
    expect(result.usedTokens).toBeLessThanOrEqual(120);
    expect(result.context.length).toBeGreaterThan(0);
    const layers = new Set(result.hits.map((hit) => hit.layer));
    expect(layers.size).toBeGreaterThan(1);
    const bad = await app.request('/api/agents/primary/recall', post({ query: 'x', budgetTokens: -1 }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: 'INVALID_INPUT', field: 'body.budgetTokens' } });
    await db.close();
  });

  it('lists knowledge graphs, returns a whole graph and searches nodes', async () => {
    const { db, app, path } = await setup();
    const graphs = await ok<{ id: string; label: string; nodeCount: number; edgeCount: number }[]>(
      app.request('/api/knowledge'),
    );
    expect(graphs).toEqual([expect.objectContaining({ label: 'architecture', nodeCount: 4, edgeCount: 3 })]);
    const graph = await ok<{ nodes: { title: string }[]; edges: { members: string[] }[] }>(
      app.request(`/api/knowledge/${graphs[0]!.id}`),
    );
    expect(graph.nodes.map((n) => n.title)).toEqual(['API', 'Postgres', 'Redis', 'Vault']);
    const hits = await ok<{ node: { title: string } }[]>(app.request('/api/knowledge/search?q=vault'));
    expect(hits[0]!.node.title).toBe('Vault');
    const before = fileDigest(path);
    expect((await app.request('/api/knowledge/nope')).status).toBe(404);
    expect((await app.request('/api/knowledge/import', post({ graph: 'g' }))).status).toBe(400);
    expect(fileDigest(path)).toBe(before);
    await db.close();
  });

  it('imports MemHop ImportL3 items: one graph per domain, edges from related; a bad item changes nothing', async () => {
    const { db, app, path } = await setup();
    const before = fileDigest(path);
    const refused = await app.request(
      '/api/knowledge/import-items',
      post([
        { title: 'Dentist', domain: 'health' },
        { title: ' ', domain: 'health' },
      ]),
    );
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    expect(fileDigest(path)).toBe(before);
    const report = await ok<{ graphIds: string[]; created: string[]; edgesCreated: number }>(
      app.request(
        '/api/knowledge/import-items',
        post([
          { title: 'Dentist', domain: 'health', related: [{ titles: ['Checkup'] }] },
          { title: 'Checkup', domain: 'health' },
          { title: 'Budget', domain: 'money' },
        ]),
      ),
    );
    expect(report.graphIds).toHaveLength(2);
    expect(report.created).toHaveLength(3);
    expect(report.edgesCreated).toBe(1);
    const graphs = await ok<{ label: string; nodeCount: number; edgeCount: number }[]>(
      app.request('/api/knowledge'),
    );
    expect(graphs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ label: 'health', nodeCount: 2, edgeCount: 1 }),
        expect.objectContaining({ label: 'money', nodeCount: 1, edgeCount: 0 }),
      ]),
    );
    await db.close();
  });
});

describe('engram and Dream endpoints', () => {
  it('lists the engram and the Dream history, and runs a pass', async () => {
    const { db, app, path } = await setup();
    const engram = await ok<{ nodes: { sceneId: string }[]; edges: unknown[] }>(
      app.request('/api/agents/primary/engram'),
    );
    expect(engram.nodes.length).toBe(2);
    const history = await ok<{ id: string; status: string; stages: { name: string }[] }[]>(
      app.request('/api/agents/primary/dreams'),
    );
    expect(history).toHaveLength(1);
    expect(history[0]!.stages.map((stage) => stage.name)).toContain('engram');
    const report = await ok<{ id: string; startedBy: string }>(
      app.request('/api/agents/primary/dream', post({})),
    );
    expect(report.startedBy).toBe('explicit');
    const after = await ok<{ id: string }[]>(app.request('/api/agents/primary/dreams?limit=1'));
    expect(after.map((run) => run.id)).toEqual([report.id]);
    const readOnly = createHttpApp(db, { webRoot: false, readOnly: true });
    const before = fileDigest(path);
    expect((await readOnly.request('/api/agents/primary/dream', post({}))).status).toBe(403);
    expect((await app.request('/api/agents/primary/dreams?limit=0')).status).toBe(400);
    expect(fileDigest(path)).toBe(before);
    await db.close();
  });
});
