import Database from 'better-sqlite3';
import { HedgehopError } from '../core/errors.js';
import { APPLICATION_ID } from './engine.js';
import type { SqlDatabase, SqlStatement } from './sql-database.js';
import { wrapSqliteError } from './sqlite-errors.js';
import type { Store } from './store.js';

/** A span of rowids that could not be read (rows may or may not have existed there). */
export interface RowidRange {
  readonly from: number;
  readonly to: number;
}

/** What salvage did with one table. */
export interface SalvagedTable {
  readonly table: string;
  /** Rows copied into the new file. */
  readonly kept: number;
  /** Rowid spans whose pages could not be read (empty when the table read whole). */
  readonly unreadable: readonly RowidRange[];
  /**
   * True when the table could not be read past some point (a table without rowids cannot be
   * resynchronised; one whose root page is damaged cannot be read at all).
   */
  readonly truncated: boolean;
  /** Rows read but refused by the current schema (a damaged value of the wrong type, …). */
  readonly rejected: number;
  /** Rows dropped afterwards because the row they belong to was lost (foreign keys). */
  readonly orphaned: number;
}

/** The result of {@link salvageInto}. */
interface SalvageReport {
  readonly tables: readonly SalvagedTable[];
  /** Tables not copied because they are rebuilt or derived (the recall index, its vectors). */
  readonly rebuilt: readonly string[];
}

/** Tables rebuilt from the verbatim tables (by reindex) or derived, never copied. */
const DERIVED_TABLES: ReadonlySet<string> = new Set(['search_docs']);
/** Tables of passing state (leases of running processes) that a new file starts without. */
const TRANSIENT_TABLES: ReadonlySet<string> = new Set(['leases']);
/** Single-row reads one table may spend narrowing damaged spans before giving a span up whole. */
const PROBE_BUDGET = 50_000;
/** Rowid bounds when the table's own first and last rowids cannot be read. */
const ROWID_FLOOR = -Number.MAX_SAFE_INTEGER;
const ROWID_CEILING = Number.MAX_SAFE_INTEGER;

interface TableListRow {
  readonly schema: string;
  readonly name: string;
  readonly type: string;
  readonly wr: number;
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    typeof code === 'string' &&
    (code.startsWith('SQLITE_CORRUPT') ||
      code.startsWith('SQLITE_NOTADB') ||
      code === 'SQLITE_IOERR_SHORT_READ' ||
      code.startsWith('SQLITE_IOERR'))
  );
}

/** Opens the damaged file read-only; refuses what is not a hedgehop memory. */
function openDamaged(path: string): SqlDatabase {
  let db: SqlDatabase | undefined;
  try {
    const raw = new Database(path, { readonly: true, fileMustExist: true });
    // A file cut short has fewer pages than its header counts, which SQLite refuses to open
    // unless the schema is writable (and defensive mode, better-sqlite3's default, is off); on a
    // read-only connection neither changes anything on disk.
    raw.unsafeMode(true);
    db = raw as unknown as SqlDatabase;
    db.pragma('writable_schema = ON');
    const appId = db.pragma('application_id', { simple: true }) as number;
    if (appId !== APPLICATION_ID) {
      throw new HedgehopError('INVALID_INPUT', `from: ${path} is not a hedgehop memory file`, {
        field: 'from',
      });
    }
    return db;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // already failing
    }
    if (error instanceof HedgehopError) throw error;
    throw wrapSqliteError(
      error,
      `recover: cannot read even the header and schema of ${path}; nothing can be recovered`,
    );
  }
}

/** The tables of the damaged file, by name; throws CORRUPT when its schema itself is unreadable. */
function damagedTables(db: SqlDatabase, path: string): Map<string, Set<string>> {
  try {
    const tables = new Map<string, Set<string>>();
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    for (const name of names) {
      const columns = db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(name) as string[];
      tables.set(name, new Set(columns));
    }
    return tables;
  } catch (error) {
    throw wrapSqliteError(error, `recover: the schema of ${path} is unreadable; nothing can be recovered`);
  }
}

/** Merges adjacent unreadable spans. */
function merge(ranges: RowidRange[]): RowidRange[] {
  const out: RowidRange[] = [];
  for (const range of ranges.sort((a, b) => a.from - b.from)) {
    const last = out[out.length - 1];
    if (last && range.from <= last.to + 1)
      out[out.length - 1] = { from: last.from, to: Math.max(last.to, range.to) };
    else out.push(range);
  }
  return out;
}

