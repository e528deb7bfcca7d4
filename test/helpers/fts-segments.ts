import Database from 'better-sqlite3';

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
 * How many segments an FTS5 index of the SQLite file at `path` holds, from its structure record
 * (rowid 10 of `<table>_data`): a 4-byte cookie, the 4-byte mark of the second format when
 * present, the number of levels, then the number of segments. Each segment is one more b-tree
 * every later query looks each term up in.
 */
export function ftsSegments(path: string, table: string): number {
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
