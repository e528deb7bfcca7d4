import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';
import type { SqlDatabase } from './sql-database.js';

/** One schema object as `sqlite_master` records it. */
interface SchemaObject {
  readonly type: string;
  readonly name: string;
  readonly sql: string | null;
}

/**
 * Objects created at run time rather than by a migration (the sqlite-vec table, made when an
 * embedder is first used) and SQLite's own (`sqlite_stat1`, auto-indexes): not compared.
 */
const RUNTIME_OBJECT = /^(search_vec|sqlite_)/;

let expected: ReadonlyMap<string, SchemaObject> | undefined;

/** `sqlite_master` of a database, keyed by `type:name`. */
export function schemaObjects(read: (sql: string) => unknown[]): Map<string, SchemaObject> {
  const rows = read('SELECT type, name, sql FROM sqlite_master') as SchemaObject[];
  return new Map(rows.map((row) => [`${row.type}:${row.name}`, row]));
}

/** The schema this build's migrations create, computed once on an in-memory database. */
function expectedSchema(): ReadonlyMap<string, SchemaObject> {
  if (expected) return expected;
  const db = new Database(':memory:') as unknown as SqlDatabase;
  try {
    for (const migration of MIGRATIONS) migration.up(db);
    expected = schemaObjects((sql) => db.prepare(sql).all());
  } finally {
    db.close();
  }
  return expected;
}

/**
 * How a file's schema differs from the one this build expects: objects missing, or whose
 * SQL text differs (a damaged `sqlite_master`, say). Empty when they match.
 */
export function schemaDifferences(actual: ReadonlyMap<string, SchemaObject>): string[] {
  const problems: string[] = [];
  for (const [key, object] of expectedSchema()) {
    if (RUNTIME_OBJECT.test(object.name)) continue;
    const found = actual.get(key);
    if (!found) problems.push(`${object.type} ${object.name} is missing`);
    else if (found.sql !== object.sql)
      problems.push(`${object.type} ${object.name} differs from the expected definition`);
  }
  return problems;
}
