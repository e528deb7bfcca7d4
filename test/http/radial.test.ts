import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { fileDigest, tempFile } from '../helpers/temp.js';
import { DEMO_LINES, LOGIN_FULL_STATE, openDemo } from './demo-memory.js';

async function setup() {
  const path = tempFile();
  const db = await openDemo(path);
  return { db, path, app: createHttpApp(db, { webRoot: false }) };
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('radial endpoints', () => {
  it('gives the whole hedgehog in one call', async () => {
    const { db, app } = await setup();
    const response = await app.request('/api/agents/primary/radial');
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      origin: string;
      lines: { id: string; nodes: { position: number; taskLabel: string }[] }[];
    };
    expect(body.origin.length).toBeGreaterThan(0);
    expect(body.lines.map((line) => line.id)).toEqual(DEMO_LINES.map((line) => line.id));
    const auth = body.lines[0]!;
    expect(auth.nodes.map((node) => node.position)).toEqual([1, 2, 3]);
    expect(auth.nodes[0]!.taskLabel).toBe('Add refresh token rotation');
    await db.close();
  });

  it('reads a node at each level and its exact full state', async () => {
    const { db, app } = await setup();
    const node = (await (await app.request('/api/agents/primary/lines/auth/nodes/2')).json()) as {
      id: string;
      taskLabel: string;
      summaries: Record<string, string>;
    };
    expect(node.taskLabel).toBe('Implement JWT login endpoint');
    expect(Object.keys(node.summaries)).toEqual(['origin', 'brief', 'summary', 'detailed']);
    for (const level of ['origin', 'brief', 'summary', 'detailed', 'full', '3']) {
      const response = await app.request(`/api/agents/primary/lines/auth/nodes/2/context?level=${level}`);
      expect(response.status, level).toBe(200);
    }
    const full = (await (await app.request(`/api/agents/primary/nodes/${node.id}/full`)).json()) as {
      fullContext: string;
    };
    expect(full.fullContext).toBe(LOGIN_FULL_STATE);
    await db.close();
  });

  it('maps API errors to statuses and leaves the file unchanged', async () => {
    const { db, app, path } = await setup();
    const before = fileDigest(path);
    const cases: [string, RequestInit | undefined, number, string][] = [
      ['/api/agents/primary/lines/nope', undefined, 404, 'NOT_FOUND'],
      ['/api/agents/primary/lines/auth/nodes/99', undefined, 404, 'NOT_FOUND'],
      ['/api/agents/primary/lines/auth/nodes/0', undefined, 400, 'INVALID_INPUT'],
      ['/api/agents/primary/lines/auth/nodes/abc', undefined, 400, 'INVALID_INPUT'],
      ['/api/agents/primary/lines/auth/nodes/1/context?level=huge', undefined, 400, 'INVALID_INPUT'],
      ['/api/agents/primary/lines/auth/nodes/1/context?bogus=1', undefined, 400, 'INVALID_INPUT'],
      ['/api/agents/ghost/lines', undefined, 404, 'NOT_FOUND'],
      ['/api/agents/primary/lines', json({ id: 'auth' }), 409, 'CONFLICT'],
      ['/api/agents/primary/lines', json({ id: 3 }), 400, 'INVALID_INPUT'],
      [
        '/api/agents/primary/lines/nope/tasks',
        json({ taskLabel: 'x', fullContext: 'y', conversationSummary: 'z' }),
        404,
        'NOT_FOUND',
      ],
    ];
    for (const [path, init, status, code] of cases) {
      const response = await app.request(path, init);
      expect(response.status, path).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe(code);
    }
    expect(fileDigest(path)).toBe(before);
    await db.close();
  });

  it('creates lines and commits tasks, and refuses both when read-only', async () => {
    const { db, app, path } = await setup();
    const created = await app.request('/api/agents/primary/lines', json({ id: 'docs', name: 'Docs' }));
    expect(created.status).toBe(200);
    const task = await app.request(
      '/api/agents/primary/lines/docs/tasks',
      json({
        taskLabel: 'Write the README',
        fullContext: 'README with install steps',
        conversationSummary: 'done',
      }),
    );
    expect(task.status).toBe(200);
    expect(await task.json()).toMatchObject({ lineId: 'docs', position: 1, taskLabel: 'Write the README' });

    const readOnly = createHttpApp(db, { webRoot: false, readOnly: true });
    const before = fileDigest(path);
    const refused = await readOnly.request('/api/agents/primary/lines', json({ id: 'more' }));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'READ_ONLY' } });
    expect(fileDigest(path)).toBe(before);
    await db.close();
  });

  it('navigates to the node answering a query', async () => {
    const { db, app } = await setup();
    const response = await app.request('/api/agents/primary/navigate', json({ query: 'JWT login endpoint' }));
    const body = (await response.json()) as { found: boolean; session?: { node: { taskLabel: string } } };
    expect(body.found).toBe(true);
    expect(body.session?.node.taskLabel).toBe('Implement JWT login endpoint');
    await db.close();
  });
});
