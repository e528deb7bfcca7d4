import { HedgehopError } from '../core/errors.js';
import { AgentsRepo } from './agents-repo.js';
import { ConversationRepo } from './conversation-repo.js';
import { DreamRepo } from './dream-repo.js';
import { EngramRepo } from './engram-repo.js';
import { Engine, type EngineOptions } from './engine.js';
import { IndexRepo } from './index-repo.js';
import { IndexCatchUp, type CatchUpResult } from './index-catch-up.js';
import { RadialRepo } from './radial-repo.js';
import { KnowledgeRepo } from './knowledge-repo.js';
import { LeasesRepo } from './leases-repo.js';
import { RecallRepo } from './recall-repo.js';
import { ReindexRepo } from './reindex-repo.js';
import { VectorRepo } from './vector-repo.js';
import {
  checkFile,
  checkpointFile,
  compactFile,
  fileStats,
  type CheckReport,
  type FileStats,
} from './maintenance.js';
import type { StoreSeam, StoreTx, TxWork } from './seam.js';

/** Nodes a background catch-up indexes per transaction (each ~0.3–0.6 ms): short pauses of the event loop. */
const DRAIN_BATCH = 64;
/** The longest pause between background attempts while another connection holds the write lock. */
const DRAIN_RETRY_MAX_MS = 50;

/** The SQLite repositories, synchronous underneath the {@link StoreTx} they are handed out as. */
interface SqliteRepositories {
  readonly agents: AgentsRepo;
  readonly index: IndexRepo;
  readonly conversation: ConversationRepo;
  readonly radial: RadialRepo;
  readonly knowledge: KnowledgeRepo;
  readonly leases: LeasesRepo;
  readonly recall: RecallRepo;
  readonly reindex: ReindexRepo;
  readonly vectors: VectorRepo;
  readonly engram: EngramRepo;
  readonly dream: DreamRepo;
}

/**
 * The SQLite engine behind the {@link StoreSeam}. `memory/`, `recall/` and `api/` reach the
 * repositories only through {@link Store.read}/{@link Store.write}; all SQL and every engine
 * specific stays in `store/`. A PostgreSQL engine provides the same seam.
 */
export class Store implements StoreSeam {
  readonly engine: Engine;
  readonly #repos: SqliteRepositories;
  readonly #catchUp: IndexCatchUp;
  /**
   * This handle committed nodes whose recall-index rows may still be pending (see
   * {@link Store.catchUpIndex}): its own reads write them first, waiting for the write lock if
   * they must, so it reads its own writes.
   */
  #ownPending = false;
  /**
   * Check the file for nodes another handle left pending (one that died between its commit and
   * its catch-up): set at open; another connection's commits show in `PRAGMA data_version`.
   */
  #checkOthers = true;
  #seenVersion = -1;
  /** A background catch-up is scheduled (coalesces the commits that come before it runs). */
  #drainScheduled = false;
  /** The wait before the next background attempt while another connection holds the write lock. */
  #retryMs = 0;

  private constructor(engine: Engine) {
    this.engine = engine;
    const vectors = new VectorRepo(engine);
    const index = new IndexRepo(engine, vectors);
    this.#catchUp = new IndexCatchUp(engine, index);
    const conversation = new ConversationRepo(engine, index);
    const engram = new EngramRepo(engine);
    this.#repos = {
      agents: new AgentsRepo(engine),
      vectors,
      index,
      conversation,
      radial: new RadialRepo(engine, index, () => this.#indexDeferred()),
      knowledge: new KnowledgeRepo(engine, index),
      leases: new LeasesRepo(engine),
      recall: new RecallRepo(engine),
      reindex: new ReindexRepo(engine),
      engram,
      dream: new DreamRepo(engine, index, conversation),
    };
    // A writer that died between a commit and its catch-up left rows that this open writes.
    if (!this.readOnly) this.#scheduleDrain(0);
  }

  /**
   * @internal SQLite only: the synchronous repositories, each call its own transaction, for the
   * engine's own tests and the benchmarks' raw floors. `BUSY` while a {@link Store.read} or
   * {@link Store.write} is in flight (use the result at once; never keep it across an await).
   */
  get direct(): SqliteRepositories {
    if (this.engine.busy)
      throw new HedgehopError('BUSY', 'store.direct: a transaction of this file is in flight');
    return this.#repos;
  }

