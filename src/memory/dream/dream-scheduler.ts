import { systemClock, type Clock } from '../../core/clock.js';
import { HedgehopError, notFound } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { DreamRunRow } from '../../store/dream-repo.js';
import type { MemoryContext } from '../context.js';
import { runDreamPass, type PassLease } from './dream-pass.js';
import { checkUndo, undoPass } from './dream-apply.js';
import type { DreamReport, UndoDreamReport } from '../../core/model/dream.js';
import { DREAM_CALL_TIMEOUT_MS, messageOf } from './stage-summarizer.js';

/** Options of a {@link DreamScheduler} (tests shorten the bounds). */
interface DreamSchedulerOptions {
  /** Bound on one summariser call. */
  readonly callTimeoutMs?: number;
  /** Lease lifetime; renewed between stages, so it bounds how long a crashed worker blocks others. */
  readonly leaseTtlMs?: number;
  /** Wall clock for lease expiry (leases are compared across processes, so never a test clock). */
  readonly wallClock?: Clock;
}

/** Default lease lifetime. */
const DREAM_LEASE_TTL_MS = 60_000;

/**
 * Runs an agent's Dream passes: at most one in flight per agent, in this process (a promise) and
 * across processes (a lease row `dream:<agent id>` with an expiry, so a crashed worker's lease
 * lapses). Background passes are started after `update` when a scene's surface passes the
 * threshold; their failures end up in their report and never reach the caller's turn.
 * `stop()` cancels the pass in flight and waits for it (`db.close()` calls it).
 */
export class DreamScheduler {
  readonly #context: MemoryContext;
  readonly #owner = `${process.pid}:${newId('dw')}`;
  readonly #abort = new AbortController();
  readonly #callTimeoutMs: number;
  readonly #leaseTtlMs: number;
  readonly #wall: Clock;
  // Surface size of each scene when a background pass last took it on: a scene the model
  // declined to compress is offered again only after it has grown (MemHop re-asked every turn).
  readonly #attempted = new Map<string, number>();
  #inFlight: Promise<unknown> | undefined;
  #stopped = false;
  #lastBackgroundError: string | undefined;

  constructor(context: MemoryContext, options: DreamSchedulerOptions = {}) {
    this.#context = context;
    this.#callTimeoutMs = options.callTimeoutMs ?? DREAM_CALL_TIMEOUT_MS;
    this.#leaseTtlMs = options.leaseTtlMs ?? DREAM_LEASE_TTL_MS;
    this.#wall = options.wallClock ?? systemClock;
  }

  /** The lease name of this agent's passes. */
  get leaseName(): string {
    return `dream:${this.#context.agentId}`;
  }

  /** Why the last background pass could not run or record itself, if it failed that badly. */
  get lastBackgroundError(): string | undefined {
    return this.#lastBackgroundError;
  }

  /** True while a pass of this scheduler is running. */
  get busy(): boolean {
    return this.#inFlight !== undefined;
  }

