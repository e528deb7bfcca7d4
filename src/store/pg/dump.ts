/**
 * hedgehop's JSONL dump (src/store/dump-repo.ts) on PostgreSQL, byte for byte the same as the
 * SQLite engine writes for the same memory, so a dump moves SQLite → PostgreSQL → SQLite
 * unchanged. The dump's tables and columns are the SQLite schema's (read once from an
 * in-memory SQLite database the migrations build): PostgreSQL-only tables (the version table,
 * the index totals) and derived columns (the index's `tsvector`) are not part of it, and the
 * index is rebuilt on import from the imported records, as on SQLite.
 */
import Database from 'better-sqlite3';
import { HedgehopError, invalidInput } from '../../core/errors.js';
import { DUMP_FORMAT } from '../../core/model/dump.js';
import {
  assertCounts,
  composeIndexText,
  decodeValue,
  DUMP_VERSION,
  encodeValue,
  INDEX_SOURCES,
  parseHeader,
  dumpedColumns,
  parseJsonLine,
  TRANSIENT_TABLES,
  VECTOR_TABLE,
  type DumpHeader,
  type DumpImportReport,
  type DumpProgress,
  type DumpTable,
  type IndexDocRow,
} from '../dump-repo.js';
import { MIGRATIONS } from '../migrations/index.js';
import type { SqlDatabase } from '../sql-database.js';
import { indexText } from './fts.js';
import { topicUtterances } from './topic-utterances.js';
import { addTotals } from './index-repo.js';
import { VERSION_TABLE } from './migrations.js';
import type { PgQuery } from './pg-query.js';
import {
  createVectorTable,
  insertVector,
  parseEmbedding,
  vectorColumnsSql,
  vectorStorage,
  type VectorStorage,
} from './vector-repo.js';

/** One table of the dump, as the SQLite schema defines it. */
export interface DumpLayoutTable {
  readonly name: string;
  readonly columns: readonly string[];
  /** Primary-key columns, in key order (rows are dumped in that order). */
  readonly key: readonly string[];
  /** The columns holding text (ordered byte-wise, as SQLite compares them). */
  readonly text: ReadonlySet<string>;
}

let layout: readonly DumpLayoutTable[] | undefined;

/** The dump's tables, in name order, from the schema SQLite's migrations create. */
export function dumpLayout(): readonly DumpLayoutTable[] {
  if (layout) return layout;
  const db = new Database(':memory:');
  try {
    for (const migration of MIGRATIONS) migration.up(db as unknown as SqlDatabase);
    const list = (db.pragma('table_list') as { name: string; type: string; schema: string }[]).filter(
      (row) => row.schema === 'main' && !row.name.startsWith('sqlite_'),
    );
    const virtual = list.filter((row) => row.type === 'virtual').map((row) => row.name);
    const tables = list
      .filter((row) => row.type === 'table' && !TRANSIENT_TABLES.has(row.name))
      .filter((row) => !virtual.some((v) => row.name.startsWith(`${v}_`)))
      .map((row): DumpLayoutTable => {
        const columns = db.pragma(`table_info("${row.name}")`) as {
          name: string;
          type: string;
          pk: number;
        }[];
        return {
          name: row.name,
          columns: dumpedColumns(
            row.name,
            columns.map((c) => c.name),
          ),
          key: columns
            .filter((c) => c.pk > 0)
            .sort((a, b) => a.pk - b.pk)
            .map((c) => c.name),
          text: new Set(columns.filter((c) => c.type.toUpperCase() === 'TEXT').map((c) => c.name)),
        };
      });
    layout = tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return layout;
  } finally {
    db.close();
  }
}

/**
 * A text column PostgreSQL keeps as `bytea` (the radial layer stores a task's full context
 * that way, as UTF-8 bytes) reads back as a Buffer: the dump holds it as the text it is.
 */
const asText = (value: unknown): unknown => (Buffer.isBuffer(value) ? value.toString('utf8') : value);

function textRow(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, asText(value)]));
}

