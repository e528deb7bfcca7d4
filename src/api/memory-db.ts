import { MonotonicClock } from '../core/clock.js';
import { HedgehopError } from '../core/errors.js';
import { hasControlCharacter } from '../core/control-characters.js';
import { parseInput } from '../core/validate.js';
import { z } from 'zod';
import { OfflineSummarizer } from '../llm/offline-summarizer.js';
import type { MemoryContext, MemorySettings } from '../memory/context.js';
import type { CheckReport, FileStats } from '../store/maintenance.js';
import { Store } from '../store/store.js';
import { closeFailed, openStore, type MemoryStore } from '../store/memory-store.js';
import { compactServerStore } from './server-compact.js';
import type { AgentRow } from '../store/agents-repo.js';
import { Agent, type AgentInfo } from './agent.js';
import { provideStandaloneOpen } from './radial-memory.js';
import { KnowledgeStore } from './knowledge-store.js';
import {
  agentOptionsSchema,
  parseOpenOptions,
  type AgentOptions,
  type OpenOptions,
  type ResolvedOpenOptions,
} from './options.js';
import { ModelSummarizer } from '../llm/model-summarizer.js';
import type { LanguageModel, Summarizer } from '../llm/types.js';
import { completeSummarizer, type PartialSummarizer } from '../llm/partial-summarizer.js';
import { seedProfile } from '../memory/profile/profile.js';
import { profilePatchSchema } from '../core/model/conversation.js';
import { reindex, type ReindexOptions, type ReindexReport } from '../memory/recall/reindex.js';

/** The schema version that added the recall index. */
const INDEX_SCHEMA_VERSION = 5;

/** Name of the primary agent. */
export const PRIMARY_AGENT = 'primary';

const agentNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine((name) => Buffer.byteLength(name, 'utf8') <= 256, 'at most 256 bytes')
  .refine((name) => !hasControlCharacter(name), 'must not contain control characters');

const pathSchema = z.string().min(1, 'must not be empty');

const agentIdSchema = z.number().int('must be a whole number (an agent id)').min(1, 'must be 1 or more');

function toInfo(row: AgentRow): AgentInfo {
  return { id: row.id, name: row.name, primary: row.isPrimary, createdAt: row.createdAt };
}

/**
 * The summariser of an agent: the one given (a partial one completed by the model, or by the
 * offline summariser when there is no model), else one over the model, else the offline one.
 */
function chooseSummarizer(options: {
  readonly summarizer?: Summarizer | PartialSummarizer | undefined;
  readonly llm?: LanguageModel | undefined;
}): Summarizer {
  const { llm } = options;
  const fallback = (): Summarizer => (llm ? new ModelSummarizer(llm) : new OfflineSummarizer());
  if (options.summarizer) return completeSummarizer(options.summarizer, fallback);
  return fallback();
}

/**
 * An open memory file. Get agents from it, and maintain it.
 */
export class MemoryDB {
  readonly #store: MemoryStore;
  readonly #options: ResolvedOpenOptions;
  readonly #summarizer: Summarizer;
  readonly #clock: MonotonicClock;
  readonly #settings: MemorySettings;
  readonly #agents = new Map<string, Agent>();
  readonly #models = new Map<string, { summarizer: Summarizer }>();
  readonly #primary: Agent;
  #knowledge: KnowledgeStore | undefined;

