import { describe, expect, it } from 'vitest';
import { parseIsoTime } from '../../src/core/time-input.js';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { openMemory } from '../../src/index.js';
import { rejection } from '../helpers/errors.js';
import { fileDigest, tempFile } from '../helpers/temp.js';
import { connect } from '../mcp/helpers.js';

const ISO = '2026-01-05T09:30:00Z';
const MS = Date.UTC(2026, 0, 5, 9, 30);

describe('parseIsoTime', () => {
  it('reads ISO 8601 dates and date-times, and nothing else', () => {
    expect(parseIsoTime(ISO)).toBe(MS);
    expect(parseIsoTime('2026-01-05T09:30:00.123456+02:00')).toBe(MS - 2 * 3600_000 + 123);
    expect(parseIsoTime('2026-01-05T11:30+0200')).toBe(MS);
    expect(parseIsoTime('2026-01-05')).toBe(Date.UTC(2026, 0, 5));
    // No zone: local time (what HedgehogMemory's naive isoformat() wrote).
    expect(parseIsoTime('2026-01-05T09:30:00')).toBe(new Date(2026, 0, 5, 9, 30).getTime());
    for (const bad of ['Jan 5 2026', '2026-13-45', '1736069400000', 'yesterday', ''])
      expect(parseIsoTime(bad), bad).toBeUndefined();
  });
});

describe('ISO 8601 wherever a time is an input', () => {
  it('the library: appendArchive, update, searchArchive and recall take ISO strings; epoch ms still work', async () => {
    const db = await openMemory(tempFile(), { dream: { auto: false } });
    const agent = db.primary();
    await agent.search();
    await agent.appendArchive({ kind: 'event', eventType: 'tool_call', content: 'git log', createdAt: ISO });
    const { topic } = await agent.update({
      input: 'What changed in billing?',
      createdAt: '2026-01-05T09:31:00Z',
    });
    expect(topic.userTs).toBe(MS + 60_000);
    await agent.search();
    await agent.update({ input: 'Later question about billing', createdAt: MS + 86_400_000 });
    const records = await agent.searchArchive({ from: '2026-01-05T09:30:30Z', to: '2026-01-05T23:59:59Z' });
    expect(records.map((r) => r.content)).toEqual(['What changed in billing?']);
    expect((await agent.searchArchive({ from: MS, to: MS })).map((r) => r.content)).toEqual(['git log']);
    const recalled = await agent.recall('billing', { from: '2026-01-06', budgetTokens: 0 });
    expect(recalled.hits.length).toBeGreaterThan(0);
    expect(recalled.hits.some((hit) => hit.preview.includes('Later question'))).toBe(true);
    expect(recalled.hits.some((hit) => hit.preview.includes('What changed'))).toBe(false);
    await db.close();
  });

  it('a string that is not ISO 8601 is INVALID_INPUT naming the field, and nothing is written', async () => {
    const path = tempFile();
    const first = await openMemory(path, { dream: { auto: false } });
    await first.primary().search();
    await first.close();
    const before = fileDigest(path);
    const db = await openMemory(path, { dream: { auto: false } });
    const agent = db.primary();
    await agent.search();
    const append = await rejection(
      agent.appendArchive({ kind: 'event', eventType: 'x', content: 'y', createdAt: 'Jan 5 2026' }),
    );
    expect(append.code).toBe('INVALID_INPUT');
    expect(append.field).toBe('appendArchive.createdAt');
    expect(append.message).toMatch(/ISO 8601/u);
    const end = await rejection(agent.update({ input: 'hi', createdAt: 'soon' }));
    expect(end.field).toMatch(/createdAt$/u);
    expect((await rejection(agent.searchArchive({ from: 'yesterday' }))).field).toBe('searchArchive.from');
    expect((await rejection(agent.recall('x', { to: '5/1/2026' }))).field).toMatch(/to$/u);
    // Seconds are still refused as a unit mistake, whatever form the rest takes.
    expect((await rejection(agent.update({ input: 'hi', createdAt: 1_736_069_400 }))).message).toMatch(
      /seconds/u,
    );
    await db.close();
    expect(fileDigest(path)).toBe(before);
  });

  it('HTTP: archive search takes ISO from/to in the query, a turn end takes an ISO createdAt', async () => {
    const db = await openMemory(tempFile(), { dream: { auto: false } });
    const app = createHttpApp(db, { webRoot: false });
    const post = (body: unknown): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect((await app.request('/api/agents/primary/turn', post({}))).status).toBe(200);
    const end = await app.request(
      '/api/agents/primary/turn/end',
      post({ input: 'Deploy it', createdAt: ISO }),
    );
    expect(end.status, await end.clone().text()).toBe(200);
    const found = await app.request(
      `/api/agents/primary/archive?from=${encodeURIComponent('2026-01-05T09:00:00Z')}&to=${MS}`,
    );
    expect(found.status).toBe(200);
    expect(((await found.json()) as { content: string }[]).map((r) => r.content)).toEqual(['Deploy it']);
    const bad = await app.request('/api/agents/primary/archive?from=tomorrow');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/ISO 8601/u);
    await db.close();
  });

  it('MCP: the turn tools take an ISO createdAt, recall takes ISO from/to', async () => {
    const c = await connect();
    await c.call('memory_turn_begin', {});
    const end = await c.call('memory_turn_end', { input: 'Rotate the keys', createdAt: ISO });
    expect(end.isError ?? false).toBe(false);
    const records = await c.db.primary().searchArchive();
    expect(records.map((r) => r.createdAt)).toEqual([MS]);
    const before = await c.call('memory_recall', { query: 'rotate keys', to: '2026-01-05T09:00:00Z' });
    expect((before.structuredContent as { hits: unknown[] }).hits).toEqual([]);
    const around = await c.call('memory_recall', { query: 'rotate keys', from: '2026-01-05T09:00:00Z' });
    expect((around.structuredContent as { hits: unknown[] }).hits.length).toBeGreaterThan(0);
    const bad = await c.call('memory_turn_end', { input: 'x', createdAt: 'noon' });
    expect(bad.isError).toBe(true);
    await c.close();
  });
});