/** The columns of the memory's tables PostgreSQL keeps as `bytea`, as `table.column`. */
async function byteaColumns(db: PgQuery): Promise<Set<string>> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
     WHERE table_schema = current_schema() AND data_type = 'bytea'`,
  );
  return new Set(rows.map((row) => row.name));
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

async function schemaVersion(db: PgQuery): Promise<number> {
  const { rows } = await db.query<{ version: number }>(`SELECT version FROM ${VERSION_TABLE}`);
  return rows[0]?.version ?? 0;
}

/** The columns of the vector table in a dump, as the SQLite engine dumps its sqlite-vec table. */
const VECTOR_COLUMNS: readonly string[] = ['rowid', 'agent_id', 'embedding'];

/** The dimension of the memory's vectors (meta), as the dump's header states it. */
async function vectorDimensions(db: PgQuery): Promise<number> {
  const { rows } = await db.query<{ value: string }>(
    "SELECT value FROM meta WHERE key = 'embedder.dimensions'",
  );
  const dimensions = Number(rows[0]?.value);
  if (!Number.isInteger(dimensions) || dimensions <= 0)
    throw new HedgehopError('CORRUPT', `dump: ${VECTOR_TABLE} exists but meta holds no embedder.dimensions`);
  return dimensions;
}

/** A float32 vector as the dump holds it: its raw little-endian bytes, as sqlite-vec stores them. */
function vectorBlob(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes;
}

/** The dump's bytes of a vector back as float32 values; anything but whole float32s is refused. */
function blobVector(value: unknown, dimensions: number, where: string): Float32Array {
  if (!Buffer.isBuffer(value) || value.length !== dimensions * 4)
    throw invalidInput(where, `must be the ${dimensions * 4} bytes of ${dimensions} float32 values`);
  return Float32Array.from({ length: dimensions }, (_, i) => value.readFloatLE(i * 4));
}

/** Writes the vector table's rows (rowid order) through `write`, as the SQLite engine dumps them. */
async function exportVectors(
  db: PgQuery,
  storage: VectorStorage,
  write: (line: string) => void,
  progress: () => void,
): Promise<void> {
  await db.query(
    `DECLARE hedgehop_dump NO SCROLL CURSOR FOR SELECT ${vectorColumnsSql(storage)} FROM ${VECTOR_TABLE} ORDER BY rowid`,
  );
  for (;;) {
    const { rows } = await db.query<{ rowid: unknown; agent_id: unknown; embedding: unknown }>(
      'FETCH 500 FROM hedgehop_dump',
    );
    for (const raw of rows) {
      const row = [
        encodeValue(raw.rowid, undefined),
        encodeValue(raw.agent_id, undefined),
        encodeValue(vectorBlob(parseEmbedding(raw.embedding)), undefined),
      ];
      write(`${JSON.stringify({ table: VECTOR_TABLE, row })}\n`);
      progress();
    }
    if (rows.length < 500) break;
  }
  await db.query('CLOSE hedgehop_dump');
}

/** `ORDER BY` of a table's key: text compared byte-wise (`COLLATE "C"`), as SQLite does. */
function keyOrder(table: DumpLayoutTable): string {
  if (table.key.length === 0) throw new HedgehopError('IO', `dump: table ${table.name} has no primary key`);
  return table.key.map((c) => (table.text.has(c) ? `${quote(c)} COLLATE "C"` : quote(c))).join(', ');
}

/** Writes one table's rows (key order) through `write`. */
async function exportTable(
  db: PgQuery,
  shape: DumpLayoutTable,
  write: (line: string) => void,
  progress: () => void,
): Promise<void> {
  const columns = shape.columns.map(quote).join(', ');
  await db.query(
    `DECLARE hedgehop_dump NO SCROLL CURSOR FOR SELECT ${columns} FROM ${quote(shape.name)} ORDER BY ${keyOrder(shape)}`,
  );
  for (;;) {
    const { rows } = await db.query<Record<string, unknown>>('FETCH 500 FROM hedgehop_dump');
    for (const raw of rows) {
      const row = shape.columns.map((column) =>
        encodeValue(shape.text.has(column) ? asText(raw[column]) : raw[column], undefined),
      );
      write(`${JSON.stringify({ table: shape.name, row })}\n`);
      progress();
    }
    if (rows.length < 500) break;
  }
  await db.query('CLOSE hedgehop_dump');
}

/**
 * Writes the memory as a dump through `write`, one line per call. Must run inside one
 * `REPEATABLE READ` transaction (one snapshot) with the memory's schema on the search path.
 */
export async function exportPgDump(
  db: PgQuery,
  write: (line: string) => void,
  onProgress?: DumpProgress,
): Promise<DumpHeader> {
  const shapes = dumpLayout();
  const storage = await vectorStorage(db);
  const tables: DumpTable[] = [];
  for (const shape of shapes) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*) AS n FROM ${quote(shape.name)}`);
    tables.push({ name: shape.name, columns: shape.columns, rows: rows[0]?.n ?? 0 });
  }
  if (storage) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*) AS n FROM ${VECTOR_TABLE}`);
    tables.push({
      name: VECTOR_TABLE,
      columns: VECTOR_COLUMNS,
      rows: rows[0]?.n ?? 0,
      dimensions: await vectorDimensions(db),
    });
    tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const header: DumpHeader = {
    format: DUMP_FORMAT,
    version: DUMP_VERSION,
    schemaVersion: await schemaVersion(db),
    tables,
  };
  write(`${JSON.stringify(header)}\n`);
  const total = tables.reduce((sum, table) => sum + table.rows, 0);
  let done = 0;
  const progress = (): void => {
    if (++done % 500 === 0) onProgress?.(done, total);
  };
  const byName = new Map(shapes.map((shape) => [shape.name, shape]));
  for (const table of tables) {
    const shape = byName.get(table.name);
    if (shape) await exportTable(db, shape, write, progress);
    else if (storage) await exportVectors(db, storage, write, progress);
  }
  onProgress?.(done, total);
  return header;
}

// ---- import --------------------------------------------------------------------------------

/**
 * Columns PostgreSQL tables have beyond the dump's, filled on insert and rebuilt after the
 * import: the recall index's lexemes (see schema/index.ts), computed from the imported records.
 */
const DERIVED_COLUMNS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  search_docs: { body: "''::tsvector", body_len: '0' },
};

interface Target {
  readonly table: DumpTable;
  readonly insert: string;
  /** Positions of the values stored as `bytea` (text in the dump, UTF-8 bytes here). */
  readonly bytes: ReadonlySet<number>;
}

function matchTables(header: DumpHeader, bytea: ReadonlySet<string>): Map<string, Target> {
  const ours = new Map(dumpLayout().map((shape) => [shape.name, shape]));
  const out = new Map<string, Target>();
  for (const table of header.tables) {
    if (table.name === VECTOR_TABLE) {
      if (table.columns.join('\u0000') !== VECTOR_COLUMNS.join('\u0000'))
        throw invalidInput(
          'line 1.tables',
          `table ${VECTOR_TABLE} has columns [${table.columns.join(', ')}], expected [${VECTOR_COLUMNS.join(', ')}]`,
        );
      continue;
    }
    const shape = ours.get(table.name);
    if (!shape) throw invalidInput('line 1.tables', `names a table this memory does not have: ${table.name}`);
    if (table.columns.join('\u0000') !== shape.columns.join('\u0000')) {
      throw invalidInput(
        'line 1.tables',
        `table ${table.name} has columns [${table.columns.join(', ')}], expected [${shape.columns.join(', ')}]`,
      );
    }
    const derived = Object.entries(DERIVED_COLUMNS[table.name] ?? {});
    const columns = [...table.columns.map(quote), ...derived.map(([column]) => quote(column))];
    const params = [...table.columns.map((_, i) => `$${i + 1}`), ...derived.map(([, value]) => value)];
    out.set(table.name, {
      table,
      bytes: new Set(table.columns.flatMap((column, i) => (bytea.has(`${table.name}.${column}`) ? [i] : []))),
      insert: `INSERT INTO ${quote(table.name)} (${columns.join(', ')}) VALUES (${params.join(', ')})`,
    });
  }
  for (const name of ours.keys()) {
    if (!out.has(name)) throw invalidInput('line 1.tables', `does not list the table ${name}`);
  }
  return out;
}

/** Refuses a memory holding anything but the primary agent a first open created (removed here). */
async function assertEmpty(db: PgQuery, where: string): Promise<void> {
  for (const shape of dumpLayout()) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*) AS n FROM ${quote(shape.name)}`);
    const n = rows[0]?.n ?? 0;
    if (n === 0 || (shape.name === 'agents' && n === 1)) continue;
    throw new HedgehopError(
      'CONFLICT',
      `importDump: ${where} is not empty (table ${shape.name} has ${n} rows); import a dump into a new memory`,
    );
  }
  await db.query('DELETE FROM agents WHERE is_primary = 1');
  const { rows } = await db.query<{ n: number }>('SELECT count(*) AS n FROM agents');
  if ((rows[0]?.n ?? 0) > 0)
    throw new HedgehopError(
      'CONFLICT',
      `importDump: ${where} already has agents; import a dump into a new memory`,
    );
}