  private constructor(
    store: MemoryStore,
    options: ResolvedOpenOptions,
    clock: MonotonicClock,
    primary: AgentRow,
  ) {
    this.#store = store;
    this.#options = options;
    this.#summarizer = chooseSummarizer(options);
    this.#clock = clock;
    this.#settings = {
      originTokenBudget: options.originTokenBudget,
      retentionMs: options.retention === false ? undefined : options.retention.archiveMs,
      dream: options.dream,
    };
    this.#primary = this.#makeAgent(primary);
  }

  /** The primary agent's row, created on a writable file's first open. */
  static async #primaryRow(store: MemoryStore, readOnly: boolean, clock: MonotonicClock): Promise<AgentRow> {
    // Read first: opening a file that has its primary agent takes no write lock (reads never block).
    const found = await store.read('open', (tx) => tx.agents.primary());
    const row =
      found ??
      (readOnly
        ? undefined
        : await store.write('open', (tx) => tx.agents.ensurePrimary(PRIMARY_AGENT, clock.now())));
    if (!row)
      throw new HedgehopError('NOT_FOUND', `${store.path} has no primary agent (open it writable once)`);
    return row;
  }

  /** @internal Use {@link openMemory}. */
  static async open(path: string, options?: OpenOptions): Promise<MemoryDB> {
    const checkedPath = parseInput(pathSchema, path, 'path');
    const resolved = parseOpenOptions(options);
    if (resolved.profile) parseInput(profilePatchSchema, resolved.profile, 'options.profile');
    const store = await openStore(checkedPath, {
      durability: resolved.durability,
      mode: resolved.mode,
      busyTimeoutMs: resolved.busyTimeoutMs,
      readOnly: resolved.readOnly,
    });
    try {
      const clock = new MonotonicClock(resolved.clock);
      const primary = await MemoryDB.#primaryRow(store, resolved.readOnly, clock);
      const db = new MemoryDB(store, resolved, clock, primary);
      // The file is the source of truth: a given profile only seeds an agent that has none.
      if (resolved.profile && !resolved.readOnly)
        await seedProfile(db.#primary.memoryContext, resolved.profile);
      // The recall index arrived in schema 5: a file migrated from before it has verbatim
      // records but no index rows yet, so build them once, now.
      if (store.migratedFrom > 0 && store.migratedFrom < INDEX_SCHEMA_VERSION) await reindex(store);
      return db;
    } catch (error) {
      await closeFailed(store);
      throw error;
    }
  }

  #makeAgent(row: AgentRow, summarizer: Summarizer = this.#summarizer): Agent {
    // The summariser is read through a getter, so `agent(name, { llm })` can re-point an agent
    // already open (as MemHop's SubAgent does) and every handle of it follows.
    const model = { summarizer };
    const context: MemoryContext = {
      store: this.#store,
      agentId: row.id,
      agentName: row.name,
      get summarizer() {
        return model.summarizer;
      },
      embedder: this.#options.embedder,
      clock: this.#clock,
      settings: this.#settings,
    };
    const agent = new Agent(context, toInfo(row));
    this.#agents.set(row.name, agent);
    this.#models.set(row.name, model);
    return agent;
  }

  /** Absolute path of the file. */
  get path(): string {
    return this.#store.path;
  }

  /** True once {@link MemoryDB.close} has run. */
  get closed(): boolean {
    return this.#store.closed;
  }

  #assertOpen(what: string): void {
    this.#store.assertOpen(what);
  }

  /** The primary agent. */
  primary(): Agent {
    this.#assertOpen('primary');
    return this.#primary;
  }

  /** The file-wide knowledge graphs, shared by every agent of the file. */
  get knowledge(): KnowledgeStore {
    this.#assertOpen('knowledge');
    this.#knowledge ??= new KnowledgeStore(this.#store, this.#clock);
    return this.#knowledge;
  }

  /**
   * The named agent, created on first use; the same name always gives the same agent. A
   * number opens an existing agent by its id (`agent.info().id`; `NOT_FOUND` when there is
   * none, and nothing is created). `options.profile` seeds the profile of an agent that has
   * none (a stored profile is never overwritten); `options.llm` (or `summarizer`) gives the
   * agent its own model for its summaries, keywords and Dream, also re-pointing an agent
   * already open. Bad options are `INVALID_INPUT` and nothing is written.
   *
   * @example
   * ```ts
   * const researcher = await db.agent('researcher', {
   *   profile: { name: 'researcher', role: 'reads papers' },
   *   llm: createOpenAICompatible({ model: 'gpt-4o-mini' }),
   * });
   * const same = await db.agent(researcher.info().id);
   * ```
   */
  async agent(nameOrId: string | number, options?: AgentOptions): Promise<Agent> {
    this.#assertOpen('agent');
    const checked = parseInput(agentOptionsSchema, options ?? {}, 'options');
    if (checked.profile) parseInput(profilePatchSchema, checked.profile, 'options.profile');
    const own = checked.llm || checked.summarizer ? chooseSummarizer(checked) : undefined;
    const agent =
      typeof nameOrId === 'number'
        ? await this.#agentById(nameOrId, own)
        : await this.#agentByName(nameOrId, own);
    if (checked.profile && !this.#options.readOnly)
      await seedProfile(agent.memoryContext, checked.profile, 'options.profile');
    return agent;
  }

  async #agentByName(name: unknown, own: Summarizer | undefined): Promise<Agent> {
    const checked = parseInput(agentNameSchema, name, 'name');
    const cached = this.#cached(checked, own);
    if (cached) return cached;
    // Read first: opening an agent the file holds takes no write lock.
    const row = await this.#store.read('agent', (tx) => tx.agents.byName(checked));
    if (row) return this.#cached(checked, own) ?? this.#makeAgent(row, own);
    if (this.#options.readOnly)
      throw new HedgehopError('NOT_FOUND', `no agent named '${checked}' in ${this.path}`);
    const now = this.#clock.now();
    const { agent } = await this.#store.write('agent', (tx) => tx.agents.ensure(checked, now));
    return this.#cached(checked, own) ?? this.#makeAgent(agent, own);
  }

  async #agentById(id: number, own: Summarizer | undefined): Promise<Agent> {
    const checked = parseInput(agentIdSchema, id, 'id');
    const row = await this.#store.read('agent', (tx) => tx.agents.byId(checked));
    if (!row)
      throw new HedgehopError(
        'NOT_FOUND',
        `no agent with id ${checked} in ${this.path}; listing the file's agents shows their ids`,
        {
          field: 'id',
        },
      );
    return this.#cached(row.name, own) ?? this.#makeAgent(row, own);
  }

  #cached(name: string, own: Summarizer | undefined): Agent | undefined {
    const cached = this.#agents.get(name);
    const model = this.#models.get(name);
    if (cached && model && own) model.summarizer = own;
    return cached;
  }

  /** Every agent of the file, primary first. */
  async agents(): Promise<AgentInfo[]> {
    this.#assertOpen('agents');
    return (await this.#store.read('agents', (tx) => tx.agents.list())).map(toInfo);
  }

  /** File size, WAL size, live rows per layer and pending derived work. */
  async stats(): Promise<FileStats> {
    this.#assertOpen('stats');
    return this.#store.stats();
  }

  /**
   * A number that changes whenever another connection (another process, or another
   * `openMemory` of the same file) commits; poll it to notice outside writes cheaply.
   */
  async dataVersion(): Promise<number> {
    this.#assertOpen('dataVersion');
    return this.#store.dataVersion();
  }

  /** Copies the WAL into the main file (it also happens automatically). */
  async checkpoint(): Promise<{ walFramesCheckpointed: number; busy: boolean; note?: string }> {
    this.#assertOpen('checkpoint');
    return this.#store.checkpoint();
  }

  /** Writes a defragmented copy to `path` (a new file; never the open one). */
  async compactTo(path: string): Promise<{ path: string; bytesBefore: number; bytesAfter: number }> {
    this.#assertOpen('compactTo');
    const checked = parseInput(pathSchema, path, 'path');
    if (this.#store instanceof Store) return this.#store.compactTo(checked);
    return compactServerStore(this.#store, checked);
  }

  /** Verifies the whole file; throws `CORRUPT` with what was found. */
  async check(): Promise<CheckReport> {
    this.#assertOpen('check');
    return this.#store.check();
  }

  /**
   * Rebuilds the recall index of every agent from the verbatim records (the index is derived
   * data and can always be rebuilt); reports rows written per layer.
   */
  async reindex(options: ReindexOptions = {}): Promise<ReindexReport> {
    this.#assertOpen('reindex');
    return reindex(this.#store, options);
  }

  /**
   * @internal Writes now the recall-index rows that commits leave out of their transaction
   * (SQLite; see `Store.catchUpIndex`). This handle writes them itself once the event loop
   * turns, and before its own reads; an adapter whose reads run on other, read-only handles
   * calls it after each write, before answering, so its client finds what it wrote.
   */
  async catchUpIndex(): Promise<void> {
    if (this.#store instanceof Store) await this.#store.catchUpIndex();
  }

  /** Closes the file and releases its lock. A second close is a `CLOSED` error. */
  async close(): Promise<void> {
    if (!this.#store.closed) {
      // A Dream pass in flight is cancelled (it applies nothing) and awaited, so none outlives the file.
      await Promise.all([...this.#agents.values()].map((agent) => agent.stopBackground()));
    }
    await this.#store.close();
  }

  /** @internal For tests inside hedgehop: the SQLite store (`IO` on a PostgreSQL memory). */
  get store(): Store {
    if (this.#store instanceof Store) return this.#store;
    throw new HedgehopError('IO', `store: ${this.path} is on PostgreSQL; this internal accessor is SQLite's`);
  }

  /** @internal For adapters inside hedgehop: the memory's store, on either engine. */
  get memoryStore(): MemoryStore {
    return this.#store;
  }
}

export { isServerUrl, memoryExists } from '../store/memory-store.js';

/**
 * Opens (or creates) a memory file.
 *
 * @example
 * ```ts
 * import { openMemory } from 'hedgehop';
 * const db = await openMemory('memory.db');
 * console.log(await db.primary().context.reset());
 * await db.close();
 * ```
 */
export async function openMemory(path: string, options?: OpenOptions): Promise<MemoryDB> {
  return MemoryDB.open(path, options);
}

provideStandaloneOpen(async (path, options) => {
  const db = await openMemory(path, options);
  return { context: db.primary().memoryContext, close: () => db.close() };
});