  /**
   * Runs a pass now (after any pass of this process finishes). `BUSY` when another process holds
   * the agent's Dream lease; `NOT_FOUND` for an unknown scene; `CLOSED` once stopped.
   */
  async dream(sceneId: string | undefined): Promise<DreamReport> {
    do await this.#settled();
    while (this.#inFlight !== undefined);
    this.#assertRunning('dream');
    const agentId = this.#context.agentId;
    if (
      sceneId !== undefined &&
      !(await this.#context.store.read('dream', (tx) => tx.dream.hasScene(agentId, sceneId)))
    ) {
      throw notFound(`dream: no scene ${sceneId} for this agent`);
    }
    await this.#acquireOrThrow('dream');
    return this.#track(this.#run(sceneId, 'explicit'));
  }

  /**
   * Called after a turn closed in `sceneId`: starts a background pass for that scene when its
   * surface exceeds `dream.topicThreshold`, automatic Dream is on, and no pass is in flight.
   * `surfaceCount` is the scene's surface as the closing transaction left it. Never throws and
   * never waits for the pass.
   */
  afterUpdate(sceneId: string, surfaceCount: number): void {
    try {
      const settings = this.#context.settings.dream;
      if (!settings.auto || this.#stopped || this.#inFlight !== undefined) return;
      if (surfaceCount <= settings.topicThreshold) return;
      const step = Math.max(1, settings.topicThreshold - settings.compressMinTopics);
      const last = this.#attempted.get(sceneId);
      if (last !== undefined && surfaceCount < last + step) return;
      this.#attempted.set(sceneId, surfaceCount);
      void this.#track(
        new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#background(sceneId)),
      );
    } catch (error) {
      this.#lastBackgroundError = messageOf(error);
    }
  }

  /** Resolves when no pass of this scheduler is in flight. */
  async idle(): Promise<void> {
    await this.#settled();
  }

  /** Undoes pass `id` (after any pass of this process finishes), under the agent's lease. */
  async undo(id: string): Promise<UndoDreamReport> {
    do await this.#settled();
    while (this.#inFlight !== undefined);
    this.#assertRunning('undoDream');
    // Refusals come before the lease is taken, so a refused undo leaves the file untouched.
    const agentId = this.#context.agentId;
    await this.#context.store.read('undoDream', (tx) => checkUndo(tx, agentId, id));
    await this.#acquireOrThrow('undoDream');
    try {
      const lease = { name: this.leaseName, owner: this.#owner, now: this.#wall.now() };
      const now = this.#context.clock.now();
      const result = await this.#context.store.write('undoDream', (tx) =>
        undoPass(tx, agentId, id, now, lease),
      );
      return { id, ...result };
    } finally {
      await this.#release();
    }
  }

  /** The holder of this agent's Dream lease now, if any. */
  async holder(): Promise<string | undefined> {
    const now = this.#wall.now();
    return (await this.#context.store.read('dream lease', (tx) => tx.leases.holder(this.leaseName, now)))
      ?.owner;
  }

  /** True when `run` is running now, here or in a live process. */
  async isLive(run: DreamRunRow): Promise<boolean> {
    return run.status === 'running' && (await this.holder()) === run.owner;
  }

  /** Cancels the pass in flight and waits for it; no pass starts afterwards. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    await this.#settled();
  }

  async #settled(): Promise<void> {
    while (this.#inFlight !== undefined) {
      const current = this.#inFlight;
      await current.catch(() => undefined);
      if (this.#inFlight === current) this.#inFlight = undefined;
    }
  }

  #track<T>(promise: Promise<T>): Promise<T> {
    const tracked = promise.finally(() => {
      if (this.#inFlight === tracked) this.#inFlight = undefined;
    });
    this.#inFlight = tracked;
    return tracked;
  }

  #assertRunning(what: string): void {
    if (this.#stopped) throw new HedgehopError('CLOSED', `${what}: the memory file is closing`);
  }

  async #background(sceneId: string): Promise<void> {
    try {
      if (this.#stopped || !(await this.#tryAcquire())) return;
      await this.#run(sceneId, 'background');
      this.#lastBackgroundError = undefined;
    } catch (error) {
      // A background pass records its own failures in its report; this is for a pass that could
      // not even do that (e.g. the file closed under it). Never thrown into anyone's turn.
      this.#lastBackgroundError = messageOf(error);
    }
  }

  async #run(sceneId: string | undefined, startedBy: 'explicit' | 'background'): Promise<DreamReport> {
    try {
      return await runDreamPass(this.#context, {
        sceneId,
        startedBy,
        lease: this.#lease(),
        signal: this.#abort.signal,
        callTimeoutMs: this.#callTimeoutMs,
      });
    } finally {
      await this.#release();
    }
  }

  #lease(): PassLease {
    return {
      name: this.leaseName,
      owner: this.#owner,
      renew: () => this.#tryAcquire(),
      wallNow: () => this.#wall.now(),
    };
  }

  async #tryAcquire(): Promise<boolean> {
    try {
      return await this.#acquire();
    } catch {
      return false;
    }
  }

  #acquire(): Promise<boolean> {
    const now = this.#wall.now();
    return this.#context.store.write('dream lease', (tx) =>
      tx.leases.acquire(this.leaseName, this.#owner, this.#leaseTtlMs, now),
    );
  }

  async #acquireOrThrow(what: string): Promise<void> {
    if (await this.#acquire()) return;
    const now = this.#wall.now();
    const holder = await this.#context.store.read('dream lease', (tx) =>
      tx.leases.holder(this.leaseName, now),
    );
    throw new HedgehopError(
      'BUSY',
      `${what}: another process is running Dream for this agent (lease ${this.leaseName} held by ${holder?.owner ?? '?'} until ${holder ? new Date(holder.expiresAt).toISOString() : '?'}); try again later`,
    );
  }

  async #release(): Promise<void> {
    try {
      if (!this.#context.store.closed)
        await this.#context.store.write('dream lease', (tx) =>
          tx.leases.release(this.leaseName, this.#owner),
        );
    } catch {
      // the lease expires on its own
    }
  }
}
