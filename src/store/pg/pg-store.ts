import pg from 'pg';
import { HedgehopError } from '../../core/errors.js';
import type { StoreSeam, StoreTx, TxWork, WriteOptions } from '../seam.js';
import type { DumpHeader, DumpImportReport, DumpProgress } from '../dump-repo.js';
import type { CheckReport, FileStats } from '../maintenance.js';
import { exportPgDump, importPgDump } from './dump.js';
import { pgCheck, pgStats, PG_CHECKPOINT } from './maintenance.js';
import { checkPgVersion, migratePg, OPEN_LOCK_CLASS, quoteIdent, VERSION_TABLE } from './migrations.js';
import { boundQueries, coalesceWrites, KEEP_ALIVE, queryTimeoutMs } from './pg-connection.js';
import { isConnectionError, wrapPgError } from './pg-errors.js';
import type { PgQuery } from './pg-query.js';
import { pgRepositories } from './pg-repositories.js';
import { TermCounts } from './recall-repo.js';
import { parsePgUrl, type PgTarget } from './pg-url.js';

/** How a PostgreSQL memory is opened (the subset of `openMemory`'s options an engine needs). */
export interface PgStoreOptions {
  /** `full`: a commit is on the server's disk when acknowledged; `normal`: `synchronous_commit = off`. */
  readonly durability: 'full' | 'normal';
  /** `exclusive`: no other opener anywhere (a session advisory lock); `shared`: any number. */
  readonly mode: 'shared' | 'exclusive';
  /** How long a statement waits for a row lock before the call fails with `BUSY`. */
  readonly busyTimeoutMs: number;
  readonly readOnly?: boolean;
  /** Connections in this process's pool (default 10). */
  readonly poolSize?: number;
}

/**
 * How many times a call is run again after its connection was lost: a read, an idempotent write,
 * or a write that failed before anything of it was sent (any other write never is, once sent).
 */
