import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { dumpLines, exportDump, importDump } from '../../src/api/dump.js';
import { MockEmbedder } from '../../src/llm/mock-embedder.js';
import { fileDigest, tempFile } from '../helpers/temp.js';

async function dumpOf(path: string, options: Parameters<typeof openMemory>[1] = {}): Promise<string> {
  const db = await openMemory(path, options);
  try {
    let text = '';
    await exportDump(db, (line) => {
      text += line;
    });
    return text;
  } finally {
    await db.close();
  }
}

const FULL_STATE = 'POST /login returns tokens. café — 東京 "quoted"\n\ttab';

async function richFile(path: string, options: Parameters<typeof openMemory>[1] = {}): Promise<void> {
  const db = await openMemory(path, {
    ...options,
    profile: { name: 'Ada', role: 'engineer', preferences: { editor: 'vim' } },
  });
  const agent = db.primary();
  await agent.radial.createLine('auth', 'Authentication', 'Login and tokens');
  await agent.radial.completeTask({
    lineId: 'auth',
    taskLabel: 'JWT login',
    fullContext: FULL_STATE,
    conversationSummary: 'Stateless JWT.',
    fileChanges: [{ path: 'src/auth.ts', changeType: 'created', diffSummary: 'login route' }],
    todos: ['rate limit'],
    envSnapshot: { node: 20, ratio: 0.5, nested: { ok: true } },
  });
  await agent.search({ newScene: true, sceneName: 'debugging' });
  await agent.appendArchive({
    kind: 'event',
    eventType: 'tool_call',
    content: 'grep JWT_SECRET',
    createdAt: 1000,
  });
  await agent.planNodeAdd(0, 'find the secret');
  await agent.planNodeUpdate({ seq: 1, status: 'done', summary: 'found in vault' });
  await agent.update({ input: 'Where is the JWT secret?', output: 'In vault at auth/jwt.', createdAt: 2000 });
  await db.knowledge
    .memoryServer()
    .createEntities([{ name: 'Vault', entityType: 'service', observations: ['holds secrets'] }]);
  const sub = await db.agent('helper');
  await sub.radial.createLine('infra');
  await agent.search();
  await agent.appendArchive({
    kind: 'utterance',
    role: 'user',
    content: 'a turn still open',
    createdAt: 3000,
  });
  await agent.recall('JWT');
  await db.close();
}

/** Every FTS5 term with its document and occurrence counts: equal vocabularies mean equal indexes. */
function vocabulary(path: string): unknown[] {
  const sqlite = new Database(path, { readonly: true });
  try {
    return sqlite.prepare('SELECT term, doc, cnt FROM search_vocab ORDER BY term').all();
  } finally {
    sqlite.close();
  }
}

describe('JSONL dump', () => {
  it('round-trips a whole file byte for byte, with the same recall index', async () => {
    const source = tempFile();
    await richFile(source);
    const first = await dumpOf(source);
    expect(JSON.parse(first.split('\n')[0] ?? '')).toMatchObject({ format: 'hedgehop-dump', version: 1 });
    const target = tempFile();
    const report = await importDump(target, dumpLines(first));
    expect(report.rows).toBeGreaterThan(10);
    expect(report.indexRows).toBeGreaterThan(5);
    expect(await dumpOf(target)).toBe(first);
    expect(vocabulary(target)).toEqual(vocabulary(source));

    const db = await openMemory(target);
    await db.check();
    const { hits } = await db.primary().recall('JWT secret vault');
    expect(hits.length).toBeGreaterThan(0);
    const session = await db.primary().radial.navigate('how does login work?');
    expect(await session?.loadFullState()).toBe(FULL_STATE);
    const resumed = await db.primary().search();
    expect(resumed.resumed).toBe(true);
    await db.close();
  });

  it('carries the recall vectors when an embedder was configured', async () => {
    const embedder = new MockEmbedder({ dimensions: 8 });
    const source = tempFile();
    await richFile(source, { embedder });
    const first = await dumpOf(source, { embedder });
    const header = JSON.parse(first.split('\n')[0] ?? '') as {
      tables: { name: string; rows: number; dimensions?: number }[];
    };
    const vectors = header.tables.find((t) => t.name === 'search_vec');
    expect(vectors).toMatchObject({ dimensions: 8 });
    expect(vectors?.rows).toBeGreaterThan(0);
    const target = tempFile();
    await importDump(target, dumpLines(first));
    expect(await dumpOf(target, { embedder })).toBe(first);
  });

  it('refuses a non-empty target and leaves it unchanged', async () => {
    const source = tempFile();
    await richFile(source);
    const text = await dumpOf(source);
    const before = fileDigest(source);
    await expect(importDump(source, dumpLines(text))).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(fileDigest(source)).toBe(before);
  });

  it('refuses a malformed or truncated dump, naming the line, and writes nothing', async () => {
    const source = tempFile();
    await richFile(source);
    const lines = dumpLines(await dumpOf(source));
    const target = tempFile();
    const wrongWidth = [...lines];
    wrongWidth[3] = '{"table":"agents","row":[1]}';
    await expect(importDump(target, wrongWidth)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      field: 'line 4.row',
    });
    const unknownTable = [...lines];
    unknownTable[2] = '{"table":"nope","row":[]}';
    await expect(importDump(target, unknownTable)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      field: 'line 3.table',
    });
    const badValue = [...lines];
    badValue[2] = (badValue[2] ?? '').replace(/\[(.)/, '[{"x":1},');
    await expect(importDump(target, badValue)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(importDump(target, lines.slice(0, 5))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(importDump(target, ['not json'])).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      field: 'line 1',
    });
    await expect(importDump(target, ['{"format":"hedgehop-dump","version":99}'])).rejects.toMatchObject({
      code: 'VERSION',
    });
    await expect(importDump(target, [])).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const dangling = lines.filter((line) => !line.startsWith('{"table":"lines"'));
    const header = JSON.parse(dangling[0] ?? '') as { tables: { name: string; rows: number }[] };
    for (const table of header.tables) if (table.name === 'lines') table.rows = 0;
    dangling[0] = JSON.stringify(header);
    await expect(importDump(target, dangling)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      field: 'dump',
    });
    const db = await openMemory(target);
    expect((await db.stats()).rows).toMatchObject({ nodes: 0, archive: 0, knowledgeNodes: 0 });
    await db.close();
    await importDump(target, lines);
  });
});