/** The first (or last) rowid of a table, or undefined when that edge of it is unreadable. */
function edgeRowid(db: SqlDatabase, table: string, fn: 'min' | 'max'): number | undefined {
  try {
    const value = db
      .prepare(`SELECT ${fn}(rowid) FROM ${quote(table)}`)
      .pluck()
      .get();
    return typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : undefined;
  } catch (error) {
    if (isCorruption(error)) return undefined;
    throw error;
  }
}

interface Copier {
  insert(row: Record<string, unknown>): void;
}

/**
 * Reads the rows of a rowid table in rowid ranges: a range that reads is copied, one that
 * throws SQLITE_CORRUPT is split in two, down to single rowids, so only the rows on damaged
 * pages are left behind.
 */
function copyRowidTable(
  db: SqlDatabase,
  table: string,
  columns: readonly string[],
  copier: Copier,
): { unreadable: RowidRange[]; truncated: boolean } {
  const list = columns.map(quote).join(', ');
  const select = db.prepare(`SELECT ${list} FROM ${quote(table)} WHERE rowid BETWEEN ? AND ? ORDER BY rowid`);
  // A range scan steps past its last row to see where it ends, which touches the next page; a
  // single row is read by a point lookup, so the row just before a damaged page is kept.
  const point = db.prepare(`SELECT ${list} FROM ${quote(table)} WHERE rowid = ?`);
  const min = edgeRowid(db, table, 'min');
  const max = edgeRowid(db, table, 'max');
  const unreadable: RowidRange[] = [];
  let probes = 0;
  let truncated = false;
  const stack: RowidRange[] = [{ from: min ?? ROWID_FLOOR, to: max ?? ROWID_CEILING }];
  if (min === undefined && max === undefined && readFails(select, ROWID_FLOOR, ROWID_CEILING)) {
    // Nothing to narrow against: try the rowids a table usually holds before giving up.
    stack.length = 0;
    stack.push({ from: 1, to: 1 << 20 });
    unreadable.push({ from: ROWID_FLOOR, to: 0 }, { from: (1 << 20) + 1, to: ROWID_CEILING });
  }
  while (stack.length > 0) {
    const range = stack.pop() as RowidRange;
    let rows: Record<string, unknown>[];
    try {
      probes++;
      rows = (range.from === range.to ? point.all(range.from) : select.all(range.from, range.to)) as Record<
        string,
        unknown
      >[];
    } catch (error) {
      if (!isCorruption(error)) throw error;
      if (range.from === range.to || probes >= PROBE_BUDGET) {
        if (range.from !== range.to) truncated = true;
        unreadable.push(range);
        continue;
      }
      const middle = range.from + Math.floor((range.to - range.from) / 2);
      // Pushed high half first, so ranges are read in rowid order.
      stack.push({ from: middle + 1, to: range.to }, { from: range.from, to: middle });
      continue;
    }
    for (const row of rows) copier.insert(row);
  }
  return { unreadable: merge(unreadable), truncated };
}

function readFails(select: SqlStatement, from: number, to: number): boolean {
  try {
    select.get(from, to);
    return false;
  } catch (error) {
    if (isCorruption(error)) return true;
    throw error;
  }
}

