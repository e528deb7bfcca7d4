/**
 * The floor's storage: texts written straight into SQLite with better-sqlite3 (no hedgehop code),
 * at a given durability, and found again with a bare FTS5 query. Kept apart from bench/floor.ts
 * so that a child process measuring the floor's memory loads nothing of hedgehop.
 */
import Database from 'better-sqlite3';

/** `full` fsyncs every commit (`synchronous = FULL`), `normal` does not (`NORMAL`); both in WAL. */
export type FloorDurability = 'full' | 'normal';

/** Quotes one word for FTS5, as hedgehop quotes user words. */
function quote(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/** The floor's FTS5 query for a text: its words, OR-ed, ranked by BM25 (what hedgehop's index also starts from). */
export function floorMatch(query: string): string | undefined {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1);
  return words.length === 0 ? undefined : [...new Set(words)].map(quote).join(' OR ');
}

/** A raw better-sqlite3 file holding texts as the floor does. */
export class RawFloor {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement;
  readonly #insertPlain: Database.Statement;
  readonly #index: Database.Statement;
  readonly #query: Database.Statement;
  readonly #many: (texts: readonly string[]) => void;
  readonly #one: (text: string) => void;
  #next = 1;

  private constructor(db: Database.Database) {
    this.#db = db;
    this.#insert = db.prepare('INSERT INTO records (id, created_at, text) VALUES (?, ?, ?)');
    this.#insertPlain = db.prepare('INSERT INTO plain (created_at, text) VALUES (?, ?)');
    this.#index = db.prepare('INSERT INTO records_fts (rowid, text) VALUES (?, ?)');
    this.#query = db.prepare(
      `SELECT r.id, r.text FROM records_fts f JOIN records r ON r.id = f.rowid
       WHERE records_fts MATCH ? ORDER BY f.rank LIMIT ?`,
    );
    this.#many = db.transaction((texts: readonly string[]) => {
      for (const text of texts) this.#write(text);
    });
    this.#one = db.transaction((text: string) => this.#write(text));
    const max = db.prepare('SELECT coalesce(max(id), 0) FROM records').pluck().get() as number;
    this.#next = max + 1;
  }

  /** Opens (creating) a floor file at `path` with the given durability. */
  static open(path: string, durability: FloorDurability): RawFloor {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    db.exec(`
      CREATE TABLE IF NOT EXISTS records (id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL, text TEXT NOT NULL) STRICT;
      CREATE VIRTUAL TABLE IF NOT EXISTS records_fts USING fts5(text, content = 'records', content_rowid = 'id',
        tokenize = 'porter unicode61 remove_diacritics 2');
      CREATE TABLE IF NOT EXISTS plain (id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL, text TEXT NOT NULL) STRICT;
    `);
    return new RawFloor(db);
  }

  #write(text: string): void {
    const id = this.#next++;
    this.#insert.run(id, Date.now(), text);
    this.#index.run(id, text);
  }

  /** One commit of one text and its index entry. */
  insert(text: string): void {
    this.#one(text);
  }

  /** One commit of many texts (each stored and indexed). */
  insertMany(texts: readonly string[]): void {
    this.#many(texts);
  }

  /** One commit of one text into a plain table: no full-text index. */
  insertPlain(text: string): void {
    this.#insertPlain.run(Date.now(), text);
  }

  /** The best `limit` texts for `query` by BM25. */
  query(query: string, limit = 10): { id: number; text: string }[] {
    const match = floorMatch(query);
    return match === undefined ? [] : (this.#query.all(match, limit) as { id: number; text: string }[]);
  }

  /** Rows held. */
  count(): number {
    return this.#db.prepare('SELECT count(*) FROM records').pluck().get() as number;
  }

  close(): void {
    this.#db.close();
  }
}
