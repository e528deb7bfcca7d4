import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/api/memory-db.js';
import { tempFile } from '../helpers/temp.js';

/** A SQLite varint (big-endian groups of 7 bits) at `offset`: its value and its length. */
function varint(bytes: Uint8Array, offset: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[offset + i] ?? 0;
    if (i === 8) return [value * 256 + byte, 9];
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, i + 1];
  }
  return [value, 9];
}

/**
 * How many segments an FTS5 index holds, from its structure record (rowid 10 of `<table>_data`):
 * a 4-byte cookie, the 4-byte mark of the second format when present, the number of levels,
 * then the number of segments.
 */
function segments(path: string, table: string): number {
  const raw = new Database(path, { readonly: true });
  try {
    const record = raw.prepare(`SELECT block FROM ${table}_data WHERE id = 10`).pluck().get() as Uint8Array;
    const v2 = record[4] === 0xff && record[5] === 0 && record[6] === 0 && record[7] === 1;
    const [, levelBytes] = varint(record, v2 ? 8 : 4);
    return varint(record, (v2 ? 8 : 4) + levelBytes)[0];
  } finally {
    raw.close();
  }
}

const entities = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    name: `service ${from + i}`,
    entityType: 'service',
    observations: [`deploys to cluster ${from + i}`, 'owned by the platform team'],
  }));

describe('knowledge writes and the FTS5 indexes', () => {
  // Each segment is one more b-tree every later query looks each term up in: a write of ten
  // nodes must add one segment to each index, not one per node.
  it('writes the rows of one call to each index as one segment', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    const memory = db.knowledge.memoryServer();
    await memory.createEntities(entities(0, 10));
    await db.close();
    expect(segments(path, 'kg_node_text')).toBe(1);
    expect(segments(path, 'search_fts')).toBe(1);
  });

  it('rewrites the rows of updated nodes in one more segment', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    const memory = db.knowledge.memoryServer();
    await memory.createEntities(entities(0, 10));
    await memory.addObservations(
      entities(0, 5).map((entity) => ({ entityName: entity.name, contents: ['moved to the new region'] })),
    );
    const found = await memory.searchNodes('new region');
    await db.close();
    expect(found.entities.map((entity) => entity.name)).toEqual(entities(0, 5).map((entity) => entity.name));
    expect(segments(path, 'kg_node_text')).toBeLessThanOrEqual(2);
    expect(segments(path, 'search_fts')).toBeLessThanOrEqual(2);
  });
});
