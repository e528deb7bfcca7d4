/**
 * `recover`: salvage of a damaged memory file. Files are damaged the way the torn-file corpus
 * does it (bytes of a page overwritten, the main file cut short), at pages found with SQLite's
 * dbstat, so the rows the damage destroys are known from the intact original.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { HedgehopError, openMemory, recoverMemory, type RecoverReport } from '../../src/index.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { fileDigest, tempFile } from '../helpers/temp.js';

const RECORDS = 600;
const marker = (i: number): string => `marker${i}q`;

async function makeFile(): Promise<string> {
  const path = tempFile();
  const db = await openMemory(path);
  const agent = db.primary();
  await agent.search({ newScene: true, sceneName: 'deploys' });
  for (let i = 0; i < RECORDS; i++)
    await agent.appendArchive({
      kind: 'event',
      eventType: 'note',
      content: `record ${i} ${marker(i)} ${'the deploy pipeline note '.repeat(6)}`,
      createdAt: 1000 + i,
    });
  await db.agent('helper');
  await db.checkpoint();
  await db.close();
  return path;
}

/** Every row of every table a recover copies, by table then rowid (or key for keyed tables). */
function snapshot(path: string, tables: readonly string[]): Map<string, Map<string, string>> {
  const db = new Database(path, { readonly: true });
  try {
    const out = new Map<string, Map<string, string>>();
    for (const table of tables) {
      const keyed = (db.prepare('SELECT wr FROM pragma_table_list(?)').pluck().get(table) as number) === 1;
      const rows = db
        .prepare(keyed ? `SELECT * FROM "${table}"` : `SELECT rowid AS __rowid, * FROM "${table}"`)
        .all() as Record<string, unknown>[];
      const map = new Map<string, string>();
      for (const row of rows) {
        const { __rowid, ...rest } = row;
        const value = JSON.stringify(rest);
        map.set(keyed ? value : String(__rowid), value);
      }
      out.set(table, map);
    }
    return out;
  } finally {
    db.close();
  }
}

interface PageInfo {
  readonly name: string;
  readonly pageno: number;
  readonly pagetype: string;
  readonly ncell: number;
}

function pages(path: string): { pageSize: number; list: PageInfo[] } {
  const db = new Database(path, { readonly: true });
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const list = db
      .prepare('SELECT name, pageno, pagetype, ncell FROM dbstat ORDER BY pageno')
      .all() as PageInfo[];
    return { pageSize, list };
  } finally {
    db.close();
  }
}

const tableNames = (report: RecoverReport): string[] => report.tables.map((t) => t.table);

/** The recovered rows equal the original's, and every lost row lies in a reported unreadable span. */
function expectFaithful(
  report: RecoverReport,
  before: Map<string, Map<string, string>>,
  after: Map<string, Map<string, string>>,
): void {
  for (const t of report.tables) {
    const original = before.get(t.table) ?? new Map<string, string>();
    const recovered = after.get(t.table) ?? new Map<string, string>();
    expect(recovered.size, t.table).toBe(t.kept);
    for (const [key, value] of recovered) {
      if (t.table === 'agents' || t.table === 'meta') continue; // the new file's own rows may be refreshed
      expect(original.get(key), `${t.table} ${key}`).toBe(value);
    }
    if (t.orphaned === 0 && !t.truncated && t.rejected === 0) {
      for (const key of original.keys()) {
        if (recovered.has(key)) continue;
        const rowid = Number(key);
        expect(
          t.unreadable.some((span) => span.from <= rowid && rowid <= span.to),
          `${t.table} row ${key} lost outside the reported spans`,
        ).toBe(true);
      }
    }
  }
}

async function expectHealthyWithRecall(path: string, present: number): Promise<void> {
  const db = await openMemory(path);
  try {
    await expect(db.check()).resolves.toMatchObject({ ok: true });
    const result = await db.primary().recall(marker(present), { budgetTokens: 0 });
    expect(JSON.stringify(result.hits)).toContain(marker(present));
  } finally {
    await db.close();
  }
}

