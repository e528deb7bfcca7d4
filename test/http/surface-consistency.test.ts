/** HTTP beside the CLI and MCP (issue 17): defaults, graph labels, input limits, read-only check. */
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { fileDigest, tempFile } from '../helpers/temp.js';
import { DEMO_EPOCH, openDemo } from './demo-memory.js';

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

describe('HTTP consistency with the CLI and MCP', () => {
  it('turn/archive and turn/end take createdAt as optional, defaulting to now', async () => {
    const { db, app } = await setup();
    expect((await app.request('/api/agents/primary/turn', post({}))).status).toBe(200);
    const slot = await app.request(
      '/api/agents/primary/turn/archive',
      post({ kind: 'event', eventType: 'tool_call', content: 'ls' }),
    );
    expect(slot.status, await slot.clone().text()).toBe(200);
    const end = await app.request('/api/agents/primary/turn/end', post({ input: 'hi', output: 'hello' }));
    const ended = (await end.json()) as { topic: { id: string } };
    expect(end.status, JSON.stringify(ended)).toBe(200);
    const turn = (await (await app.request(`/api/agents/primary/turns/${ended.topic.id}`)).json()) as {
      records: { createdAt: number }[];
    };
    expect(turn.records).toHaveLength(3);
    // Left out, createdAt is "now" by the memory's clock (the demo's steps from a fixed day).
    for (const record of turn.records) expect(record.createdAt).toBeGreaterThan(DEMO_EPOCH);
    await db.close();
  });

  it('GET /api/knowledge/{graph} takes a label as the CLI does, or an id', async () => {
    const { db, app } = await setup();
    const byLabel = await app.request('/api/knowledge/architecture');
    expect(byLabel.status).toBe(200);
    const graph = (await byLabel.json()) as { graph: { id: string; label: string }; nodes: unknown[] };
    expect(graph.graph.label).toBe('architecture');
    expect(graph.nodes).toHaveLength(4);
    expect((await app.request(`/api/knowledge/${graph.graph.id}`)).status).toBe(200);
    const missing = await app.request('/api/knowledge/nothing-here');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toContain(
      "'nothing-here'",
    );
    await db.close();
  });

  it('takes a navigate query as long as recall and the CLI do, and refuses one beyond it everywhere', async () => {
    const { db, app } = await setup();
    const long = `refresh token ${'rotation '.repeat(2000)}`;
    expect(long.length).toBeGreaterThan(10_000);
    const navigated = await app.request('/api/agents/primary/navigate', post({ query: long }));
    expect(navigated.status, await navigated.clone().text()).toBe(200);
    const tooLong = 'x'.repeat(100_001);
    const refused = await app.request('/api/agents/primary/navigate', post({ query: tooLong }));
    expect(refused.status).toBe(400);
    await expect(db.primary().radial.navigate(tooLong)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(db.primary().recall(tooLong)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await db.close();
  });

  it('refuses an empty or whitespace recall query as the library does, and finds nothing without a word', async () => {
    const { db, app } = await setup();
    for (const query of ['', '  \n ']) {
      const refused = await app.request('/api/agents/primary/recall', post({ query }));
      expect(refused.status, JSON.stringify(query)).toBe(400);
      const body = (await refused.json()) as { error: { code: string; field: string; message: string } };
      expect(body.error).toMatchObject({ code: 'INVALID_INPUT', field: 'body.query' });
      expect(body.error.message).toContain('must not be empty');
      await expect(db.primary().recall(query)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    const nothing = await app.request('/api/agents/primary/recall', post({ query: '?!' }));
    expect(nothing.status).toBe(200);
    expect(await nothing.json()).toMatchObject({ hits: [], context: '', usedTokens: 0 });
    await db.close();
  });

  it('under --read-only, /api/check reports the checks it skipped', async () => {
    const { db, path } = await setup();
    await db.close();
    const digest = fileDigest(path);
    const readOnly = await openMemory(path, { readOnly: true });
    const app = createHttpApp(readOnly, { webRoot: false, readOnly: true });
    const report = (await (await app.request('/api/check')).json()) as {
      checked: string[];
      skipped: { check: string; reason: string }[];
    };
    expect(report.checked).toContain('integrity_check');
    expect(report.checked).not.toContain('fts_integrity');
    expect(report.skipped).toEqual([
      { check: 'fts_integrity', reason: expect.stringContaining('read-only') },
    ]);
    await readOnly.close();
    expect(fileDigest(path)).toBe(digest);
    const writable = await openMemory(path);
    const full = await writable.check();
    expect(full.checked).toContain('fts_integrity');
    expect(full.skipped).toEqual([]);
    await writable.close();
  });
});