const CONNECTION_RETRIES = 3;
const RETRY_DELAY_MS = 100;
/** How long {@link PgStore.exists} waits to open its connection (it has no busy timeout to go by). */
const EXISTS_CONNECT_TIMEOUT_MS = 5000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whole numbers come back as JS numbers: `bigint` columns hold times in milliseconds and ids,
 * far below 2^53, and `count(*)` is a `bigint`. (node-postgres' default is a string.)
 */
const INT8_OID = 20;
const NUMERIC_OID = 1700;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if ((oid === INT8_OID || oid === NUMERIC_OID) && format !== 'binary')
      return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** A seam callback as the engine runs it: handed the repositories over the transaction's client. */
const seamWork =
  <T>(work: TxWork<T>, termCounts?: TermCounts) =>
  async (db: PgQuery, isLive: () => boolean): Promise<T> =>
    work(liveTx(pgRepositories(db, termCounts), isLive));

/** How one transaction runs: a read, or a write (whose COMMIT may go out with its last statement). */
type Kind = 'read' | 'write';
type Run = Kind | 'write-one-call';

/** A {@link StoreTx} that refuses use once its transaction's callback has settled. */
function liveTx(repos: StoreTx, isLive: () => boolean): StoreTx {
  const get = <K extends keyof StoreTx>(name: K): StoreTx[K] => {
    if (!isLive())
      throw new HedgehopError(
        'CLOSED',
        `store.${name}: this transaction has ended (use the tx of a new store.read/store.write)`,
      );
    return repos[name];
  };
  return {
    get agents() {
      return get('agents');
    },
    get index() {
      return get('index');
    },
    get conversation() {
      return get('conversation');
    },
    get radial() {
      return get('radial');
    },
    get knowledge() {
      return get('knowledge');
    },
    get leases() {
      return get('leases');
    },
    get recall() {
      return get('recall');
    },
    get reindex() {
      return get('reindex');
    },
    get vectors() {
      return get('vectors');
    },
    get engram() {
      return get('engram');
    },
    get dream() {
      return get('dream');
    },
  };
}

/** How many statement texts get a name ({@link statementName}); later ones run unnamed. */
const NAMED_STATEMENTS = 256;
const statementNames = new Map<string, string>();

/**
 * The name a write's parameterised statement is prepared under on each connection (once; the
 * server then skips parsing and planning it again): one per distinct text, process-wide, for the
 * first {@link NAMED_STATEMENTS} texts (a connection keeps what it prepared until it closes).
 */
function statementName(text: string): string | undefined {
  const known = statementNames.get(text);
  if (known !== undefined || statementNames.size >= NAMED_STATEMENTS) return known;
  const name = `hh_w${statementNames.size + 1}`;
  statementNames.set(text, name);
  return name;
}

/**
 * A statement runner over one client that refuses statements once `isLive` turns false. With
 * `commitAfter`, it offers {@link PgQuery.queryLast}: the statement, then `commitAfter()` (which
 * sends COMMIT) before its reply is awaited; every statement after that is refused.
 */
function txQuery(
  client: pg.PoolClient,
  isLive: () => boolean,
  context: string,
  commitAfter?: () => void,
  prepared = false,
): PgQuery {
  let committing = false;
  const send = async <R extends object>(
    text: string,
    values: readonly unknown[] | undefined,
    last: boolean,
  ) => {
    if (!isLive() || committing)
      throw new HedgehopError(
        'CLOSED',
        `${context}: this transaction has ended (a statement ran after ${committing ? 'its COMMIT was sent' : 'it'})`,
      );
    const name = prepared && values !== undefined ? statementName(text) : undefined;
    const pending = name
      ? client.query({ text, values: values as unknown[], name })
      : client.query(text, values as unknown[] | undefined);
    if (last && commitAfter) {
      committing = true;
      commitAfter();
    }
    const result = await pending;
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };
  return {
    query: <R extends object>(text: string, values?: readonly unknown[]) => send<R>(text, values, false),
    ...(commitAfter
      ? {
          queryLast: <R extends object>(text: string, values?: readonly unknown[]) =>
            send<R>(text, values, true),
        }
      : {}),
  };
}

/** Where an attempt failed: before the callback ran, inside it, or at COMMIT. */
type Stage = 'begin' | 'work' | 'commit';

class AttemptError extends Error {
  constructor(
    readonly stage: Stage,
    readonly original: unknown,
  ) {
    super('attempt failed');
  }
}

/**
 * The PostgreSQL engine behind the {@link StoreSeam}: a node-postgres pool, one memory per
 * schema. Each `write` takes a pooled client, `BEGIN` (read committed, row locks do the
 * rest), `SET LOCAL search_path` to the memory's schema, runs the callback and commits (or
 * rolls back when it throws); each `read` is a `REPEATABLE READ READ ONLY` snapshot. A read whose
 * connection drops is run again on a fresh one; a write only when the connection failed
 * before anything of it was sent, or when it is idempotent (keyed, so a second run finds the
 * first's rows and writes nothing), so a write is never doubled.
 */
export class PgStore implements StoreSeam {
  readonly target: PgTarget;
  readonly options: PgStoreOptions;
  readonly #pool: pg.Pool;
  #lock: pg.Client | undefined;
  #lockLost = false;
  #closed = false;
  #migratedFrom = 0;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Recall's term counts, kept across reads while the server's snapshot stays the same. */
  readonly #termCounts = new TermCounts();
  /** Pool clients not handed out by {@link PgStore.#slot}; callers beyond them wait in {@link PgStore.#queue}. */
  #free: number;
  readonly #queue: (() => void)[] = [];
  /** How long one statement may go unanswered before its connection is dropped (0: no bound). */
  readonly queryTimeoutMs: number;

  private constructor(target: PgTarget, options: PgStoreOptions) {
    this.target = target;
    this.options = options;
    this.queryTimeoutMs = queryTimeoutMs(target.queryTimeoutMs, options.busyTimeoutMs);
    this.#free = options.poolSize ?? 10;
    this.#pool = new pg.Pool({
      connectionString: target.connectionString,
      max: this.#free,
      types,
      ...KEEP_ALIVE,
      application_name: 'hedgehop',
      // Only the time to open a connection: callers waiting for a free one queue in #slot, unbounded,
      // as calls on a SQLite memory queue for its one connection (a wait there is not a failure).
      connectionTimeoutMillis: Math.max(options.busyTimeoutMs, 2000),
      // A transaction's BEGIN goes out with its first statement (see #attemptOnClient).
      pipeline: true,
    });
    // An idle client whose server went away emits here; without a listener it would crash the process.
    this.#pool.on('error', () => undefined);
    // A checked-out client whose connection dies emits too; the query in flight rejects with it.
    this.#pool.on('connect', (client) => {
      client.on('error', () => undefined);
      // A host that stops answering (no reset, no close) fails the statement instead of hanging it.
      boundQueries(client, this.queryTimeoutMs);
      // A transaction's statements sent together leave in one write.
      coalesceWrites(client);
    });
  }

  /** Opens (creating if needed) the memory named by `url`, locks it and brings its schema up to date. */
  static async open(url: string, options: PgStoreOptions): Promise<PgStore> {
    const store = new PgStore(parsePgUrl(url), options);
    try {
      await store.#takeLock();
      await store.#prepare();
      return store;
    } catch (error) {
      await store.#shutdown();
      throw wrapPgError(error, `open ${store.path}`, store.path);
    }
  }

  /** True when `url` names a memory that exists on its server (a versioned schema). */
  static async exists(url: string): Promise<boolean> {
    const target = parsePgUrl(url);
    const client = new pg.Client({
      connectionString: target.connectionString,
      types,
      ...KEEP_ALIVE,
      connectionTimeoutMillis: EXISTS_CONNECT_TIMEOUT_MS,
    });
    client.on('error', () => undefined);
    boundQueries(client, queryTimeoutMs(target.queryTimeoutMs, 0));
    try {
      await client.connect();
      const { rows } = await client.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [
        `${quoteIdent(target.schema)}.${VERSION_TABLE}`,
      ]);
      return rows[0]?.found ?? false;
    } catch (error) {
      throw wrapPgError(error, `open ${target.display}`, target.display);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async #prepare(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      const db: PgQuery = {
        query: async <R extends object>(text: string, values?: readonly unknown[]) => {
          const result = await client.query(text, values as unknown[] | undefined);
          return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
        },
      };
      if (this.readOnly) this.#migratedFrom = await checkPgVersion(db, this.target.schema, this.path);
      else this.#migratedFrom = await migratePg(db, this.target.schema, this.path);
    } finally {
      client.release();
    }
  }

  /**
   * Takes the memory's session advisory lock on a connection of its own, held until close:
   * exclusive for `mode: 'exclusive'`, shared otherwise, so an exclusive opener and any other
   * opener refuse each other (`LOCKED`), as the SQLite engine's lock file does.
   */
  async #takeLock(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.target.connectionString,
      types,
      ...KEEP_ALIVE,
      connectionTimeoutMillis: Math.max(this.options.busyTimeoutMs, 2000),
    });
    client.on('error', () => {
      this.#lockLost = true;
    });
    client.on('end', () => {
      this.#lockLost = true;
    });
    boundQueries(client, this.queryTimeoutMs);
    await client.connect();
    const fn = this.options.mode === 'exclusive' ? 'pg_try_advisory_lock' : 'pg_try_advisory_lock_shared';
    try {
      const { rows } = await client.query<{ ok: boolean }>(`SELECT ${fn}($1, hashtext($2)) AS ok`, [
        OPEN_LOCK_CLASS,
        this.target.schema,
      ]);
      if (!rows[0]?.ok) {
        const held =
          this.options.mode === 'exclusive' ? 'is open elsewhere' : 'is open exclusively elsewhere';
        throw new HedgehopError(
          'LOCKED',
          `${this.path} ${held} (mode '${this.options.mode}' cannot be granted)`,
        );
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.#lock = client;
    this.#lockLost = false;
  }

  /** After the server restarted, the session lock is gone with its connection: take it again. */
  async #keepLock(context: string): Promise<void> {
    if (!this.#lockLost) return;
    const old = this.#lock;
    this.#lock = undefined;
    await old?.end().catch(() => undefined);
    try {
      await this.#takeLock();
    } catch (error) {
      this.#lockLost = true;
      throw wrapPgError(error, context, this.path);
    }
  }

  /** The memory's URL, its password hidden. */
  get path(): string {
    return this.target.display;
  }

  get readOnly(): boolean {
    return this.options.readOnly ?? false;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The schema version the memory had before this open (0 for a new memory). */
  get migratedFrom(): number {
    return this.#migratedFrom;
  }

  /** Throws `CLOSED` once the store has been closed. */
  assertOpen(what = 'this call'): void {
    if (this.#closed) throw new HedgehopError('CLOSED', `${what}: the memory ${this.path} is closed`);
  }

  /** Runs `work` against one consistent snapshot (`REPEATABLE READ READ ONLY`). */
  read<T>(context: string, work: TxWork<T>): Promise<T> {
    return this.#track(this.#transaction('read', context, seamWork(work, this.#termCounts)));
  }

  /**
   * Runs `work` as one atomic write transaction: all of it commits, or (when it throws) none.
   * With `oneCall`, the repository call's last statement carries COMMIT right behind it
   * ({@link PgQuery.queryLast}): one round trip fewer, and never run again once sent, unless
   * `idempotent` says a second run is safe (see {@link WriteOptions}).
   */
  write<T>(context: string, work: TxWork<T>, options: WriteOptions = {}): Promise<T> {
    if (!this.#closed && this.readOnly)
      return Promise.reject(new HedgehopError('READ_ONLY', `${context}: the memory is open read-only`));
    return this.#track(
      this.#transaction(
        options.oneCall === true ? 'write-one-call' : 'write',
        context,
        seamWork(work),
        options.idempotent === true,
      ),
    );
  }

  /**
   * Runs `fn` with the transaction's raw statement runner, for the engine's own maintenance
   * (stats, check, dump): a `read` snapshot or an atomic `write`, retried as the seam's are.
   */
  sql<T>(kind: Kind, context: string, fn: (db: PgQuery) => Promise<T>): Promise<T> {
    if (kind === 'write' && !this.#closed && this.readOnly)
      return Promise.reject(new HedgehopError('READ_ONLY', `${context}: the memory is open read-only`));
    return this.#track(this.#transaction(kind, context, fn));
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    this.#inFlight.add(promise);
    const done = (): void => {
      this.#inFlight.delete(promise);
    };
    promise.then(done, done);
    return promise;
  }

  /**
   * Runs `work` in a transaction, retried per the rules above. Resolves as soon as the result
   * is known: for a read that is before its COMMIT's reply, which the run still waits for
   * (tracked, so `close` waits for it too).
   */
  #transaction<T>(
    kind: Run,
    context: string,
    work: (db: PgQuery, isLive: () => boolean) => Promise<T>,
    idempotent = false,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#track(this.#run(kind, context, work, resolve, idempotent)).then(resolve, reject);
    });
  }

  async #run<T>(
    kind: Run,
    context: string,
    work: (db: PgQuery, isLive: () => boolean) => Promise<T>,
    deliver: (value: T) => void,
    idempotent: boolean,
  ): Promise<T> {
    this.assertOpen(context);
    // Set once an attempt lost its connection after its COMMIT was sent: from then on, a failure
    // leaves the write's fate unknown, whatever the later attempts' errors say.
    let doubt = false;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#keepLock(context);
        return await this.#attempt(kind, context, work, deliver);
      } catch (error) {
        const failure = error instanceof AttemptError ? error : new AttemptError('begin', error);
        const lost = isConnectionError(failure.original);
        if (lost && failure.stage === 'commit' && kind !== 'read') doubt = true;
        const retry =
          lost &&
          attempt < CONNECTION_RETRIES &&
          !this.#closed &&
          (kind === 'read' || failure.stage === 'begin' || idempotent);
        if (!retry) throw this.#wrap(failure, context, doubt, attempt + 1);
        await sleep(RETRY_DELAY_MS * (attempt + 1));
      }
    }
  }

  #wrap(failure: AttemptError, context: string, doubt: boolean, attempts: number): HedgehopError {
    const wrapped = wrapPgError(failure.original, context, this.path);
    if (!doubt) return wrapped;
    const tried =
      attempts === 1
        ? 'it was not retried'
        : `it was run ${attempts} times, the last failing with: ${wrapped.message}`;
    return new HedgehopError(
      'IO',
      `${context}: the connection to ${this.path} was lost during COMMIT, so the write may or may not have been applied (${tried}; read it back before writing it again)`,
      { cause: failure.original },
    );
  }

  #begin(kind: Run): string {
    const steps = [
      kind === 'read' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN',
      `SET LOCAL search_path TO ${quoteIdent(this.target.schema)}`,
      `SET LOCAL lock_timeout = ${Math.max(1, Math.floor(this.options.busyTimeoutMs))}`,
    ];
    if (kind !== 'read' && this.options.durability === 'normal')
      steps.push('SET LOCAL synchronous_commit = off');
    return steps.join('; ');
  }

  /**
   * Runs `fn` once one of the pool's clients is free for it. node-postgres' pool applies its
   * `connectionTimeoutMillis` to the wait for a busy pool as well as to opening a connection, so
   * a burst of calls (hundreds of concurrent writes in one process) would fail with "timeout
   * exceeded when trying to connect", reported as an unreachable server; queued here, they wait
   * their turn and the pool's timeout only measures the server.
   */
  async #slot<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#queue.push(resolve));
    try {
      return await fn();
    } finally {
      const next = this.#queue.shift();
      if (next) next();
      else this.#free++;
    }
  }

  #attempt<T>(
    kind: Run,
    context: string,
    work: (db: PgQuery, isLive: () => boolean) => Promise<T>,
    deliver: (value: T) => void,
  ): Promise<T> {
    return this.#slot(() => this.#attemptOnClient(kind, context, work, deliver));
  }

  /**
   * One attempt on one pooled client. The client is in pipeline mode: `BEGIN` (with the
   * transaction's settings) is sent without waiting for its reply, so the callback's first
   * statement follows it on the wire and the two cost one round trip. `BEGIN; SET LOCAL …`
   * cannot fail on a live connection (no statement of it can be refused), and when the
   * connection fails the statements queued behind it fail too, so nothing ever runs outside
   * the transaction; such a failure counts as the `begin` stage (nothing of the write ran, so
   * it is retried). A read's COMMIT is not waited for: its snapshot has been read, so its
   * result is handed back at once (through `deliver`) while the COMMIT finishes on the client
   * (and its pool slot) before the client goes back to the pool; a failed COMMIT of a read
   * changes nothing, and its client is discarded.
   */
  async #attemptOnClient<T>(
    kind: Run,
    context: string,
    work: (db: PgQuery, isLive: () => boolean) => Promise<T>,
    deliver: (value: T) => void,
  ): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw new AttemptError('begin', error);
    }
    let broken = false;
    let live = true;
    const isLive = (): boolean => live;
    let beginError: unknown;
    const begun = client.query(this.#begin(kind)).then(
      () => true,
      (error: unknown) => {
        beginError = error;
        return false;
      },
    );
    // A one-call write's COMMIT, sent behind its last statement (see txQuery); its outcome.
    let committed: Promise<{ error?: unknown }> | undefined;
    const commitAfter =
      kind === 'write-one-call'
        ? (): void => {
            committed = client.query('COMMIT').then(
              () => ({}),
              (error: unknown) => ({ error }),
            );
          }
        : undefined;
    const failedToBegin = async (): Promise<AttemptError | undefined> => {
      if (await begun) return undefined;
      broken = true;
      // Once COMMIT is on the wire the server may have run all of it: never run it again.
      return new AttemptError(committed ? 'commit' : 'begin', beginError);
    };
    try {
      let result: T;
      try {
        result = await work(
          txQuery(client, isLive, context, commitAfter, kind !== 'read' && this.target.preparedStatements),
          isLive,
        );
      } catch (error) {
        live = false;
        const notBegun = await failedToBegin();
        if (notBegun) throw notBegun;
        if (committed) {
          // The transaction ended with its COMMIT (a failed statement made it a rollback). A
          // lost connection leaves its fate unknown; a refusal after the statement wrote nothing.
          const ended = await committed;
          if (isConnectionError(error) || isConnectionError(ended.error)) {
            broken = true;
            throw new AttemptError('commit', isConnectionError(error) ? error : ended.error);
          }
          throw new AttemptError('work', error);
        }
        broken = !(await client.query('ROLLBACK').then(
          () => true,
          () => false,
        ));
        throw new AttemptError('work', error);
      }
      live = false;
      const notBegun = await failedToBegin();
      if (notBegun) throw notBegun;
      if (kind === 'read') {
        deliver(result);
        broken = !(await client.query('COMMIT').then(
          () => true,
          () => false,
        ));
        return result;
      }
      try {
        const ended: { error?: unknown } = committed
          ? await committed
          : await client.query('COMMIT').then(() => ({}));
        if (ended.error !== undefined) throw ended.error;
      } catch (error) {
        broken = isConnectionError(error);
        if (!broken) await client.query('ROLLBACK').catch(() => undefined);
        throw new AttemptError('commit', error);
      }
      return result;
    } finally {
      live = false;
      client.release(broken);
    }
  }

  /**
   * A number that changes when the memory's rows change, from PostgreSQL's per-table counters
   * (updated when a transaction ends, by any connection to the server).
   */
  async dataVersion(): Promise<number> {
    this.assertOpen('dataVersion');
    try {
      const { rows } = await this.#slot(() =>
        this.#pool.query<{ changes: number }>(
          `SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint AS changes
         FROM pg_stat_user_tables WHERE schemaname = $1`,
          [this.target.schema],
        ),
      );
      return rows[0]?.changes ?? 0;
    } catch (error) {
      throw wrapPgError(error, 'dataVersion', this.path);
    }
  }

  /**
   * Runs `fn` on a client of its own, outside any transaction the seam runs, with the memory's
   * schema on its search path (maintenance that manages its own transactions: dump import).
   */
  async withClient<T>(context: string, fn: (db: PgQuery) => Promise<T>): Promise<T> {
    this.assertOpen(context);
    const run = async (): Promise<T> => {
      const client = await this.#pool.connect();
      try {
        await client.query(`SET search_path TO ${quoteIdent(this.target.schema)}`);
        return await fn({
          query: async <R extends object>(text: string, values?: readonly unknown[]) => {
            const result = await client.query(text, values as unknown[] | undefined);
            return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
          },
        });
      } finally {
        client.release(true);
      }
    };
    try {
      return await this.#track(this.#slot(run));
    } catch (error) {
      throw wrapPgError(error, context, this.path);
    }
  }

  /** Sizes and live row counts (see {@link pgStats}). */
  stats(): Promise<FileStats> {
    return this.sql('read', 'stats', (db) => pgStats(db, this.path));
  }

  /** Verifies the memory's schema, constraints and indexes; throws `CORRUPT` with what was found. */
  check(): Promise<CheckReport> {
    return this.sql('read', 'check', (db) => pgCheck(db, this.path));
  }

  /** A no-op that says so: the server manages its own WAL. */
  async checkpoint(): Promise<typeof PG_CHECKPOINT> {
    this.assertOpen('checkpoint');
    return PG_CHECKPOINT;
  }

  /** Writes the memory as hedgehop's JSONL dump from one snapshot (see src/store/pg/dump.ts). */
  exportDump(write: (line: string) => void, onProgress?: DumpProgress): Promise<DumpHeader> {
    return this.sql('read', 'exportDump', (db) => exportPgDump(db, write, onProgress));
  }

  /** Imports a dump into this (empty) memory in one transaction. */
  importDump(
    lines: Iterable<string> | AsyncIterable<string>,
    options: { readonly onProgress?: DumpProgress | undefined } = {},
  ): Promise<DumpImportReport> {
    return this.sql('write', 'importDump', (db) => importPgDump(db, lines, { ...options, where: this.path }));
  }

  /** Closes the pool once the transactions already running have finished, and drops the lock. */
  async close(): Promise<void> {
    if (this.#closed) throw new HedgehopError('CLOSED', `close: the memory ${this.path} is already closed`);
    this.#closed = true;
    await Promise.allSettled([...this.#inFlight]);
    await this.#shutdown();
  }

  async #shutdown(): Promise<void> {
    this.#closed = true;
    await this.#pool.end().catch(() => undefined);
    await this.#lock?.end().catch(() => undefined);
    this.#lock = undefined;
  }
}
