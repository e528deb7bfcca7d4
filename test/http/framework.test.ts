import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/api/memory-db.js';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { tempFile } from '../helpers/temp.js';

const TOKEN = 'a-very-secret-token-123';

async function open() {
  const db = await openMemory(tempFile());
  return db;
}

describe('HTTP framework', () => {
  it('serves stats, agents and check as validated JSON', async () => {
    const db = await open();
    const app = createHttpApp(db, { webRoot: false });
    const stats = await app.request('/api/stats');
    expect(stats.status).toBe(200);
    const body = (await stats.json()) as { schemaVersion: number; agents: number };
    expect(body.agents).toBe(1);
    const agents = await app.request('/api/agents');
    expect(await agents.json()).toEqual([expect.objectContaining({ name: 'primary', primary: true })]);
    const check = await app.request('/api/check');
    expect(await check.json()).toMatchObject({ ok: true });
    await db.close();
  });

  it('answers unknown routes with a JSON 404', async () => {
    const db = await open();
    const app = createHttpApp(db, { webRoot: false });
    const response = await app.request('/api/nope');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    await db.close();
  });

  it('requires the bearer token on API, OpenAPI and MCP requests when one is set', async () => {
    const db = await open();
    const app = createHttpApp(db, {
      token: TOKEN,
      webRoot: false,
      mcp: async () => new Response('mcp ok'),
    });
    for (const path of ['/api/stats', '/openapi.json', '/mcp']) {
      const none = await app.request(path, { method: path === '/mcp' ? 'POST' : 'GET' });
      expect(none.status, path).toBe(401);
      expect(none.headers.get('www-authenticate')).toContain('Bearer');
      const wrong = await app.request(path, { headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status, path).toBe(401);
    }
    const good = await app.request('/api/stats', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(good.status).toBe(200);
    const mcp = await app.request('/mcp', { method: 'POST', headers: { authorization: `bearer ${TOKEN}` } });
    expect(await mcp.text()).toBe('mcp ok');
    await db.close();
  });

  it('rejects short tokens and unknown options', async () => {
    const db = await open();
    expect(() => createHttpApp(db, { token: 'short' })).toThrow(/token/);
    expect(() => createHttpApp(db, { bogus: 1 } as never)).toThrow(/INVALID_INPUT|bogus|options/);
    await db.close();
  });

  it('refuses non-loopback Host headers when no token is set (DNS rebinding)', async () => {
    const db = await open();
    const app = createHttpApp(db, { webRoot: false });
    const response = await app.request('http://evil.example:4747/api/stats');
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'FORBIDDEN_HOST' } });
    const local = await app.request('http://127.0.0.1:4747/api/stats');
    expect(local.status).toBe(200);
    await db.close();
  });

  it('keeps CORS off unless origins are configured', async () => {
    const db = await open();
    const off = createHttpApp(db, { webRoot: false });
    const plain = await off.request('/api/stats', { headers: { origin: 'http://localhost:3000' } });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const on = createHttpApp(db, { webRoot: false, cors: { origins: ['http://localhost:3000'] } });
    const allowed = await on.request('/api/stats', { headers: { origin: 'http://localhost:3000' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const other = await on.request('/api/stats', { headers: { origin: 'http://elsewhere:1' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    await db.close();
  });

  it('publishes an OpenAPI 3.1 document of every route', async () => {
    const db = await open();
    const app = createHttpApp(db, { webRoot: false, watch: true });
    const response = await app.request('/openapi.json');
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/stats', '/api/agents', '/api/check', '/api/events']),
    );
    expect(JSON.stringify(document)).not.toContain('#/$defs/');
    await db.close();
  });

  it('says the UI is not built when dist/web is missing', async () => {
    const db = await open();
    const app = createHttpApp(db, { webRoot: tempFile('nowhere') });
    const response = await app.request('/');
    expect(response.status).toBe(503);
    await db.close();
  });
});
