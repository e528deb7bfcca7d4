import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { HedgehopError } from '../core/errors.js';
import { gateOf, releaseGate, type AsyncGate } from './async-gate.js';
import { FileLock, type OpenMode } from './file-lock.js';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations/index.js';
import type { SqlDatabase, SqlStatement } from './sql-database.js';
import { guard, wrapSqliteError } from './sqlite-errors.js';

/** What `durability` promises; see docs/file-format.md. */
export type Durability = 'full' | 'normal';

/** What a transaction may do: `read` sees one snapshot, `write` holds SQLite's write lock. */
type TransactionMode = 'read' | 'write';

export interface EngineOptions {
  readonly durability: Durability;
  readonly mode: OpenMode;
  readonly busyTimeoutMs: number;
  readonly readOnly?: boolean;
}

/** A word to `Atomics.wait` on: a synchronous sleep while polling for the write lock. */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** `PRAGMA application_id` of every hedgehop file ("HHOP"). */
export const APPLICATION_ID = 0x48484f50;

/**
 * How much of the file SQLite reads through a memory map (see `#configure`). The mapped pages
 * a read touches count in the process's resident memory: with 256 MiB mapped, a process
 * recalling over a 1,000,000-record file peaked at 326 MB resident (106 MB of it its own), with
 * 32 MiB at 175 MB. 32 MiB still maps the whole of a 10,000-memory file with vectors (19 MB)
 * and of a 20,000-record one (17 MB); a larger file maps its first 32 MiB.
 */
const MMAP_BYTES = 32 * 1024 * 1024;

/**
 * One open SQLite connection to a memory file, with its lock, migrations and a statement
 * cache. Writes go through {@link Engine.write}, a `BEGIN IMMEDIATE` transaction, so writers
 * in different processes queue on SQLite's lock instead of failing midway.
 */
export class Engine {
  readonly path: string;
  readonly options: EngineOptions;
  readonly #db: SqlDatabase;
  readonly #lock: FileLock;
  readonly #statements = new Map<string, SqlStatement>();
  readonly #gateKey: string;
  readonly #gate: AsyncGate;
  /** The mode of the transaction {@link Engine.transaction} has open, if any. */
  #mode: TransactionMode | 'none' | undefined;
  /** A synchronous {@link Engine.write} of its own is open. */
  #syncWrite = false;
  #closed = false;
  #migratedFrom = 0;

  private constructor(path: string, db: SqlDatabase, lock: FileLock, options: EngineOptions) {
    this.path = path;
    this.#db = db;
    this.#lock = lock;
    this.options = options;
    this.#gateKey = canonicalPath(path);
    this.#gate = gateOf(this.#gateKey);
  }

  /** Opens (creating if needed) the file at `path`, locks it and brings its schema up to date. */
  static open(rawPath: string, options: EngineOptions): Engine {
    const path = resolve(rawPath);
    if (existsSync(path) && statSync(path).isDirectory()) {
      throw new HedgehopError('INVALID_INPUT', `path: ${path} is a directory, not a memory file`, {
        field: 'path',
      });
    }
    if (!existsSync(dirname(path))) {
      throw new HedgehopError('INVALID_INPUT', `path: the folder ${dirname(path)} does not exist`, {
        field: 'path',
      });
    }
    if (options.readOnly && !existsSync(path)) {
      throw new HedgehopError('NOT_FOUND', `${path} does not exist (cannot open read-only)`);
    }
    const lock = FileLock.acquire(path, options.mode);
    let db: SqlDatabase | undefined;
    try {
      db = new Database(path, {
        timeout: options.busyTimeoutMs,
        readonly: options.readOnly ?? false,
      }) as unknown as SqlDatabase;
      const engine = new Engine(path, db, lock, options);
      engine.#configure();
      if (!options.readOnly) engine.#migrate();
      else engine.#checkVersion();
      return engine;
    } catch (error) {
      try {
        db?.close();
      } catch {
        // already failing; the original error is the one to report
      }
      lock.release();
      throw wrapSqliteError(error, `open ${path}`);
    }
  }