/** The memory's foreign keys that are checked at once, made deferrable for the import (undone after). */
async function deferForeignKeys(db: PgQuery): Promise<{ table: string; name: string }[]> {
  const { rows } = await db.query<{ table: string; name: string }>(
    `SELECT c.conrelid::regclass::text AS table, c.conname AS name
     FROM pg_constraint c WHERE c.contype = 'f' AND NOT c.condeferrable
       AND c.connamespace = current_schema()::regnamespace`,
  );
  for (const fk of rows)
    await db.query(
      `ALTER TABLE ${fk.table} ALTER CONSTRAINT ${quote(fk.name)} DEFERRABLE INITIALLY DEFERRED`,
    );
  return rows;
}

/** Checks every deferred reference now, naming the first that fails, and makes the keys immediate again. */
async function checkForeignKeys(
  db: PgQuery,
  deferred: readonly { table: string; name: string }[],
): Promise<void> {
  try {
    await db.query('SAVEPOINT hedgehop_fk');
    await db.query('SET CONSTRAINTS ALL IMMEDIATE');
    await db.query('RELEASE SAVEPOINT hedgehop_fk');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT hedgehop_fk');
    const detail = (error as { detail?: string }).detail ?? (error as Error).message;
    throw invalidInput('dump', `rows refer to rows the dump does not hold (${detail})`);
  }
  for (const fk of deferred)
    await db.query(`ALTER TABLE ${fk.table} ALTER CONSTRAINT ${quote(fk.name)} NOT DEFERRABLE`);
}