  /**
   * Runs `work` against one consistent snapshot; a write inside it is refused (`READ_ONLY`).
   * First writes the recall-index rows still pending (see {@link Store.catchUpIndex}): all of
   * this handle's own commits (so it reads its own writes), and other handles' only when the
   * write lock is free at once, so a read never waits for another connection's write.
   */
  read<T>(context: string, work: TxWork<T>): Promise<T> {
    const lag = this.#lag();
    if (lag !== undefined)
      return this.#catchUpBefore(context, lag).then(() =>
        this.engine.transaction('read', context, () => this.#run(work)),
      );
    return this.engine.transaction('read', context, () => this.#run(work));
  }

  /** Runs `work` as one atomic write transaction: all of it commits, or (when it throws) none. */
  write<T>(context: string, work: TxWork<T>): Promise<T> {
    return this.engine.transaction('write', context, () => this.#run(work));
  }

  /** A commit of this handle wrote a node without its recall-index rows: write them soon, off its path. */
  #indexDeferred(): void {
    this.#ownPending = true;
    this.#scheduleDrain(0);
  }

  /** Whose index rows a read must look for first: this handle's commits, maybe others', or none. */
  #lag(): 'own' | 'others' | undefined {
    if (this.readOnly || this.engine.closed) return undefined;
    if (this.#ownPending) return 'own';
    if (this.#checkOthers || this.engine.dataVersion() !== this.#seenVersion) return 'others';
    return undefined;
  }

  /**
   * The catch-up before a read: this handle's pending rows waiting for the lock like any write
   * (errors reach the caller, as the read could not see its own writes); others' only if the
   * lock is free now, and a failure there leaves them to their writer, a later read or open.
   */
  #catchUpBefore(context: string, lag: 'own' | 'others'): Promise<void> {
    return this.engine.transaction('none', context, () => {
      if (lag === 'own') {
        this.#catchUpNow(true, Number.POSITIVE_INFINITY);
        return;
      }
      try {
        this.#catchUpNow(false, Number.POSITIVE_INFINITY);
      } catch {
        // Derived rows: whoever next writes them finds them still pending.
      }
    });
  }

  /**
   * Writes the recall-index rows of the nodes committed without them, and returns how many.
   * A commit leaves them out of its transaction (they are derived from the node's row, and the
   * commit is what an agent waits for); the handle that committed writes them once its event
   * loop turns, in transactions of their own at `synchronous = NORMAL` that also move the mark
   * of what is indexed, so a crash loses only rows that are written again later. This writes
   * every pending row now, waiting for the write lock if another connection holds it.
   */
  catchUpIndex(context = 'index catch-up'): Promise<number> {
    if (this.readOnly) return Promise.resolve(0);
    return this.engine.transaction('none', context, () => {
      const done = this.#catchUpNow(true, Number.POSITIVE_INFINITY);
      return done === 'busy' ? 0 : done.indexed;
    });
  }

  /**
   * Schedules a catch-up off the caller's path: on the next turn of the event loop (commits made
   * before it runs share it), or after `delayMs` when the write lock was held. It never waits
   * for the lock; while another connection holds it, it tries again with growing pauses.
   */
  #scheduleDrain(delayMs: number): void {
    if (this.#drainScheduled || this.readOnly) return;
    this.#drainScheduled = true;
    const run = (): void => {
      this.#drainScheduled = false;
      void this.#drain();
    };
    if (delayMs === 0) setImmediate(run);
    else setTimeout(run, delayMs).unref();
  }

  async #drain(): Promise<void> {
    if (this.engine.closed) return;
    let outcome: CatchUpResult | 'busy';
    try {
      outcome = await this.engine.transaction('none', 'index catch-up', () =>
        this.#catchUpNow(false, DRAIN_BATCH),
      );
    } catch {
      // Closed meanwhile, or the write failed: the rows stay pending for the next read of this
      // handle, its checkpoint or close, or the next open.
      return;
    }
    if (outcome === 'busy') {
      this.#retryMs = Math.min(Math.max(1, this.#retryMs * 2), DRAIN_RETRY_MAX_MS);
      this.#scheduleDrain(this.#retryMs);
      return;
    }
    this.#retryMs = 0;
    if (outcome.more) this.#scheduleDrain(0);
  }

