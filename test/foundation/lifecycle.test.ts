import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { HedgehopError, openMemory } from '../../src/index.js';
import { fileDigest, tempDir, tempFile } from '../helpers/temp.js';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (HedgehopError.isInstance(error)) return error.code;
    throw error;
  }
  return 'resolved';
}

describe('openMemory options', () => {
  it.each([
    [{ durability: 'fast' }, 'options.durability'],
    [{ mode: 'multi' }, 'options.mode'],
    [{ busyTimeoutMs: -1 }, 'options.busyTimeoutMs'],
    [{ originTokenBudget: 'big' }, 'options.originTokenBudget'],
    [{ llm: { generateText: 1 } }, 'options.llm'],
    [{ unknownOption: true }, 'options'],
  ])('rejects %j naming %s, before touching the path', async (options, field) => {
    const path = tempFile();
    const error = await openMemory(path, options as never).catch((e: unknown) => e);
    expect(HedgehopError.isInstance(error)).toBe(true);
    expect((error as HedgehopError).code).toBe('INVALID_INPUT');
    expect((error as HedgehopError).message).toContain(field);
    expect(existsSync(path)).toBe(false);
  });

  it('rejects an empty path, a folder and a missing parent folder', async () => {
    expect(await codeOf(openMemory(''))).toBe('INVALID_INPUT');
    expect(await codeOf(openMemory(tempDir()))).toBe('INVALID_INPUT');
    expect(await codeOf(openMemory(join(tempDir(), 'no', 'such', 'memory.db')))).toBe('INVALID_INPUT');
  });

  it('opens at both durabilities and reports stats', async () => {
    for (const durability of ['full', 'normal'] as const) {
      const db = await openMemory(tempFile(), { durability });
      const stats = await db.stats();
      expect(stats.agents).toBe(1);
      expect(stats.schemaVersion).toBeGreaterThanOrEqual(5);
      expect(stats.fileBytes).toBeGreaterThan(0);
      await db.close();
    }
  });
});

describe('agents', () => {
  it('gives the same agent for the same name, lists primary first, and survives a reopen', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    const a = await db.agent('researcher');
    const b = await db.agent('  researcher ');
    expect(a).toBe(b);
    await db.agent('writer');
    expect((await db.agents()).map((agent) => agent.name)).toEqual(['primary', 'researcher', 'writer']);
    expect(db.primary().info().primary).toBe(true);
    await db.close();
    const again = await openMemory(path);
    expect((await again.agent('researcher')).info().id).toBe(a.info().id);
    await again.close();
  });

  it('rejects bad agent names and leaves the file unchanged', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    await db.checkpoint();
    const before = fileDigest(path);
    for (const name of ['', '   ', 'x'.repeat(257), {} as unknown as string, 1.5 as unknown as string]) {
      expect(await codeOf(db.agent(name))).toBe('INVALID_INPUT');
    }
    // A number is an agent id: an unknown one is NOT_FOUND, and nothing is created.
    expect(await codeOf(db.agent(42))).toBe('NOT_FOUND');
    expect(fileDigest(path)).toBe(before);
    await db.close();
  });
});

describe('maintenance', () => {
  it('compacts into a new file that opens with the same content', async () => {
    const dir = tempDir();
    const db = await openMemory(join(dir, 'a.db'));
    for (let i = 0; i < 50; i++) await db.agent(`agent-${i}`);
    const result = await db.compactTo(join(dir, 'b.db'));
    expect(result.bytesAfter).toBeGreaterThan(0);
    await db.close();
    const copy = await openMemory(join(dir, 'b.db'));
    expect((await copy.agents()).length).toBe(51);
    await copy.check();
    await copy.close();
  });

  it('refuses to compact onto the open file, an existing file or an empty path', async () => {
    const dir = tempDir();
    const path = join(dir, 'a.db');
    const db = await openMemory(path);
    writeFileSync(join(dir, 'exists.db'), 'keep me');
    expect(await codeOf(db.compactTo(path))).toBe('INVALID_INPUT');
    expect(await codeOf(db.compactTo(join(dir, '.', 'a.db')))).toBe('INVALID_INPUT');
    expect(await codeOf(db.compactTo(join(dir, 'exists.db')))).toBe('INVALID_INPUT');
    expect(await codeOf(db.compactTo(''))).toBe('INVALID_INPUT');
    await db.close();
  });

  it('after close every call is CLOSED, and so is a second close', async () => {
    const db = await openMemory(tempFile());
    const agent = db.primary();
    await db.close();
    expect(db.closed).toBe(true);
    expect(() => db.primary()).toThrow(HedgehopError);
    for (const call of [
      () => db.agent('x'),
      () => db.agents(),
      () => db.stats(),
      () => db.check(),
      () => db.checkpoint(),
      () => db.compactTo('/tmp/never.db'),
      () => db.close(),
    ]) {
      expect(await codeOf((async () => call())())).toBe('CLOSED');
    }
    expect(() => agent.memoryContext).toThrow(/closed/);
  });
});

describe('schema versions', () => {
  it('refuses a file from a newer hedgehop and leaves it unchanged', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    await db.close();
    const raw = new Database(path);
    raw.pragma('user_version = 999');
    raw.close();
    const before = fileDigest(path);
    const error = await openMemory(path).catch((e: unknown) => e);
    expect((error as HedgehopError).code).toBe('VERSION');
    expect((error as HedgehopError).message).toMatch(/newer/);
    expect(fileDigest(path)).toBe(before);
  });

  it('refuses an SQLite file that is not a hedgehop memory', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    const path = join(dir, 'sub', 'other.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE t (x)');
    raw.close();
    expect(await codeOf(openMemory(path))).toBe('INVALID_INPUT');
  });
});

describe('read-only', () => {
  it('opens an existing file read-only, checks it, and refuses to create one', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    await db.agent('writer');
    await db.close();
    const reader = await openMemory(path, { readOnly: true });
    expect((await reader.check()).ok).toBe(true);
    expect((await reader.agents()).map((agent) => agent.name)).toEqual(['primary', 'writer']);
    await reader.close();
    expect(await codeOf(openMemory(tempFile(), { readOnly: true }))).toBe('NOT_FOUND');
  });
});
