import Database from 'better-sqlite3';
import { HedgehopError } from '../core/errors.js';
import type { SqlDatabase } from './sql-database.js';

/** How a file is held: many processes at once, or one owner. */
export type OpenMode = 'shared' | 'exclusive';

/**
 * Coordinates the processes that open one memory file, through a small SQLite file beside it
 * (`<file>-lock`, holding no data). Every opener keeps a connection to it in SQLite's
 * EXCLUSIVE locking mode, where file locks, once taken, are held until the connection closes:
 * a shared opener reads it (a SHARED lock, which any number can hold), an exclusive opener
 * writes it (an EXCLUSIVE lock, which needs every other lock gone). The locks are the
 * operating system's byte-range locks, so a process that dies, even by SIGKILL, releases them
 * at once: there is never a stale lock to clean up.
 */
export class FileLock {
  readonly #db: SqlDatabase;

  private constructor(db: SqlDatabase) {
    this.#db = db;
  }

  static acquire(dbPath: string, mode: OpenMode): FileLock {
    const lockPath = `${dbPath}-lock`;
    let db: SqlDatabase | undefined;
    try {
      db = new Database(lockPath, { timeout: 0 }) as unknown as SqlDatabase;
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = DELETE');
      if (mode === 'exclusive') {
        db.exec('BEGIN EXCLUSIVE');
        db.exec('CREATE TABLE IF NOT EXISTS owner (pid INTEGER)');
        db.exec('COMMIT');
      } else {
        db.prepare('SELECT count(*) FROM sqlite_master').get();
      }
      return new FileLock(db);
    } catch (error) {
      try {
        db?.close();
      } catch {
        // the lock connection is being discarded anyway
      }
      const code = (error as { code?: string }).code ?? '';
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
        const held = mode === 'exclusive' ? 'is open elsewhere' : 'is open exclusively elsewhere';
        throw new HedgehopError('LOCKED', `${dbPath} ${held} (mode '${mode}' cannot be granted)`, {
          cause: error,
        });
      }
      throw new HedgehopError('IO', `cannot lock ${dbPath}: ${(error as Error).message}`, { cause: error });
    }
  }

  release(): void {
    if (this.#db.open) this.#db.close();
  }
}
