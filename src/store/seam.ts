/**
 * The engine seam: what `memory/`, `recall/` and `api/` may ask of a database. Everything here
 * is engine-neutral. An engine (SQLite today, PostgreSQL next) provides a {@link StoreSeam}
 * whose `read`/`write` run a callback as one transaction and hand it a {@link StoreTx}: the
 * repositories, reachable only inside that callback. Repository methods may return a value or
 * a Promise ({@link Awaitable}); callers always `await` them, so a synchronous engine costs a
 * microtask per call and an asynchronous one (node-postgres) fits the same code.
 */
import type { AgentsRepo } from './agents-repo.js';
import type { ConversationRepo } from './conversation-repo.js';
import type { DreamRepo } from './dream-repo.js';
import type { EngramRepo } from './engram-repo.js';
import type { IndexRepo } from './index-repo.js';
import type { KnowledgeRepo } from './knowledge-repo.js';
import type { LeasesRepo } from './leases-repo.js';
import type { RadialRepo } from './radial-repo.js';
import type { RecallRepo } from './recall-repo.js';
import type { ReindexRepo } from './reindex-repo.js';
import type { VectorRepo } from './vector-repo.js';

/** A value now, or later. */
export type Awaitable<T> = T | PromiseLike<T>;

/**
 * The engine-neutral face of a repository: each method keeps its parameters and may return its
 * result or a Promise of it; nested repositories (`conversation.scenes`) are faced alike.
 */
export type Repository<R> = {
  readonly [K in keyof R]: R[K] extends (...args: infer A) => infer T
    ? (...args: A) => Awaitable<T>
    : Repository<R[K]>;
};

export type AgentsRepository = Repository<AgentsRepo>;
export type IndexRepository = Repository<IndexRepo>;
export type ConversationRepository = Repository<ConversationRepo>;
export type RadialRepository = Repository<RadialRepo>;
export type KnowledgeRepository = Repository<KnowledgeRepo>;
export type LeasesRepository = Repository<LeasesRepo>;
export type RecallRepository = Repository<RecallRepo>;
export type ReindexRepository = Repository<ReindexRepo>;
export type VectorRepository = Repository<VectorRepo>;
export type EngramRepository = Repository<EngramRepo>;
export type DreamRepository = Repository<DreamRepo>;

/** The repositories of one transaction. Valid only until its callback settles. */
export interface StoreTx {
  readonly agents: AgentsRepository;
  readonly index: IndexRepository;
  readonly conversation: ConversationRepository;
  readonly radial: RadialRepository;
  readonly knowledge: KnowledgeRepository;
  readonly leases: LeasesRepository;
  readonly recall: RecallRepository;
  readonly reindex: ReindexRepository;
  readonly vectors: VectorRepository;
  readonly engram: EngramRepository;
  readonly dream: DreamRepository;
}

/** How a write may be run (see {@link StoreSeam.write}). */
export interface WriteOptions {
  /**
   * The callback makes one repository call and returns its result, nothing after it. An engine
   * that talks to a server may then send COMMIT together with that call's last statement (a
   * round trip fewer); such a write is never run again after a lost connection, since its
   * COMMIT may have been applied. The SQLite engine ignores it.
   */
  readonly oneCall?: boolean;
  /**
   * Running the callback again is safe whatever became of an earlier run: its write is keyed
   * (a node's id made by the caller), so a run that finds an earlier one's rows writes nothing
   * and returns what they hold. An engine that talks to a server then runs it again after a lost
   * connection even once its COMMIT was sent, instead of failing with "may or may not have been
   * applied". The SQLite engine ignores it.
   */
  readonly idempotent?: boolean;
}

/** A callback run as one transaction. It must not call a model or an embedder (compute first). */
export type TxWork<T> = (tx: StoreTx) => Awaitable<T>;

/**
 * How the layers above reach the database. `write` runs `work` as one atomic transaction
 * (committed when it resolves, rolled back when it throws); `read` runs it against one
 * consistent snapshot and refuses writes. Concurrent callers in one process are serialized
 * per file, so no callback ever sees another's uncommitted rows. `context` names the
 * operation in errors (`BUSY`, `CLOSED`, `READ_ONLY`).
 */
export interface StoreSeam {
  /** Where the memory lives (a file path; a URL for a server engine), for messages. */
  readonly path: string;
  /** True when the memory was opened read-only (every `write` fails with `READ_ONLY`). */
  readonly readOnly: boolean;
  /** True once the store has been closed (every call fails with `CLOSED`). */
  readonly closed: boolean;
  read<T>(context: string, work: TxWork<T>): Promise<T>;
  write<T>(context: string, work: TxWork<T>, options?: WriteOptions): Promise<T>;
}
