/**
 * hedgehop's own JSONL dump of a whole file: a header line naming the format, the schema
 * version and every dumped table (its columns and row count), then one line per row, table by
 * table in name order, rows in primary-key order. Nothing in it depends on when or where it was
 * written, so export → import into a new file → export gives the same bytes.
 *
 * What is not dumped, and why:
 * - `leases`: coordination of background work between live processes, meaningless elsewhere;
 * - the FTS5 index (`search_fts`, contentless, so its text cannot be read back) and its
 *   vocabulary view: rebuilt on import from `search_docs` and the verbatim tables, with the
 *   same text each layer indexes;
 * - the substring index of knowledge nodes (`kg_node_text`, contentless too): rebuilt on
 *   import from `kg_nodes`.
 *
 * The recall vectors (`search_vec`, an sqlite-vec table that exists once an embedder was
 * configured) are dumped as rows of `rowid`, `agent_id` and the raw float32 `embedding`, with
 * the table's dimension in the header, so a restored file does not have to embed again.
 */

import * as sqliteVec from 'sqlite-vec';
import { HedgehopError, invalidInput } from '../core/errors.js';
import { echo } from '../core/echo.js';
import { segmentCjk } from '../core/text.js';
import { type ArchiveKind, type UtteranceRole } from '../core/model/conversation.js';
import type { Engine } from './engine.js';
import type { IndexLayer } from '../core/model/recall.js';
import { DUMP_FORMAT } from '../core/model/dump.js';
import {
  archiveIndexSpeaker,
  archiveIndexText,
  knowledgeIndexText,
  nodeIndexTexts,
  profileIndexText,
  topicIndexText,
} from '../core/index-text.js';
import { parseJsonOr } from '../core/json.js';
import type { FileChange } from '../core/model/radial.js';
import { TOPIC_UTTERANCES_SQL } from './conversation-rows.js';
import { fillKnowledgeText, KNOWLEDGE_TEXT_TABLE } from './knowledge-search-text.js';
import { indexChanges } from './index-changes.js';
import { vectorTableSql } from './vector-repo.js';

/** Version of the dump format itself (not of the schema). */
export const DUMP_VERSION = 1;

/** Tables left out of a dump (see the module comment). */
export const TRANSIENT_TABLES: ReadonlySet<string> = new Set(['leases']);
/**
 * Columns left out of a dump: derived from the verbatim tables and rebuilt on import, as the
 * FTS5 text is (`search_docs.speaker`, which the SQLite engine alone keeps: a dump is the same
 * on both engines).
 */
export const DERIVED_COLUMNS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['search_docs', new Set(['speaker'])],
]);

/** The columns of `table` a dump holds. */
export function dumpedColumns(table: string, columns: readonly string[]): string[] {
  const derived = DERIVED_COLUMNS.get(table);
  return derived === undefined ? [...columns] : columns.filter((c) => !derived.has(c));
}
/** Virtual tables a dump knows how to do without: rebuilt (FTS) or derived (vocabulary). */
const DERIVED_VIRTUAL_TABLES: ReadonlySet<string> = new Set([
  'search_fts',
  'search_vocab',
  KNOWLEDGE_TEXT_TABLE,
]);
/** The sqlite-vec table of recall vectors, dumped through its own columns. */
export const VECTOR_TABLE = 'search_vec';
const VECTOR_COLUMNS = ['rowid', 'agent_id', 'embedding'] as const;

/** One dumped table as the header describes it. */
export interface DumpTable {
  readonly name: string;
  readonly columns: readonly string[];
  readonly rows: number;
  /** For the vector table: the dimension of its embeddings. */
  readonly dimensions?: number;
}

/** The header line. */
export interface DumpHeader {
  readonly format: typeof DUMP_FORMAT;
  readonly version: number;
  readonly schemaVersion: number;
  readonly tables: readonly DumpTable[];
}

/** Progress of an export or import, in rows. */
export type DumpProgress = (done: number, total: number) => void;

/** What an import wrote. */
export interface DumpImportReport {
  readonly schemaVersion: number;
  readonly tables: number;
  readonly rows: number;
  /** Recall-index rows whose text was rebuilt. */
  readonly indexRows: number;
}

interface TableShape {
  readonly name: string;
  readonly columns: readonly string[];
  readonly orderBy: readonly string[];
  readonly strict: boolean;
  readonly dimensions?: number;
}

