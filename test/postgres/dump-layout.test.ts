import { describe, expect, it } from 'vitest';
import { exportDump } from '../../src/api/dump.js';
import { openMemory } from '../../src/api/memory-db.js';
import { tempFile } from '../helpers/temp.js';
import { dumpLayout } from '../../src/store/pg/dump.js';

describe('the PostgreSQL dump layout', () => {
  it('is the table and column list a SQLite memory dumps, in the same order', async () => {
    const db = await openMemory(tempFile());
    const lines: string[] = [];
    const header = await exportDump(db, (line) => lines.push(line));
    await db.close();
    expect(dumpLayout().map((t) => ({ name: t.name, columns: t.columns }))).toEqual(
      header.tables.map((t) => ({ name: t.name, columns: t.columns })),
    );
    expect(dumpLayout().every((t) => t.key.length > 0)).toBe(true);
  });
});