  /**
   * The catch-up, with the file's gate held and no transaction open: at most `limit` nodes,
   * waiting for the write lock or (`wait` false) giving up at once when it is held.
   */
  #catchUpNow(wait: boolean, limit: number): CatchUpResult | 'busy' {
    const version = this.engine.dataVersion();
    if (!this.#catchUp.indexLags()) {
      this.#settled(version);
      return { indexed: 0, more: false };
    }
    const relaxed = this.engine.options.durability === 'full';
    if (relaxed) this.engine.statement('PRAGMA synchronous = NORMAL').run();
    try {
      const result = this.#catchUp.catchUp({ wait, limit });
      if (result !== 'busy' && !result.more) this.#settled(version);
      return result;
    } finally {
      if (relaxed) this.engine.statement('PRAGMA synchronous = FULL').run();
    }
  }

  /** Nothing was pending at `version` (this connection's commits do not change it). */
  #settled(version: number): void {
    this.#ownPending = false;
    this.#checkOthers = false;
    this.#seenVersion = version;
  }

  async #run<T>(work: TxWork<T>): Promise<T> {
    const tx = new LiveTx(this.#repos);
    try {
      return await work(tx);
    } finally {
      tx.end();
    }
  }

  static open(path: string, options: EngineOptions): Store {
    return new Store(Engine.open(path, options));
  }

  get path(): string {
    return this.engine.path;
  }

  get closed(): boolean {
    return this.engine.closed;
  }

  /** The schema version the file had before this open (0 for a new file). */
  get migratedFrom(): number {
    return this.engine.migratedFrom;
  }

  /** Throws `CLOSED` once the file has been closed. */
  assertOpen(what?: string): void {
    this.engine.assertOpen(what);
  }

  /** Changes whenever another connection commits to the file (PRAGMA data_version). */
  async dataVersion(): Promise<number> {
    return this.engine.dataVersion();
  }

  get readOnly(): boolean {
    return this.engine.options.readOnly ?? false;
  }

  async stats(): Promise<FileStats> {
    const lag = this.#lag();
    if (lag !== undefined) await this.#catchUpBefore('stats', lag);
    return this.engine.transaction('read', 'stats', () => fileStats(this.engine));
  }

  check(): Promise<CheckReport> {
    return this.engine.transaction('none', 'check', () => checkFile(this.engine));
  }

  /**
   * Writes this handle's index rows still pending (see {@link Store.catchUpIndex}; others' when
   * the lock is free), then moves the WAL into the file.
   */
  async checkpoint(): Promise<{ walFramesCheckpointed: number; busy: boolean }> {
    const lag = this.#lag();
    if (lag !== undefined) await this.#catchUpBefore('checkpoint', lag);
    return this.engine.transaction('none', 'checkpoint', () => checkpointFile(this.engine));
  }

  compactTo(path: string): Promise<{ path: string; bytesBefore: number; bytesAfter: number }> {
    return this.engine.transaction('none', 'compactTo', () => compactFile(this.engine, path));
  }

  /**
   * Runs the synchronous `work` with the file's gate held and no transaction open, for
   * maintenance that manages its own (dump import, VACUUM).
   */
  async exclusive<T>(context: string, work: () => T): Promise<T> {
    const lag = this.#lag();
    if (lag !== undefined) await this.#catchUpBefore(context, lag);
    this.#checkOthers = true;
    return this.engine.transaction('none', context, work);
  }

  /**
   * Closes the file once the transactions already queued on it have finished, after writing
   * this handle's index rows still pending (others' when the lock is free; when that fails,
   * the next open writes them).
   */
  async close(): Promise<void> {
    if (this.engine.closed) return this.engine.close();
    await this.engine.transaction('none', 'close', () => {
      try {
        const lag = this.#lag();
        if (lag !== undefined) this.#catchUpNow(lag === 'own', Number.POSITIVE_INFINITY);
      } catch {
        // Derived rows: the next open of the file writes them.
      }
      this.engine.close();
    });
  }

  /** Closes the file now (a failed open, where nothing can be queued yet). */
  closeNow(): void {
    this.engine.close();
  }
}

/** A {@link StoreTx} that refuses use once its transaction's callback has settled. */
class LiveTx implements StoreTx {
  readonly #repos: SqliteRepositories;
  #live = true;

  constructor(repos: SqliteRepositories) {
    this.#repos = repos;
  }

  end(): void {
    this.#live = false;
  }

  #get<K extends keyof SqliteRepositories>(name: K): SqliteRepositories[K] {
    if (!this.#live)
      throw new HedgehopError(
        'CLOSED',
        `store.${name}: this transaction has ended (use the tx of a new store.read/store.write)`,
      );
    return this.#repos[name];
  }

  get agents(): AgentsRepo {
    return this.#get('agents');
  }
  get index(): IndexRepo {
    return this.#get('index');
  }
  get conversation(): ConversationRepo {
    return this.#get('conversation');
  }
  get radial(): RadialRepo {
    return this.#get('radial');
  }
  get knowledge(): KnowledgeRepo {
    return this.#get('knowledge');
  }
  get leases(): LeasesRepo {
    return this.#get('leases');
  }
  get recall(): RecallRepo {
    return this.#get('recall');
  }
  get reindex(): ReindexRepo {
    return this.#get('reindex');
  }
  get vectors(): VectorRepo {
    return this.#get('vectors');
  }
  get engram(): EngramRepo {
    return this.#get('engram');
  }
  get dream(): DreamRepo {
    return this.#get('dream');
  }
}