function archiveMarkers(path: string): Set<number> {
  const db = new Database(path, { readonly: true });
  try {
    const contents = db.prepare('SELECT content FROM archive').pluck().all() as string[];
    return new Set(contents.map((c) => Number(/marker(\d+)q/.exec(c)?.[1] ?? -1)));
  } finally {
    db.close();
  }
}

describe('recover', () => {
  it('copies an undamaged file whole, rebuilds recall and leaves the input unchanged', async () => {
    const path = await makeFile();
    const digest = fileDigest(path);
    const out = tempFile('recovered.db');
    const report = await recoverMemory(path, out);
    expect(fileDigest(path)).toBe(digest);
    expect(report.check.ok).toBe(true);
    expect(report.rebuilt).toContain('search_docs');
    expect(report.reindex.rows.archive).toBe(RECORDS);
    const tables = tableNames(report);
    expect(tables).toContain('archive');
    for (const t of report.tables) {
      expect(t.unreadable, t.table).toEqual([]);
      expect(t.truncated || t.rejected > 0 || t.orphaned > 0, t.table).toBe(false);
    }
    const before = snapshot(path, tables);
    const after = snapshot(out, tables);
    for (const table of tables) expect(after.get(table)?.size, table).toBe(before.get(table)?.size);
    expectFaithful(report, before, after);
    await expectHealthyWithRecall(out, 123);
  });

  it('keeps every row outside a page whose bytes were overwritten', async () => {
    const path = await makeFile();
    const { pageSize, list } = pages(path);
    const leaves = list.filter((p) => p.name === 'archive' && p.pagetype === 'leaf');
    expect(leaves.length).toBeGreaterThan(5);
    const victim = leaves[Math.floor(leaves.length / 2)]!;
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (victim.pageno - 1) * pageSize);
    closeSync(fd);
    const digest = fileDigest(path);
    const out = tempFile('recovered.db');
    const report = await recoverMemory(path, out);
    expect(fileDigest(path)).toBe(digest);
    const archive = report.tables.find((t) => t.table === 'archive')!;
    expect(archive.kept).toBe(RECORDS - victim.ncell);
    expect(archive.unreadable.length).toBeGreaterThan(0);
    for (const t of report.tables) if (t.table !== 'archive') expect(t.unreadable, t.table).toEqual([]);
    const kept = archiveMarkers(out);
    expect(kept.size).toBe(RECORDS - victim.ncell);
    const present = [...kept][Math.floor(kept.size / 2)]!;
    await expectHealthyWithRecall(out, present);
  });

  it('matches the intact original row for row after a page is overwritten', async () => {
    const path = await makeFile();
    const intact = tempFile('intact.db');
    copyFileSync(path, intact);
    const { pageSize, list } = pages(path);
    const leaves = list.filter((p) => p.name === 'archive' && p.pagetype === 'leaf');
    const victim = leaves[1]!;
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, (victim.pageno - 1) * pageSize);
    closeSync(fd);
    const out = tempFile('recovered.db');
    const report = await recoverMemory(path, out);
    const tables = tableNames(report);
    const before = snapshot(intact, tables);
    const after = snapshot(out, tables);
    expectFaithful(report, before, after);
    expect(before.get('archive')!.size - after.get('archive')!.size).toBe(victim.ncell);
    for (const table of tables)
      if (table !== 'archive')
        expect(after.get(table)!.size + report.tables.find((t) => t.table === table)!.orphaned, table).toBe(
          before.get(table)!.size,
        );
  });

  it('keeps every row on the pages a truncation left', async () => {
    const path = await makeFile();
    const intact = tempFile('intact.db');
    copyFileSync(path, intact);
    const { pageSize, list } = pages(path);
    const lastArchiveLeaf = list.filter((p) => p.name === 'archive' && p.pagetype === 'leaf').at(-1)!;
    const cut = lastArchiveLeaf.pageno - 1; // pages kept: 1..cut
    truncateSync(path, cut * pageSize);
    const digest = fileDigest(path);
    const out = tempFile('recovered.db');
    const report = await recoverMemory(path, out);
    expect(fileDigest(path)).toBe(digest);
    const tables = tableNames(report);
    const before = snapshot(intact, tables);
    const after = snapshot(out, tables);
    expectFaithful(report, before, after);
    let lostSomewhere = 0;
    for (const t of report.tables) {
      const gone = list.filter((p) => p.name === t.table && p.pageno > cut);
      const original = before.get(t.table)!.size;
      if (gone.some((p) => p.pagetype !== 'leaf')) {
        expect(t.kept, t.table).toBeLessThanOrEqual(original);
        continue;
      }
      const lost = gone.reduce((sum, p) => sum + p.ncell, 0);
      expect(t.kept + t.orphaned, t.table).toBe(original - lost);
      lostSomewhere += lost;
    }
    expect(lostSomewhere).toBeGreaterThan(0);
    await expectHealthyWithRecall(out, [...archiveMarkers(out)][0]!);
  });

  it('refuses an --out that exists or is the input, and a missing input, leaving files untouched', async () => {
    const path = await makeFile();
    const digest = fileDigest(path);
    const existing = tempFile('existing.db');
    writeFileSync(existing, 'keep me');
    const existingDigest = fileDigest(existing);
    const refused = async (from: string, to: string, code: string, field?: string): Promise<void> => {
      const error = await recoverMemory(from, to).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(HedgehopError.isInstance(error), String(error)).toBe(true);
      expect((error as HedgehopError).code).toBe(code);
      if (field) expect((error as HedgehopError).message).toContain(`${field}:`);
    };
    await refused(path, existing, 'INVALID_INPUT', 'to');
    await refused(path, path, 'INVALID_INPUT', 'to');
    await refused(tempFile('absent.db'), tempFile('new.db'), 'NOT_FOUND', 'from');
    await refused('', tempFile('new.db'), 'INVALID_INPUT', 'from');
    const notMemory = tempFile('plain.txt');
    writeFileSync(notMemory, 'x'.repeat(8192));
    const target = tempFile('never.db');
    await refused(notMemory, target, 'CORRUPT');
    const otherSqlite = tempFile('other.sqlite');
    const other = new Database(otherSqlite);
    other.exec('CREATE TABLE t (x)');
    other.close();
    await refused(otherSqlite, target, 'INVALID_INPUT', 'from');
    expect(existsSync(target)).toBe(false);
    expect(fileDigest(path)).toBe(digest);
    expect(fileDigest(existing)).toBe(existingDigest);

    const cli = await runCliInProcess(['recover', path, '--out', existing, '--json']);
    expect(cli.status).toBe(1);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toContain('--out');
    expect(cli.stderr).toContain('INVALID_INPUT');
    const same = await runCliInProcess(['recover', path, '--out', path]);
    expect(same.status).toBe(1);
    expect(same.stderr).toContain('--out');
    expect(fileDigest(path)).toBe(digest);
    expect(fileDigest(existing)).toBe(existingDigest);
    expect(statSync(existing).size).toBe(7);
  });

  it('the CLI prints the report as JSON and as a table per table', async () => {
    const path = await makeFile();
    const { pageSize, list } = pages(path);
    const victim = list.filter((p) => p.name === 'archive' && p.pagetype === 'leaf')[2]!;
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (victim.pageno - 1) * pageSize);
    closeSync(fd);
    const out = tempFile('recovered.db');
    const json = await runCliInProcess(['recover', path, '--out', out, '--json']);
    expect(json.status, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as RecoverReport;
    expect(report.tables.find((t) => t.table === 'archive')!.kept).toBe(RECORDS - victim.ncell);
    const out2 = tempFile('recovered2.db');
    const text = await runCliInProcess(['recover', path, '--out', out2]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/archive\s+\d+\s+rowids \d+/);
    expect(text.stdout).toMatch(/agents\s+2\s+-/);
  });
});