interface TableListRow {
  name: string;
  type: string;
  strict: number;
}

interface ColumnInfo {
  name: string;
  pk: number;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** Loads sqlite-vec into the connection (needed to read or write the vector table). */
function loadVectors(engine: Engine): void {
  engine.loadExtension(sqliteVec.getLoadablePath());
}

function vectorDimensions(engine: Engine): number {
  const value = engine.statement("SELECT value FROM meta WHERE key = 'embedder.dimensions'").pluck().get();
  const dimensions = Number(value);
  if (!Number.isInteger(dimensions) || dimensions <= 0) {
    throw new HedgehopError('CORRUPT', `dump: ${VECTOR_TABLE} exists but meta holds no embedder.dimensions`);
  }
  return dimensions;
}

function tableShape(engine: Engine, name: string, strict: boolean): TableShape {
  const columns = engine.pragmaRows('dump', `table_info(${quote(name)})`) as ColumnInfo[];
  const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  return {
    name,
    columns: dumpedColumns(
      name,
      columns.map((c) => c.name),
    ),
    orderBy: pk.length > 0 ? pk.map((c) => quote(c.name)) : ['rowid'],
    strict,
  };
}

/** The tables a dump holds, in name order; refuses a schema it cannot dump whole. */
function dumpedTables(
  engine: Engine,
  options: { readonly dimensions: boolean } = { dimensions: true },
): TableShape[] {
  const list = (engine.pragmaRows('dump', 'table_list') as (TableListRow & { schema: string })[]).filter(
    (row) => row.schema === 'main' && !row.name.startsWith('sqlite_'),
  );
  const virtual = list.filter((row) => row.type === 'virtual').map((row) => row.name);
  // A virtual table's storage (FTS5's `_data`, vec0's `_chunks`, …) belongs to it, not to the dump.
  const isShadow = (name: string): boolean => virtual.some((v) => name.startsWith(`${v}_`));
  const unknown = virtual.filter((name) => !DERIVED_VIRTUAL_TABLES.has(name) && name !== VECTOR_TABLE);
  if (unknown.length > 0) {
    throw new HedgehopError(
      'IO',
      `dump: the file holds virtual tables a dump cannot rebuild (${unknown.join(', ')}); nothing was written`,
    );
  }
  const shapes = list
    .filter((row) => row.type === 'table' && !TRANSIENT_TABLES.has(row.name) && !isShadow(row.name))
    .map((row) => tableShape(engine, row.name, row.strict === 1));
  if (virtual.includes(VECTOR_TABLE)) {
    loadVectors(engine);
    shapes.push({
      name: VECTOR_TABLE,
      columns: VECTOR_COLUMNS,
      orderBy: ['rowid'],
      strict: true,
      ...(options.dimensions ? { dimensions: vectorDimensions(engine) } : {}),
    });
  }
  return shapes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Creates the vector table a dump declares, in a file that has none yet. */
function createVectorTable(engine: Engine, table: DumpTable): void {
  const dimensions = table.dimensions;
  if (!Number.isInteger(dimensions) || (dimensions as number) <= 0 || (dimensions as number) > 65_536) {
    throw invalidInput('line 1.tables', `${VECTOR_TABLE} needs a whole "dimensions"`);
  }
  loadVectors(engine);
  engine.exec('importDump', `DROP TABLE IF EXISTS ${VECTOR_TABLE}`);
  engine.exec('importDump', vectorTableSql(VECTOR_TABLE, dimensions as number));
}

// ---- values --------------------------------------------------------------------------------

type DumpValue = string | number | null | { readonly $blob: string } | { readonly $real: string | number };

export function encodeValue(value: unknown, type: string | undefined): DumpValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { $real: String(value) };
    // Only a non-STRICT table can hold a whole-number REAL where an INTEGER could be: keep its type.
    if (type === 'real' && Number.isInteger(value)) return { $real: value };
    return value;
  }
  if (Buffer.isBuffer(value)) return { $blob: value.toString('base64') };
  throw new HedgehopError('IO', `dump: cannot encode a ${typeof value} value`);
}