/** The vector table a dump declares, created in the memory before its rows come. */
interface DumpVectors {
  readonly storage: VectorStorage;
  readonly dimensions: number;
}

/** Creates the vector table the header declares (as the memory's own embedder would have). */
async function createDumpVectors(db: PgQuery, header: DumpHeader): Promise<DumpVectors | undefined> {
  const table = header.tables.find((t) => t.name === VECTOR_TABLE);
  if (!table) return undefined;
  const dimensions = table.dimensions;
  if (dimensions === undefined || !Number.isInteger(dimensions) || dimensions <= 0 || dimensions > 65_536)
    throw invalidInput('line 1.tables', `${VECTOR_TABLE} needs a whole "dimensions"`);
  await createVectorTable(db, dimensions);
  const storage = await vectorStorage(db);
  if (!storage) throw new HedgehopError('IO', `importDump: ${VECTOR_TABLE} could not be created`);
  return { storage, dimensions };
}

/** One row of the vector table: whole rowid and agent id, and the bytes of `dimensions` float32s. */
async function insertVectorRow(db: PgQuery, vectors: DumpVectors, row: unknown, line: number): Promise<void> {
  if (!Array.isArray(row) || row.length !== VECTOR_COLUMNS.length)
    throw invalidInput(`line ${line}.row`, `must be a list of ${VECTOR_COLUMNS.length} values`);
  const [rowid, agentId, embedding] = row.map((cell, i) => decodeValue(cell, `line ${line}.row.${i}`));
  for (const [i, id] of [rowid, agentId].entries())
    if (typeof id !== 'number' || !Number.isSafeInteger(id))
      throw invalidInput(`line ${line}.row.${i}`, 'must be a whole number');
  const vector = blobVector(embedding, vectors.dimensions, `line ${line}.row.2`);
  try {
    await db.query('SAVEPOINT hedgehop_row');
    await insertVector(db, vectors.storage, { rowid: rowid as number, agentId: agentId as number, vector });
    await db.query('RELEASE SAVEPOINT hedgehop_row');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT hedgehop_row');
    const message = error instanceof Error ? error.message : String(error);
    throw new HedgehopError('INVALID_INPUT', `line ${line}: row refused by ${VECTOR_TABLE}: ${message}`, {
      field: `line ${line}`,
      cause: error,
    });
  }
}