  #configure(): void {
    const db = this.#db;
    if (!this.options.readOnly) {
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal')
        throw new HedgehopError('IO', `${this.path}: could not enable WAL (got ${String(mode)})`);
    }
    db.pragma(`synchronous = ${this.options.durability === 'full' ? 'FULL' : 'NORMAL'}`);
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${this.options.busyTimeoutMs}`);
    db.pragma('cache_size = -16000');
    db.pragma('temp_store = MEMORY');
    // Reads of the first MMAP_BYTES come straight from the operating system's page cache instead
    // of being copied into SQLite's own: a k-nearest vector search reads every vector (10 MB at
    // 10,000 rows of 256 dimensions), and halves in CPU time this way. Writes still go through
    // the journal as before (SQLite maps the file read-only), so durability is unchanged.
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
  }

  #checkVersion(): number {
    const version = this.#db.pragma('user_version', { simple: true }) as number;
    const appId = this.#db.pragma('application_id', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new HedgehopError(
        'VERSION',
        `${this.path} was written by a newer hedgehop (schema ${version}; this build knows up to ${SCHEMA_VERSION}). Upgrade hedgehop to open it; the file was not changed.`,
      );
    }
    if (appId !== APPLICATION_ID) {
      const tables = this.#db
        .prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
        .pluck()
        .get();
      if (appId !== 0 || (tables as number) > 0) {
        throw new HedgehopError(
          'INVALID_INPUT',
          `path: ${this.path} is an SQLite file but not a hedgehop memory`,
          {
            field: 'path',
          },
        );
      }
    }
    return version;
  }

  /**
   * Brings the schema up to date. A file already at this build's version is only read: no
   * write lock is taken, so opening it never waits for (or fails on) another process's writer.
   */
  #migrate(): void {
    if (this.#isCurrent()) {
      this.#migratedFrom = SCHEMA_VERSION;
      return;
    }
    const run = this.#db.transaction(() => {
      const from = this.#checkVersion();
      this.#migratedFrom = from;
      for (const migration of MIGRATIONS) {
        if (migration.version <= from) continue;
        migration.up(this.#db);
        this.#db.pragma(`user_version = ${migration.version}`);
      }
      if (from === 0) this.#db.pragma(`application_id = ${APPLICATION_ID}`);
    });
    run.immediate();
  }

  /** True when the file is a hedgehop memory at exactly this build's schema version. */
  #isCurrent(): boolean {
    const version = this.#db.pragma('user_version', { simple: true }) as number;
    const appId = this.#db.pragma('application_id', { simple: true }) as number;
    return version === SCHEMA_VERSION && appId === APPLICATION_ID;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The schema version the file had before this open (0 for a new file). */
  get migratedFrom(): number {
    return this.#migratedFrom;
  }

  /** Throws `CLOSED` once the engine has been closed. */
  assertOpen(what = 'this call'): void {
    if (this.#closed) throw new HedgehopError('CLOSED', `${what}: the memory file ${this.path} is closed`);
  }

  /** A cached prepared statement. */
  statement(sql: string): SqlStatement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = guard('prepare', () => this.#db.prepare(sql));
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Runs the asynchronous `work` as one transaction of this file: waits its turn at the file's
   * gate (one transaction at a time per file in this process, whatever the callbacks await),
   * opens `BEGIN IMMEDIATE` (write, with the jittered lock polling of {@link Engine.write}) or
   * `BEGIN` (read: one snapshot), and commits when `work` resolves or rolls back when it
   * throws. Mode `none` holds the gate without a transaction (VACUUM, checkpoints).
   * Statements inside `work` use the synchronous {@link Engine.write}/{@link Engine.read},
   * which join this transaction.
   */
  async transaction<T>(
    mode: TransactionMode | 'none',
    context: string,
    work: () => T | PromiseLike<T>,
  ): Promise<T> {
    this.#assertUsable(mode, context);
    if (!this.#gate.tryEnter()) await this.#gate.enter();
    try {
      this.assertOpen(context);
      if (mode === 'none') {
        this.#mode = mode;
        return await work();
      }
      guard(context, () => (mode === 'write' ? this.#beginImmediate() : this.#db.exec('BEGIN')));
      this.#mode = mode;
      try {
        const result = await work();
        guard(context, () => this.#db.exec('COMMIT'));
        return result;
      } catch (error) {
        if (this.#db.open && this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw wrapSqliteError(error, context);
      }
    } finally {
      this.#mode = undefined;
      this.#gate.leave();
    }
  }

  /** True inside a write transaction of this connection (its changes may still roll back). */
  get writing(): boolean {
    return this.#mode === 'write' || this.#syncWrite;
  }

  /** True while a transaction of this file (on any connection of this process) holds its gate. */
  get busy(): boolean {
    return this.#gate.held;
  }

  #assertUsable(mode: TransactionMode | 'none', context: string): void {
    this.assertOpen(context);
    if (mode === 'write' && this.options.readOnly)
      throw new HedgehopError('READ_ONLY', `${context}: the file is open read-only`);
  }

  /**
   * Statements of a synchronous {@link Engine.write}/{@link Engine.read} join the open
   * {@link Engine.transaction}; outside one they would interleave with a transaction another
   * caller has parked on an await, so they are refused while the file's gate is held.
   */
  #joinOrOwn(mode: TransactionMode, context: string): 'join' | 'own' {
    if (this.#mode === 'read' && mode === 'write')
      throw new HedgehopError('READ_ONLY', `${context}: a write inside a read transaction (use store.write)`);
    if (this.#db.inTransaction) return 'join';
    if (this.#mode === 'none') return 'own';
    if (this.#gate.held)
      throw new HedgehopError(
        'BUSY',
        `${context}: a statement outside store.read/store.write while a transaction of this file is open`,
      );
    return 'own';
  }

  /** Runs `fn` in one write transaction (`BEGIN IMMEDIATE`). `fn` must be synchronous. */
  write<T>(context: string, fn: () => T): T {
    this.assertOpen(context);
    if (this.options.readOnly) throw new HedgehopError('READ_ONLY', `${context}: the file is open read-only`);
    if (this.#joinOrOwn('write', context) === 'join') return guard(context, () => this.#nested(fn));
    return guard(context, () => {
      this.#beginImmediate();
      this.#syncWrite = true;
      try {
        const result = fn();
        this.#db.exec('COMMIT');
        return result;
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw error;
      } finally {
        this.#syncWrite = false;
      }
    });
  }

  /**
   * Runs `fn` in one write transaction if SQLite's write lock is free now, without waiting for
   * it: returns `undefined` (and runs nothing) when another connection holds it. For work that
   * must never wait on another writer (the recall index's catch-up from a read). Inside an
   * open write transaction, `fn` joins it as {@link Engine.write} would.
   */
  tryWrite<T>(context: string, fn: () => T): { value: T } | undefined {
    this.assertOpen(context);
    if (this.options.readOnly) throw new HedgehopError('READ_ONLY', `${context}: the file is open read-only`);
    if (this.#joinOrOwn('write', context) === 'join')
      return { value: guard(context, () => this.#nested(fn)) };
    return guard(context, () => {
      if (!this.#beginImmediateNow()) return undefined;
      this.#syncWrite = true;
      try {
        const value = fn();
        this.#db.exec('COMMIT');
        return { value };
      } catch (error) {
        if (this.#db.inTransaction) this.#db.exec('ROLLBACK');
        throw error;
      } finally {
        this.#syncWrite = false;
      }
    });
  }

  /** One `BEGIN IMMEDIATE` that gives up at once: false when another connection holds the write lock. */
  #beginImmediateNow(): boolean {
    this.statement('PRAGMA busy_timeout = 0').run();
    try {
      this.#db.exec('BEGIN IMMEDIATE');
      return true;
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (code.startsWith('SQLITE_BUSY')) return false;
      throw error;
    } finally {
      this.statement(`PRAGMA busy_timeout = ${this.options.busyTimeoutMs}`).run();
    }
  }

  /**
   * Runs `fn` inside the open transaction under a savepoint, so a repository method that throws
   * leaves nothing of itself behind even when its caller catches the error and goes on.
   */
  #nested<T>(fn: () => T): T {
    this.statement('SAVEPOINT nested_write').run();
    try {
      const result = fn();
      this.statement('RELEASE nested_write').run();
      return result;
    } catch (error) {
      if (this.#db.inTransaction) {
        this.statement('ROLLBACK TO nested_write').run();
        this.statement('RELEASE nested_write').run();
      }
      throw error;
    }
  }

  /**
   * Takes the write lock with `BEGIN IMMEDIATE`, retrying every few milliseconds until
   * `busyTimeoutMs`. SQLite's own busy handler backs off to 100 ms sleeps, which under several
   * writer processes makes a few unlucky writes wait for seconds; short, jittered polls keep
   * the tail close to the time the other writers actually hold the lock.
   */
  #beginImmediate(): void {
    const deadline = performance.now() + this.options.busyTimeoutMs;
    let delay = 0.25;
    // Cached statements: `pragma()` would prepare both anew on every write.
    this.statement('PRAGMA busy_timeout = 0').run();
    try {
      for (;;) {
        try {
          this.#db.exec('BEGIN IMMEDIATE');
          return;
        } catch (error) {
          const code = (error as { code?: string }).code ?? '';
          if (!code.startsWith('SQLITE_BUSY') || performance.now() >= deadline) throw error;
        }
        Atomics.wait(SLEEPER, 0, 0, delay * (0.5 + Math.random()));
        delay = Math.min(delay * 2, 4);
      }
    } finally {
      this.statement(`PRAGMA busy_timeout = ${this.options.busyTimeoutMs}`).run();
    }
  }

  /** Runs `fn` in one read transaction, so it sees a single consistent snapshot. */
  read<T>(context: string, fn: () => T): T {
    this.assertOpen(context);
    if (this.#joinOrOwn('read', context) === 'join') return guard(context, fn);
    return guard(context, () => this.#db.transaction(fn).deferred());
  }

  /** Runs `fn` outside any transaction, wrapping SQLite errors (for VACUUM and the like). */
  run<T>(context: string, fn: () => T): T {
    this.assertOpen(context);
    return guard(context, fn);
  }

  /** Executes raw SQL (maintenance only). */
  exec(context: string, sql: string): void {
    this.assertOpen(context);
    guard(context, () => this.#db.exec(sql));
  }

  /** Reads one pragma. */
  pragma(context: string, sql: string): unknown {
    this.assertOpen(context);
    return guard(context, () => this.#db.pragma(sql, { simple: true }));
  }

  /** All rows of a pragma. */
  pragmaRows(context: string, sql: string): unknown[] {
    this.assertOpen(context);
    return guard(context, () => this.#db.pragma(sql) as unknown[]);
  }

  /** Loads an SQLite extension (sqlite-vec). */
  loadExtension(path: string): void {
    this.assertOpen('loadExtension');
    guard('load extension', () => this.#db.loadExtension(path));
  }

  /** Changes whenever another connection commits to the file (PRAGMA data_version). */
  dataVersion(): number {
    this.assertOpen('dataVersion');
    // A cached statement: `pragma()` prepares the statement anew on every call, and the recall
    // index asks on every search (its term statistics cache).
    return guard('dataVersion', () => this.statement('PRAGMA data_version').pluck().get() as number);
  }

  /** Compares two paths after resolving links, for "is this the open file?" checks. */
  isSameFile(other: string): boolean {
    const target = resolve(other);
    if (target === this.path) return true;
    try {
      return realpathSync(target) === realpathSync(this.path);
    } catch {
      return false;
    }
  }

  close(): void {
    if (this.#closed)
      throw new HedgehopError('CLOSED', `close: the memory file ${this.path} is already closed`);
    this.#closed = true;
    this.#statements.clear();
    releaseGate(this.#gateKey);
    try {
      if (!this.options.readOnly) {
        try {
          this.#db.pragma('wal_checkpoint(PASSIVE)');
        } catch {
          // another process may hold the WAL; a later open checkpoints it
        }
      }
      this.#db.close();
    } finally {
      this.#lock.release();
    }
  }
}

/** The path that names the file for the per-file gate (links resolved where they can be). */
function canonicalPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