/** A table without rowids is read in key order as far as it goes; past a damaged page it is lost. */
function copyKeyedTable(db: SqlDatabase, table: string, columns: readonly string[], copier: Copier): boolean {
  try {
    for (const row of db.prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)}`).iterate())
      copier.insert(row as Record<string, unknown>);
    return false;
  } catch (error) {
    if (!isCorruption(error)) throw error;
    return true;
  }
}

/**
 * Copies every readable row of every table of a damaged memory file into `target` (a new,
 * empty file already at the current schema), leaving the recall index to be rebuilt. The
 * damaged file is opened read-only and never changed. Rows whose parent row was lost are
 * dropped, so the new file passes its foreign-key check.
 */
export function salvageInto(damagedPath: string, target: Store): SalvageReport {
  const db = openDamaged(damagedPath);
  try {
    const source = damagedTables(db, damagedPath);
    const engine = target.engine;
    const list = (engine.pragmaRows('recover', 'table_list') as TableListRow[]).filter(
      (row) => row.schema === 'main' && !row.name.startsWith('sqlite_'),
    );
    const virtual = list.filter((row) => row.type === 'virtual').map((row) => row.name);
    const isShadow = (name: string): boolean => virtual.some((v) => name.startsWith(`${v}_`));
    const rebuilt = [...DERIVED_TABLES, ...virtual].sort();
    const copied = list
      .filter(
        (row) => row.type === 'table' && !DERIVED_TABLES.has(row.name) && !TRANSIENT_TABLES.has(row.name),
      )
      .filter((row) => !isShadow(row.name))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const results = new Map<
      string,
      { kept: number; unreadable: RowidRange[]; truncated: boolean; rejected: number }
    >();
    engine.pragma('recover', 'foreign_keys = OFF');
    try {
      engine.write('recover', () => {
        for (const { name, wr } of copied) {
          const have = source.get(name);
          const targetColumns = engine
            .statement(`SELECT name FROM pragma_table_info('${name.replace(/'/g, "''")}')`)
            .pluck()
            .all() as string[];
          const columns = have ? targetColumns.filter((column) => have.has(column)) : [];
          const result = { kept: 0, unreadable: [] as RowidRange[], truncated: false, rejected: 0 };
          results.set(name, result);
          if (!have || columns.length === 0) continue;
          const insert = engine.statement(
            `INSERT OR REPLACE INTO ${quote(name)} (${columns.map(quote).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
          );
          const copier: Copier = {
            insert(row) {
              try {
                insert.run(...columns.map((column) => row[column]));
                result.kept++;
              } catch (error) {
                const code = (error as { code?: unknown }).code;
                if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT')) result.rejected++;
                else throw error;
              }
            },
          };
          if (wr === 1) result.truncated = copyKeyedTable(db, name, columns, copier);
          else Object.assign(result, copyRowidTable(db, name, columns, copier));
        }
      });
      const orphaned = engine.write('recover', () => dropOrphans(target));
      return {
        tables: copied.map(({ name }) => {
          const result = results.get(name) ?? { kept: 0, unreadable: [], truncated: false, rejected: 0 };
          const lost = orphaned.get(name) ?? 0;
          return { table: name, ...result, kept: result.kept - lost, orphaned: lost };
        }),
        rebuilt,
      };
    } finally {
      engine.pragma('recover', 'foreign_keys = ON');
    }
  } finally {
    db.close();
  }
}

/** Deletes rows whose parent was lost, until the foreign-key check is clean; counts per table. */
function dropOrphans(target: Store): Map<string, number> {
  const engine = target.engine;
  const dropped = new Map<string, number>();
  const tables = engine
    .statement("SELECT name FROM sqlite_master WHERE type = 'table'")
    .pluck()
    .all() as string[];
  for (let pass = 0; pass < 64; pass++) {
    if ((engine.pragmaRows('recover', 'foreign_key_check') as unknown[]).length === 0) return dropped;
    let changes = 0;
    for (const table of tables) {
      const keys = engine.pragmaRows('recover', `foreign_key_list(${quote(table)})`) as {
        id: number;
        table: string;
        from: string;
        to: string | null;
      }[];
      const byId = new Map<number, typeof keys>();
      for (const key of keys) byId.set(key.id, [...(byId.get(key.id) ?? []), key]);
      for (const parts of byId.values()) {
        const parent = quote(parts[0]!.table);
        const present = parts.map((part) => `${quote(table)}.${quote(part.from)} IS NOT NULL`).join(' AND ');
        const match = parts
          .map((part) => `${parent}.${quote(part.to ?? 'rowid')} = ${quote(table)}.${quote(part.from)}`)
          .join(' AND ');
        const result = engine
          .statement(
            `DELETE FROM ${quote(table)} WHERE ${present} AND NOT EXISTS (SELECT 1 FROM ${parent} WHERE ${match})`,
          )
          .run();
        if (result.changes > 0) dropped.set(table, (dropped.get(table) ?? 0) + result.changes);
        changes += result.changes;
      }
    }
    if (changes === 0) break;
  }
  const left = engine.pragmaRows('recover', 'foreign_key_check');
  if (left.length > 0)
    throw new HedgehopError('CORRUPT', `recover: ${left.length} rows still break foreign keys after salvage`);
  return dropped;
}
