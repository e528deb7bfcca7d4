import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HedgehopError, type ErrorCode, type ErrorRemedy } from '../core/errors.js';

/** The validated inputs of a read route, as they cross to a worker (structured-clonable data). */
export interface ReadInput {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
}

/** Runs read routes somewhere else than the event loop; `route` is `'get /api/stats'`-style. */
export interface ReadRunner {
  run(route: string, input: ReadInput): Promise<unknown>;
}

/** What a worker is told at start. */
export interface ReadWorkerData {
  /** The memory's location as the caller gave it (a path, or a `postgres://` URL). */
  readonly file: string;
  readonly busyTimeoutMs: number;
}

/** A failure as it crosses back: a hedgehop error keeps its code, field, path and remedy. */
export interface SerializedError {
  readonly hedgehop: boolean;
  readonly code?: ErrorCode;
  readonly message: string;
  readonly field?: string;
  readonly path?: readonly (string | number)[];
  readonly remedy?: ErrorRemedy;
  readonly stack?: string;
}

/** A worker's messages: `ready` once its memory is open, `failed` if it could not open it, answers. */
export type WorkerMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly error: SerializedError }
  | { readonly type: 'done'; readonly id: number; readonly result: unknown }
  | { readonly type: 'error'; readonly id: number; readonly error: SerializedError };

/** The main thread's messages to a worker. */
export type MainMessage =
  | { readonly type: 'run'; readonly id: number; readonly route: string; readonly input: ReadInput }
  | { readonly type: 'close' };

/** Turns an error into data a worker can post. */
export function serializeError(error: unknown): SerializedError {
  if (HedgehopError.isInstance(error)) {
    return {
      hedgehop: true,
      code: error.code,
      message: error.message,
      ...(error.field === undefined ? {} : { field: error.field }),
      ...(error.path === undefined ? {} : { path: [...error.path] }),
      ...(error.remedy === undefined ? {} : { remedy: error.remedy }),
    };
  }
  const plain = error instanceof Error ? error : new Error(String(error));
  return { hedgehop: false, message: plain.message, ...(plain.stack ? { stack: plain.stack } : {}) };
}

/** The error a worker reported, rebuilt on this side (same code, field, path and remedy). */
export function deserializeError(data: SerializedError): Error {
  if (data.hedgehop && data.code !== undefined) {
    return new HedgehopError(data.code, data.message, {
      ...(data.field === undefined ? {} : { field: data.field }),
      ...(data.path === undefined ? {} : { path: data.path }),
      ...(data.remedy === undefined ? {} : { remedy: data.remedy }),
    });
  }
  const error = new Error(data.message);
  if (data.stack) error.stack = data.stack;
  return error;
}

/**
 * The worker script. Running from the built package it sits beside this module; running from
 * the TypeScript sources (tests), the built copy in dist/ is used, since a worker cannot load
 * TypeScript on Node 20.
 */
function workerScript(): URL {
  const beside = new URL('./read-worker.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts')) return beside;
  const built = new URL('../../dist/src/http/read-worker.js', import.meta.url);
  if (!existsSync(fileURLToPath(built))) {
    throw new HedgehopError(
      'IO',
      `read workers need the built package: run 'npm run build' (no ${fileURLToPath(built)})`,
    );
  }
  return built;
}

interface Job {
  readonly id: number;
  readonly route: string;
  readonly input: ReadInput;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

/** Options of {@link ReadPool.start}. */
export interface ReadPoolOptions extends ReadWorkerData {
  /** How many worker threads (each with its own read connection). */
  readonly workers: number;
}

/**
 * A small pool of worker threads, each with its own read-only handle on the memory, that run
 * the HTTP API's read routes off the event loop: a long recall or navigation (synchronous
 * SQLite work and ranking) then keeps no other request waiting. SQLite in WAL mode lets any
 * number of readers run beside the one writer, and each read sees every write committed before
 * it began, so a read sent after a write's answer sees that write. Writes stay on the main
 * thread, in the order they arrive.
 *
 * Requests queue when every worker is busy; a worker that dies fails the request it held (500)
 * and is replaced. {@link ReadPool.close} lets the running requests finish, refuses the queued
 * ones with `CLOSED`, closes every worker's handle and waits for the threads to exit.
 */
export class ReadPool implements ReadRunner {
  readonly #options: ReadPoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closing: Promise<void> | undefined;