async function insertRow(
  db: PgQuery,
  tables: Map<string, Target>,
  vectors: DumpVectors | undefined,
  value: unknown,
  line: number,
): Promise<string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidInput(`line ${line}`, 'must be a JSON object { "table", "row" }');
  const { table: name, row } = value as { table?: unknown; row?: unknown };
  if (name === VECTOR_TABLE && vectors) {
    await insertVectorRow(db, vectors, row, line);
    return VECTOR_TABLE;
  }
  const target = typeof name === 'string' ? tables.get(name) : undefined;
  if (!target) throw invalidInput(`line ${line}.table`, `names no table of the header: ${String(name)}`);
  if (!Array.isArray(row) || row.length !== target.table.columns.length)
    throw invalidInput(`line ${line}.row`, `must be a list of ${target.table.columns.length} values`);
  const values = row.map((cell, i) => {
    const value = decodeValue(cell, `line ${line}.row.${i}`);
    return target.bytes.has(i) && typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  });
  try {
    await db.query('SAVEPOINT hedgehop_row');
    await db.query(target.insert, values);
    await db.query('RELEASE SAVEPOINT hedgehop_row');
  } catch (error) {
    await db.query('ROLLBACK TO SAVEPOINT hedgehop_row');
    const message = error instanceof Error ? error.message : String(error);
    throw new HedgehopError(
      'INVALID_INPUT',
      `line ${line}: row refused by ${target.table.name}: ${message}`,
      {
        field: `line ${line}`,
        cause: error,
      },
    );
  }
  return target.table.name;
}

/** Moves every identity column's sequence past the largest imported value. */
async function advanceSequences(db: PgQuery): Promise<void> {
  const { rows } = await db.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND is_identity = 'YES'`,
  );
  for (const { table_name: table, column_name: column } of rows) {
    await db.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(${quote(column)}) FROM ${quote(table)}), 0) + 1, false)`,
      [quote(table), column],
    );
  }
}

/**
 * Rebuilds the index text of every `search_docs` row from the imported records, and the
 * index's totals as a fresh FTS5 index counts them (every row once).
 */
async function rebuildIndexText(db: PgQuery): Promise<number> {
  const { rows: docs } = await db.query<IndexDocRow>(
    'SELECT rowid, agent_id, layer, ref, part FROM search_docs ORDER BY rowid',
  );
  let tokens = 0;
  for (const doc of docs) {
    const source = INDEX_SOURCES[doc.layer];
    const found = source
      ? (await db.query<Record<string, unknown>>(source.sql.replace('?', '$1'), [source.key(doc)])).rows[0]
      : undefined;
    const utterances = doc.layer === 'topic' ? await topicUtterances(db, doc.ref) : [];
    const text = indexText(composeIndexText(doc, found && textRow(found), utterances) ?? '');
    await db.query(
      'UPDATE search_docs SET body = $2::tsvector, body_len = $3, heavy = $4::jsonb WHERE rowid = $1',
      [doc.rowid, text.vector, text.length, text.heavy],
    );
    tokens += text.length;
  }
  await db.query('DELETE FROM search_totals');
  await addTotals(db, docs.length, tokens);
  return docs.length;
}

/**
 * Imports a dump into an empty memory. Must run inside one write transaction with the
 * memory's schema on the search path: every line is validated (a bad line refuses the whole
 * dump, naming the line, and the transaction rolls back), row counts must match the header,
 * and the recall index's text is rebuilt from the imported records.
 */
export async function importPgDump(
  db: PgQuery,
  lines: Iterable<string> | AsyncIterable<string>,
  options: {
    readonly where: string;
    readonly onProgress?: DumpProgress | undefined;
  },
): Promise<DumpImportReport> {
  const version = await schemaVersion(db);
  let header: DumpHeader | undefined;
  let tables: Map<string, Target> | undefined;
  let vectors: DumpVectors | undefined;
  let deferred: { table: string; name: string }[] = [];
  const counts = new Map<string, number>();
  let total = 0;
  let done = 0;
  let lineNumber = 0;
  for await (const text of lines) {
    lineNumber++;
    if (text.trim().length === 0) continue;
    const value = parseJsonLine(text, lineNumber);
    if (!header || !tables) {
      header = parseHeader(value, version);
      tables = matchTables(header, await byteaColumns(db));
      await assertEmpty(db, options.where);
      vectors = await createDumpVectors(db, header);
      deferred = await deferForeignKeys(db);
      total = header.tables.reduce((sum, t) => sum + t.rows, 0);
      continue;
    }
    const name = await insertRow(db, tables, vectors, value, lineNumber);
    counts.set(name, (counts.get(name) ?? 0) + 1);
    if (++done % 500 === 0) options.onProgress?.(done, total);
  }
  if (!header) throw invalidInput('dump', 'is empty (no header line)');
  assertCounts(header, counts);
  await checkForeignKeys(db, deferred);
  await advanceSequences(db);
  const indexRows = await rebuildIndexText(db);
  options.onProgress?.(done, total);
  return { schemaVersion: header.schemaVersion, tables: header.tables.length, rows: done, indexRows };
}
