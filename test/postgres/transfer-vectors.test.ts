import { join } from 'node:path';
import { expect, it } from 'vitest';
import { exportDump, importDump, openMemory } from '../../src/index.js';
import { MockEmbedder } from '../../src/llm/mock-embedder.js';
import { describeEngines } from '../helpers/engines.js';
import { tempDir } from '../helpers/temp.js';

const embedder = new MockEmbedder({ dimensions: 8 });

async function dumpOf(path: string): Promise<string> {
  const db = await openMemory(path, { embedder });
  const lines: string[] = [];
  await exportDump(db, (line) => lines.push(line));
  await db.close();
  return lines.join('');
}

/** A memory with turns, a radial task and a knowledge node, its index rows embedded. */
async function fill(path: string): Promise<void> {
  const db = await openMemory(path, { embedder });
  const agent = db.primary();
  await agent.radial.createLine('auth', 'Authentication', 'Login and tokens');
  await agent.radial.completeTask({
    lineId: 'auth',
    taskLabel: 'JWT login',
    fullContext: 'POST /login returns tokens. café — 東京',
    conversationSummary: 'Stateless JWT with a refresh token.',
  });
  for (const [input, output] of [
    ['Where is the JWT secret?', 'In the vault at auth/jwt.'],
    ['How long do refresh tokens live?', 'Thirty days, rotated on use.'],
  ]) {
    await agent.search({});
    await agent.update({ input, output, createdAt: 2_000 });
  }
  await db.knowledge
    .memoryServer()
    .createEntities([{ name: 'Vault', entityType: 'service', observations: ['holds secrets'] }]);
  // Recall embeds the rows still pending (configuring the embedder on first use).
  await agent.recall('tokens');
  await db.close();
}

function vectorTable(dump: string): { rows: number; dimensions?: number } | undefined {
  const header = JSON.parse(dump.split('\n')[0] ?? '') as {
    tables: { name: string; rows: number; dimensions?: number }[];
  };
  return header.tables.find((table) => table.name === 'search_vec');
}

describeEngines('moving a memory holding recall vectors between engines', (engine) => {
  it('SQLite → this engine → SQLite keeps every vector: byte-identical dumps, same vector hits', async () => {
    const dir = tempDir();
    const source = join(dir, 'source.db');
    await fill(source);
    const first = await dumpOf(source);
    expect(vectorTable(first)).toMatchObject({ dimensions: 8 });
    expect(vectorTable(first)?.rows).toBeGreaterThan(3);
    const middle = engine.memoryPath();
    await importDump(middle, first.split('\n'));
    expect(await dumpOf(middle)).toBe(first);
    const moved = await openMemory(middle, { embedder });
    const original = await openMemory(source, { embedder });
    const query = 'where do we keep the secret for tokens';
    const hits = (await moved.primary().recall(query)).hits.map((hit) => [hit.layer, hit.ref]);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits).toEqual((await original.primary().recall(query)).hits.map((hit) => [hit.layer, hit.ref]));
    await original.close();
    const back = join(dir, 'back.db');
    await moved.compactTo(back);
    await moved.close();
    expect(await dumpOf(back)).toBe(first);
  });

  it('vectors embedded on this engine export and move into SQLite unchanged', async () => {
    const dir = tempDir();
    const path = engine.memoryPath();
    await fill(path);
    const first = await dumpOf(path);
    expect(vectorTable(first)?.rows).toBeGreaterThan(3);
    const copy = join(dir, 'copy.db');
    await importDump(copy, first.split('\n'));
    expect(await dumpOf(copy)).toBe(first);
  });

  it('refuses a vector row of the wrong size, naming the line, and writes nothing', async () => {
    const dir = tempDir();
    const source = join(dir, 'source.db');
    await fill(source);
    const lines = (await dumpOf(source)).split('\n');
    const at = lines.findIndex((line) => line.startsWith('{"table":"search_vec"'));
    expect(at).toBeGreaterThan(0);
    const row = JSON.parse(lines[at] as string) as { table: string; row: unknown[] };
    row.row[2] = { $blob: Buffer.alloc(12).toString('base64') };
    lines[at] = JSON.stringify(row);
    const target = engine.memoryPath();
    const empty = await openMemory(target);
    await empty.close();
    const before = await engine.digest(target);
    await expect(importDump(target, lines)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining(`line ${at + 1}`),
    });
    expect(await engine.digest(target)).toBe(before);
  });
});
