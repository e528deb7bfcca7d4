import { HedgehopError } from '../core/errors.js';
import { AgentsRepo } from './agents-repo.js';
import { ConversationRepo } from './conversation-repo.js';
import { DreamRepo } from './dream-repo.js';
import { EngramRepo } from './engram-repo.js';
import { Engine, type EngineOptions } from './engine.js';
import { IndexRepo } from './index-repo.js';
import { IndexCatchUp } from './index-catch-up.js';
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
   * Check the file for nodes committed without their recall-index rows before the next read:
   * set at open and by every write of this connection (another connection's commits show in
   * `PRAGMA data_version`).
   */
  #indexCheck = true;
  #seenVersion = -1;

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
      radial: new RadialRepo(engine, index),
      knowledge: new KnowledgeRepo(engine, index),
      leases: new LeasesRepo(engine),
      recall: new RecallRepo(engine),
      reindex: new ReindexRepo(engine),
      engram,
      dream: new DreamRepo(engine, index, conversation),
    };
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
   * First writes the recall-index rows of nodes committed without them (see
   * {@link Store.catchUpIndex}), so a read finds every committed node.
   */
  read<T>(context: string, work: TxWork<T>): Promise<T> {
    if (this.#indexMayLag())
      return this.catchUpIndex(context).then(() =>
        this.engine.transaction('read', context, () => this.#run(work)),
      );
    return this.engine.transaction('read', context, () => this.#run(work));
  }

  /** Runs `work` as one atomic write transaction: all of it commits, or (when it throws) none. */
  write<T>(context: string, work: TxWork<T>): Promise<T> {
    this.#indexCheck = true;
    return this.engine.transaction('write', context, () => this.#run(work));
  }

  #indexMayLag(): boolean {
    if (this.readOnly || this.engine.closed) return false;
    return this.#indexCheck || this.engine.dataVersion() !== this.#seenVersion;
  }

  /**
   * Writes the recall-index rows of the nodes committed without them (a commit leaves them to
   * the next read: they are derived from the node's row, and the commit is the part an agent
   * waits for), in one write at `synchronous = NORMAL`: a crash can lose only rows that the
   * next read writes again, since the mark of what is indexed commits with them. Every read of
   * this connection runs it first; a read-only connection cannot, and sees a node's index rows
   * once a writer has read, closed or called this. Returns how many nodes it indexed.
   */
  catchUpIndex(context = 'index catch-up'): Promise<number> {
    if (this.readOnly) return Promise.resolve(0);
    return this.engine.transaction('none', context, () => this.#catchUpNow());
  }

  /** The catch-up, with the file's gate held and no transaction open. */
  #catchUpNow(): number {
    const version = this.engine.dataVersion();
    if (!this.#catchUp.indexLags()) {
      this.#indexCheck = false;
      this.#seenVersion = version;
      return 0;
    }
    const relaxed = this.engine.options.durability === 'full';
    if (relaxed) this.engine.statement('PRAGMA synchronous = NORMAL').run();
    try {
      const count = this.#catchUp.catchUp();
      this.#indexCheck = false;
      this.#seenVersion = version;
      return count;
    } finally {
      if (relaxed) this.engine.statement('PRAGMA synchronous = FULL').run();
    }
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
    if (this.#indexMayLag()) await this.catchUpIndex('stats');
    return this.engine.transaction('read', 'stats', () => fileStats(this.engine));
  }

  check(): Promise<CheckReport> {
    return this.engine.transaction('none', 'check', () => checkFile(this.engine));
  }

  /** Writes the index rows still pending (see {@link Store.catchUpIndex}), then moves the WAL into the file. */
  async checkpoint(): Promise<{ walFramesCheckpointed: number; busy: boolean }> {
    if (this.#indexMayLag()) await this.catchUpIndex('checkpoint');
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
    if (this.#indexMayLag()) await this.catchUpIndex(context);
    this.#indexCheck = true;
    return this.engine.transaction('none', context, work);
  }

  /**
   * Closes the file once the transactions already queued on it have finished, after writing
   * the index rows still pending (when that fails, the next open's first read writes them).
   */
  async close(): Promise<void> {
    if (this.engine.closed) return this.engine.close();
    await this.engine.transaction('none', 'close', () => {
      try {
        if (!this.readOnly) this.#catchUpNow();
      } catch {
        // Derived rows: the next read of the file writes them.
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