export function decodeValue(value: unknown, where: string): unknown {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && typeof record.$blob === 'string') return Buffer.from(record.$blob, 'base64');
    if (keys.length === 1 && record.$real !== undefined) {
      const real = record.$real;
      if (typeof real === 'number') return real;
      if (real === 'Infinity') return Number.POSITIVE_INFINITY;
      if (real === '-Infinity') return Number.NEGATIVE_INFINITY;
    }
  }
  throw invalidInput(where, 'is not a dump value (string, number, null, {"$blob"} or {"$real"})');
}

// ---- export --------------------------------------------------------------------------------

/**
 * Writes the whole file as a dump through `write` (called once per line, each ending in `\n`),
 * from one consistent snapshot. Returns the header.
 */
export function exportDump(
  engine: Engine,
  write: (line: string) => void,
  onProgress?: DumpProgress,
): DumpHeader {
  return engine.read('exportDump', () => {
    const shapes = dumpedTables(engine);
    const tables: DumpTable[] = shapes.map((shape) => ({
      name: shape.name,
      columns: shape.columns,
      rows: engine
        .statement(`SELECT count(*) FROM ${quote(shape.name)}`)
        .pluck()
        .get() as number,
      ...(shape.dimensions === undefined ? {} : { dimensions: shape.dimensions }),
    }));
    const header: DumpHeader = {
      format: DUMP_FORMAT,
      version: DUMP_VERSION,
      schemaVersion: engine.pragma('exportDump', 'user_version') as number,
      tables,
    };
    write(`${JSON.stringify(header)}\n`);
    const total = tables.reduce((sum, table) => sum + table.rows, 0);
    let done = 0;
    for (const shape of shapes) {
      for (const row of readRows(engine, shape)) {
        write(`${JSON.stringify({ table: shape.name, row })}\n`);
        if (++done % 500 === 0) onProgress?.(done, total);
      }
    }
    onProgress?.(done, total);
    return header;
  });
}

function* readRows(engine: Engine, shape: TableShape): Generator<DumpValue[]> {
  const columns = shape.columns.map(quote);
  const types = shape.strict ? [] : shape.columns.map((c) => `typeof(${quote(c)})`);
  const sql = `SELECT ${[...columns, ...types].join(', ')} FROM ${quote(shape.name)} ORDER BY ${shape.orderBy.join(', ')}`;
  const statement = engine.statement(sql);
  for (const raw of statement.iterate() as Iterable<Record<string, unknown>>) {
    const values = Object.values(raw);
    const n = shape.columns.length;
    yield values
      .slice(0, n)
      .map((value, i) => encodeValue(value, shape.strict ? undefined : (values[n + i] as string)));
  }
}

// ---- import --------------------------------------------------------------------------------

const MAX_REPORTED_LINE = 120;

export function parseJsonLine(text: string, line: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidInput(`line ${line}`, `is not valid JSON: ${echo(text, MAX_REPORTED_LINE)}`);
  }
}

/** Validates a dump's header line against the schema version of the memory it goes into. */
export function parseHeader(value: unknown, schemaVersion: number): DumpHeader {
  if (typeof value !== 'object' || value === null || (value as { format?: unknown }).format !== DUMP_FORMAT) {
    throw invalidInput('line 1', `is not a hedgehop dump header (expected "format": "${DUMP_FORMAT}")`);
  }
  const header = value as Partial<DumpHeader>;
  if (header.version !== DUMP_VERSION) {
    throw new HedgehopError(
      'VERSION',
      `line 1: dump format version ${String(header.version)} is not supported (this build reads version ${DUMP_VERSION})`,
    );
  }
  if (header.schemaVersion !== schemaVersion) {
    throw new HedgehopError(
      'VERSION',
      `line 1: the dump holds schema version ${String(header.schemaVersion)}, this build writes ${schemaVersion}; import it with the hedgehop that wrote it`,
    );
  }
  if (!Array.isArray(header.tables)) throw invalidInput('line 1.tables', 'must be a list of tables');
  for (const [i, table] of header.tables.entries()) {
    const ok =
      typeof table === 'object' &&
      table !== null &&
      typeof table.name === 'string' &&
      Array.isArray(table.columns) &&
      table.columns.every((c: unknown) => typeof c === 'string') &&
      Number.isInteger(table.rows) &&
      table.rows >= 0;
    if (!ok) throw invalidInput(`line 1.tables.${i}`, 'must be { name, columns, rows }');
  }
  return header as DumpHeader;
}