  private constructor(options: ReadPoolOptions) {
    this.#options = options;
  }

  /** Starts the workers and waits until each has opened the memory (its error otherwise). */
  static async start(options: ReadPoolOptions): Promise<ReadPool> {
    const pool = new ReadPool(options);
    const started = await Promise.allSettled(Array.from({ length: options.workers }, () => pool.#spawn()));
    const failure = started.find((outcome) => outcome.status === 'rejected');
    if (failure) {
      await pool.close();
      throw failure.reason;
    }
    return pool;
  }

  /** How many workers run. */
  get size(): number {
    return this.#slots.length;
  }

  #spawn(): Promise<Slot> {
    const data: ReadWorkerData = { file: this.#options.file, busyTimeoutMs: this.#options.busyTimeoutMs };
    const worker = new Worker(workerScript(), { workerData: data });
    const slot: Slot = { worker, job: undefined };
    return new Promise<Slot>((resolve, reject) => {
      let ready = false;
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          ready = true;
          this.#slots.push(slot);
          resolve(slot);
          this.#pump();
        } else if (message.type === 'failed') {
          reject(deserializeError(message.error));
        } else if (slot.job?.id === message.id) {
          const job = slot.job;
          slot.job = undefined;
          if (message.type === 'done') job.resolve(message.result);
          else job.reject(deserializeError(message.error));
          this.#pump();
        }
      });
      worker.on('error', (error) => {
        if (!ready) reject(error);
        slot.job?.reject(error);
        slot.job = undefined;
      });
      worker.on('exit', (code) => {
        const index = this.#slots.indexOf(slot);
        if (index >= 0) this.#slots.splice(index, 1);
        if (!ready) {
          reject(new HedgehopError('IO', `a read worker exited with ${code} before it opened the memory`));
          return;
        }
        const job = slot.job;
        slot.job = undefined;
        job?.reject(new Error(`the read worker running ${job.route} exited with ${code}`));
        if (this.#closing === undefined) {
          // Replace it, so one crash does not shrink the pool for good.
          this.#spawn().catch((error: unknown) => this.#failQueued(error));
        }
      });
    });
  }

  /** Runs `route` with `input` on a free worker (queued until one is free). */
  run(route: string, input: ReadInput): Promise<unknown> {
    if (this.#closing !== undefined) {
      return Promise.reject(new HedgehopError('CLOSED', `${route}: the server is shutting down`));
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, route, input, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    for (const slot of this.#slots) {
      if (this.#queue.length === 0) return;
      if (slot.job !== undefined) continue;
      const job = this.#queue.shift() as Job;
      slot.job = job;
      const message: MainMessage = { type: 'run', id: job.id, route: job.route, input: job.input };
      try {
        slot.worker.postMessage(message);
      } catch (error) {
        slot.job = undefined;
        job.reject(error);
      }
    }
  }

  #failQueued(error: unknown): void {
    if (this.#slots.length > 0) return;
    for (const job of this.#queue.splice(0)) job.reject(error);
  }

  /** Waits for running requests, refuses queued ones, closes the workers' handles and threads. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    for (const job of this.#queue.splice(0)) {
      job.reject(new HedgehopError('CLOSED', `${job.route}: the server is shutting down`));
    }
    await Promise.all(
      [...this.#slots].map(
        (slot) =>
          new Promise<void>((resolve) => {
            const finish = (): void => {
              clearTimeout(timer);
              resolve();
            };
            // A worker closes its handle and exits on its own; one that hangs is stopped.
            const timer = setTimeout(() => void slot.worker.terminate(), 10_000);
            slot.worker.once('exit', finish);
            const close = (): void => {
              slot.worker.postMessage({ type: 'close' } satisfies MainMessage);
            };
            if (slot.job === undefined) close();
            else {
              const job = slot.job;
              const original = { resolve: job.resolve, reject: job.reject };
              slot.job = {
                ...job,
                resolve: (value) => {
                  original.resolve(value);
                  close();
                },
                reject: (error) => {
                  original.reject(error);
                  close();
                },
              };
            }
          }),
      ),
    );
  }
}
