import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/api/memory-db.js';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { isLoopbackHost, startServer } from '../../src/http/start-server.js';
import { tempFile } from '../helpers/temp.js';
import { openDemo } from './demo-memory.js';

const TOKEN = 'test-token-0123456789';

/** Reads an event stream until `match` appears in it (or fails after `timeoutMs`). */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  match: RegExp,
  timeoutMs = 10_000,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + timeoutMs;
  while (!match.test(text)) {
    if (Date.now() > deadline) throw new Error(`no ${match} in stream: ${text}`);
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before ${match}: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe('serving', () => {
  it('pushes a change event when another connection writes (serve --watch)', async () => {
    const path = tempFile();
    const db = await openDemo(path);
    const app = createHttpApp(db, { webRoot: false, watch: { intervalMs: 25 } });
    const response = await app.request('/api/events');
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    await readUntil(reader, /event: hello/);
    const other = await openMemory(path);
    await other.primary().radial.createLine('watched', 'Watched');
    await other.close();
    const text = await readUntil(reader, /event: change/);
    expect(text).toMatch(/data: \{"dataVersion":\d+\}/);
    await reader.cancel();
    await db.close();
  });

  it('has no event stream unless watching', async () => {
    const db = await openMemory(tempFile());
    const app = createHttpApp(db, { webRoot: false });
    expect((await app.request('/api/events')).status).toBe(404);
    expect(await (await app.request('/api/server')).json()).toEqual({
      readOnly: false,
      watch: false,
      mcp: false,
    });
    await db.close();
  });

  it('serves a real port on 127.0.0.1 with the token and the UI shell', async () => {
    const db = await openDemo(tempFile());
    const server = await startServer(db, { port: 0, token: TOKEN });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await fetch(`${server.url}/api/stats`)).status).toBe(401);
      const ok = await fetch(`${server.url}/api/agents/primary/lines`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as unknown[]).length).toBeGreaterThan(0);
      const tooBig = await fetch(`${server.url}/api/agents/primary/recall`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'x'.repeat(2 * 1024 * 1024) }),
      });
      expect(tooBig.status).toBe(413);
    } finally {
      await server.close();
      await db.close();
    }
  });

  it('answers another request while a long recall query runs', async () => {
    const db = await openDemo(tempFile());
    const server = await startServer(db, { port: 0, token: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const cjk = '我们讨论了数据库的设计和索引的性能问题以及如何在大型系统中保持低延迟服务质量';
    const latin = Array.from({ length: 15_000 }, (_, i) => `token${(i * 7919) % 9000}`).join(' ');
    try {
      for (const query of [cjk.repeat(2_700).slice(0, 100_000), latin.slice(0, 100_000)]) {
        const long = fetch(`${server.url}/api/agents/primary/recall`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ query, budgetTokens: 1000 }),
        });
        const start = performance.now();
        const other = await fetch(`${server.url}/api/stats`, { headers: auth });
        // Generous bound (10x the 50 ms target); a 99,000-character CJK query used to hold the server for 12.6 s.
        expect(performance.now() - start).toBeLessThan(500);
        expect(other.status).toBe(200);
        expect((await long).status).toBe(200);
      }
    } finally {
      await server.close();
      await db.close();
    }
  });

  it('refuses a Host header that is not loopback on a token-less server (DNS rebinding)', async () => {
    const db = await openMemory(tempFile());
    const server = await startServer(db, { port: 0 });
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port: server.port, path: '/api/stats', headers: { host: 'attacker.example' } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(403);
      expect((await fetch(`${server.url}/api/stats`)).status).toBe(200);
    } finally {
      await server.close();
      await db.close();
    }
  });

  it('refuses to bind beyond loopback without a token', async () => {
    const db = await openMemory(tempFile());
    await expect(startServer(db, { host: '0.0.0.0', port: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      field: 'token',
    });
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('localhost')).toBe(true);
    expect(isLoopbackHost('0.0.0.0')).toBe(false);
    expect(isLoopbackHost('192.168.1.2')).toBe(false);
    expect(isLoopbackHost('::')).toBe(false);
    await db.close();
  });
});