/** Checks the dump's tables against this build's; returns the insert statement of each. */
function matchTables(engine: Engine, header: DumpHeader): Map<string, { table: DumpTable; insert: string }> {
  // The target's meta is not imported yet, so the vector table's dimension is not read here.
  const ours = new Map(dumpedTables(engine, { dimensions: false }).map((shape) => [shape.name, shape]));
  const out = new Map<string, { table: DumpTable; insert: string }>();
  for (const table of header.tables) {
    const shape = ours.get(table.name);
    if (!shape) throw invalidInput('line 1.tables', `names a table this file does not have: ${table.name}`);
    const missing = shape.columns.filter((c) => !table.columns.includes(c));
    const extra = table.columns.filter((c) => !shape.columns.includes(c));
    if (missing.length > 0 || extra.length > 0 || table.columns.length !== shape.columns.length) {
      throw invalidInput(
        'line 1.tables',
        `table ${table.name} has columns [${table.columns.join(', ')}], expected [${shape.columns.join(', ')}]`,
      );
    }
    const insert = `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`;
    out.set(table.name, { table, insert });
  }
  for (const name of ours.keys()) {
    if (!out.has(name)) throw invalidInput('line 1.tables', `does not list the table ${name}`);
  }
  return out;
}

/**
 * Makes sure the file holds nothing yet. A file just created by `openMemory` holds its primary
 * agent and nothing else: that row is removed so the dump's own agents take its place.
 */
function assertEmpty(engine: Engine, names: Iterable<string>): void {
  for (const name of names) {
    const rows = engine
      .statement(`SELECT count(*) FROM ${quote(name)}`)
      .pluck()
      .get() as number;
    if (rows === 0) continue;
    if (name === 'agents' && rows === 1) continue;
    throw new HedgehopError(
      'CONFLICT',
      `importDump: ${engine.path} is not empty (table ${name} has ${rows} rows); import a dump into a new file`,
    );
  }
  engine.statement('DELETE FROM agents WHERE is_primary = 1').run();
  const left = engine.statement('SELECT count(*) FROM agents').pluck().get() as number;
  if (left > 0) {
    throw new HedgehopError(
      'CONFLICT',
      `importDump: ${engine.path} already has agents; import a dump into a new file`,
    );
  }
}

function insertRow(
  engine: Engine,
  tables: Map<string, { table: DumpTable; insert: string }>,
  value: unknown,
  line: number,
): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput(`line ${line}`, 'must be a JSON object { "table", "row" }');
  }
  const { table: name, row } = value as { table?: unknown; row?: unknown };
  const target = typeof name === 'string' ? tables.get(name) : undefined;
  if (!target) throw invalidInput(`line ${line}.table`, `names no table of the header: ${String(name)}`);
  if (!Array.isArray(row) || row.length !== target.table.columns.length) {
    throw invalidInput(`line ${line}.row`, `must be a list of ${target.table.columns.length} values`);
  }
  const values = row.map((cell, i) => decodeValue(cell, `line ${line}.row.${i}`));
  // vec0 takes only integer-typed keys, and a JS number would be bound as a REAL.
  if (target.table.name === VECTOR_TABLE) {
    values[0] = typeof values[0] === 'number' ? BigInt(values[0]) : values[0];
    values[1] = typeof values[1] === 'number' ? BigInt(values[1]) : values[1];
  }
  try {
    engine.statement(target.insert).run(...values);
  } catch (error) {
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

/** Refuses a dump whose tables do not hold as many rows as its header says. */
export function assertCounts(header: DumpHeader, counts: ReadonlyMap<string, number>): void {
  for (const table of header.tables) {
    const got = counts.get(table.name) ?? 0;
    if (got !== table.rows) {
      throw invalidInput(
        'dump',
        `table ${table.name} has ${got} rows, the header says ${table.rows} (truncated dump?)`,
      );
    }
  }
}

/** A recall-index row, as far as rebuilding its text needs. */
export interface IndexDocRow {
  rowid: number;
  agent_id: number | null;
  layer: IndexLayer;
  ref: string;
  part: string;
}

/**
 * Where each layer's index text is read from: one statement with one `?` parameter (the key
 * of `doc`), whose row {@link composeIndexText} turns into the text. Shared by both engines'
 * dump imports (PostgreSQL writes the parameter as `$1`).
 */
export const INDEX_SOURCES: Readonly<
  Record<string, { readonly sql: string; key(doc: IndexDocRow): unknown }>
> = {
  archive: {
    sql: 'SELECT kind, role, speaker, event_type, content FROM archive WHERE id = ?',
    key: (doc) => Number(doc.ref),
  },
  topic: {
    sql: 'SELECT name, keywords, keywords_state, outcome FROM topics WHERE id = ?',
    key: (doc) => doc.ref,
  },
  knowledge: {
    sql: 'SELECT title, type, content, keywords, observations FROM kg_nodes WHERE id = ?',
    key: (doc) => doc.ref,
  },
  profile: {
    sql: 'SELECT name, role, personality, preferences FROM profiles WHERE agent_id = ?',
    key: (doc) => doc.agent_id ?? Number(doc.ref),
  },
  radial: {
    sql: `SELECT task_label, conversation_summary, file_changes, todos, full_context, s_origin, s_brief, s_summary, s_detailed
           FROM nodes WHERE id = ?`,
    key: (doc) => doc.ref,
  },
};

/** The text of a recall-index row from its source row (see {@link INDEX_SOURCES}; undefined: record gone). */
export function composeIndexText(
  doc: IndexDocRow,
  found: Record<string, unknown> | undefined,
  /** For a topic: its {@link TOPIC_UTTERANCES_SQL} texts. */
  utterances: readonly string[] = [],
): string | undefined {
  if (!found) return undefined;
  switch (doc.layer) {
    case 'archive': {
      const row = found as {
        kind: ArchiveKind;
        role: UtteranceRole | null;
        speaker: string | null;
        event_type: string | null;
        content: string;
      };
      return archiveIndexText({
        kind: row.kind,
        role: row.role ?? undefined,
        speaker: row.speaker ?? undefined,
        eventType: row.event_type ?? undefined,
        content: row.content,
      });
    }
    case 'topic': {
      const row = found as {
        name: string | null;
        keywords: string;
        keywords_state: string;
        outcome: string | null;
      };
      const keywords = row.keywords_state === 'pending' ? [] : (JSON.parse(row.keywords) as string[]);
      return topicIndexText({
        name: row.name ?? undefined,
        keywords,
        outcome: row.outcome ?? undefined,
        utterances,
      });
    }
    case 'knowledge': {
      const row = found as {
        title: string;
        type: string;
        content: string;
        keywords: string;
        observations: string;
      };
      return knowledgeIndexText(row.title, {
        type: row.type,
        content: row.content,
        keywords: JSON.parse(row.keywords) as string[],
        observations: JSON.parse(row.observations) as string[],
      });
    }
    case 'profile': {
      const row = found as { name: string; role: string; personality: string; preferences: string };
      return profileIndexText({
        name: row.name,
        role: row.role,
        personality: row.personality,
        preferences: Object.fromEntries(
          Object.entries(JSON.parse(row.preferences) as Record<string, unknown>).filter(
            (entry): entry is [string, string] => typeof entry[1] === 'string',
          ),
        ),
      } as Parameters<typeof profileIndexText>[0]);
    }
    case 'radial': {
      const row = found as Record<string, string | null>;
      const summaries: { [level: string]: string } = {};
      for (const level of ['origin', 'brief', 'summary', 'detailed'] as const) {
        const text = row[`s_${level}`];
        if (typeof text === 'string') summaries[level] = text;
      }
      const texts = nodeIndexTexts(
        {
          taskLabel: row.task_label as string,
          conversationSummary: row.conversation_summary as string,
          fileChanges: parseJsonOr<FileChange[]>(row.file_changes as string, []),
          todos: parseJsonOr<string[]>(row.todos as string, []),
          fullContext: row.full_context as string,
        },
        summaries,
      );
      return texts.find((text) => text.part === doc.part)?.text ?? '';
    }
    default:
      return undefined;
  }
}

/**
 * The text a recall-index row holds and, for an archive row, the speaker it keeps (see
 * {@link DERIVED_COLUMNS}), read from the verbatim tables in one read (undefined: record gone).
 */
function indexSource(engine: Engine, doc: IndexDocRow): { text?: string; speaker?: string } {
  const source = INDEX_SOURCES[doc.layer];
  if (!source) return {};
  const row = engine.statement(source.sql).get(source.key(doc)) as Record<string, unknown> | undefined;
  const utterances =
    doc.layer === 'topic'
      ? (engine.statement(TOPIC_UTTERANCES_SQL).pluck(true).all(doc.ref) as string[])
      : [];
  const text = composeIndexText(doc, row, utterances);
  if (doc.layer !== 'archive' || row === undefined) return text === undefined ? {} : { text };
  const record = row as { speaker: string | null; content: string };
  return {
    ...(text === undefined ? {} : { text }),
    speaker: archiveIndexSpeaker({ speaker: record.speaker ?? undefined, content: record.content }),
  };
}

/** Deferred foreign keys would only fail at COMMIT; check first, to name what is wrong. */
function assertReferencesHold(engine: Engine): void {
  const rows = engine.pragmaRows('importDump', 'foreign_key_check') as {
    table: string;
    rowid: number;
    parent: string;
  }[];
  if (rows.length === 0) return;
  const first = rows
    .slice(0, 5)
    .map((r) => `${r.table} row ${r.rowid} → ${r.parent}`)
    .join('; ');
  throw invalidInput('dump', `${rows.length} rows refer to rows the dump does not hold (${first})`);
}

/**
 * Rebuilds the FTS5 text of every `search_docs` row, and the speaker of each archive row (see
 * {@link DERIVED_COLUMNS}). Must run inside a write.
 */
function rebuildIndexText(engine: Engine): number {
  engine.statement("INSERT INTO search_fts(search_fts) VALUES ('delete-all')").run();
  indexChanges(engine).changed();
  const docs = engine
    .statement('SELECT rowid, agent_id, layer, ref, part FROM search_docs ORDER BY rowid')
    .all() as IndexDocRow[];
  const insert = engine.statement('INSERT INTO search_fts (rowid, body) VALUES (?, ?)');
  const setSpeaker = engine.statement('UPDATE search_docs SET speaker = ? WHERE rowid = ?');
  for (const doc of docs) {
    const { text, speaker } = indexSource(engine, doc);
    insert.run(doc.rowid, segmentCjk(text ?? ''));
    if (speaker !== undefined) setSpeaker.run(speaker, doc.rowid);
  }
  return docs.length;
}

/**
 * Imports a dump into an empty file in ONE transaction: every line is validated (a bad line
 * refuses the whole dump, naming the line, and leaves the file unchanged), row counts must match
 * the header, and the recall index's text is rebuilt from the imported records.
 */
export function importDump(
  engine: Engine,
  lines: Iterable<string>,
  options: { readonly onProgress?: DumpProgress | undefined },
): DumpImportReport {
  return engine.write('importDump', () => {
    engine.exec('importDump', 'PRAGMA defer_foreign_keys = ON');
    let header: DumpHeader | undefined;
    let tables: Map<string, { table: DumpTable; insert: string }> | undefined;
    const counts = new Map<string, number>();
    let total = 0;
    let done = 0;
    let lineNumber = 0;
    for (const text of lines) {
      lineNumber++;
      if (text.trim().length === 0) continue;
      const value = parseJsonLine(text, lineNumber);
      if (!header || !tables) {
        header = parseHeader(value, engine.pragma('importDump', 'user_version') as number);
        const vectors = header.tables.find((t) => t.name === VECTOR_TABLE);
        if (vectors) {
          assertEmpty(
            engine,
            dumpedTables(engine, { dimensions: false }).map((t) => t.name),
          );
          createVectorTable(engine, vectors);
        }
        tables = matchTables(engine, header);
        assertEmpty(engine, tables.keys());
        total = header.tables.reduce((sum, t) => sum + t.rows, 0);
        continue;
      }
      const name = insertRow(engine, tables, value, lineNumber);
      counts.set(name, (counts.get(name) ?? 0) + 1);
      if (++done % 500 === 0) options.onProgress?.(done, total);
    }
    if (!header) throw invalidInput('dump', 'is empty (no header line)');
    assertCounts(header, counts);
    assertReferencesHold(engine);
    const indexRows = rebuildIndexText(engine);
    fillKnowledgeText((sql) => engine.statement(sql));
    options.onProgress?.(done, total);
    return { schemaVersion: header.schemaVersion, tables: header.tables.length, rows: done, indexRows };
  });
}
