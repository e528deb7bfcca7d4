import type pg from 'pg';

/**
 * How long one statement may go unanswered by default (30 s): far beyond any statement hedgehop
 * sends to a healthy server, short enough that a host that stopped answering (a network
 * partition: no reset, no close) fails the call instead of hanging it.
 */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/** TCP keep-alive on every connection: an idle pooled connection to a vanished host is noticed. */
export const KEEP_ALIVE = { keepAlive: true, keepAliveInitialDelayMillis: 10_000 } as const;

/**
 * The statement bound the engine applies: the URL's `?query_timeout=` (0 turns it off), else
 * {@link DEFAULT_QUERY_TIMEOUT_MS}; never shorter than a row-lock wait plus a second, so a
 * statement queued behind another transaction's lock fails `BUSY` (the server's `lock_timeout`)
 * rather than as an unanswered connection.
 */
export function queryTimeoutMs(fromUrl: number | undefined, busyTimeoutMs: number): number {
  const chosen = fromUrl ?? DEFAULT_QUERY_TIMEOUT_MS;
  return chosen === 0 ? 0 : Math.max(chosen, busyTimeoutMs + 1000);
}

/** A statement that got no answer within the bound; its connection was closed. */
export class PgQueryTimeout extends Error {
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`no answer from the server within ${timeoutMs} ms (the connection was closed)`);
    this.name = 'PgQueryTimeout';
    this.timeoutMs = timeoutMs;
  }
}

/** True for {@link PgQueryTimeout}. */
export function isQueryTimeout(error: unknown): error is PgQueryTimeout {
  return error instanceof PgQueryTimeout;
}

/** The socket under a node-postgres client (not in its typings; present in pg 8). */
function socketOf(client: pg.ClientBase): { destroy(): void } | undefined {
  const connection = (client as unknown as { connection?: { stream?: { destroy?: unknown } } }).connection;
  const stream = connection?.stream;
  return typeof stream?.destroy === 'function' ? (stream as { destroy(): void }) : undefined;
}

const bounded = new WeakSet<pg.ClientBase>();

/**
 * Bounds every promise-style `client.query(…)` of `client` by `timeoutMs` (0: no bound): when no
 * answer came in time, the client's socket is destroyed (whatever the server does with the
 * statement, this connection is never used again, so a late answer cannot be mistaken for the
 * next statement's) and the call rejects with {@link PgQueryTimeout}. Callback-style calls (the
 * pool's own) pass through. Idempotent.
 */
export function boundQueries(client: pg.ClientBase, timeoutMs: number): void {
  if (timeoutMs <= 0 || bounded.has(client)) return;
  bounded.add(client);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    if (typeof args[args.length - 1] === 'function') return query(...args);
    const pending = query(...args);
    if (!(pending instanceof Promise)) return pending;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        socketOf(client)?.destroy();
        reject(new PgQueryTimeout(timeoutMs));
      }, timeoutMs);
    });
    return Promise.race([pending, expired]).finally(() => clearTimeout(timer));
  };
}

/** The writable socket under a node-postgres client, for corking (see {@link coalesceWrites}). */
function corkable(client: pg.ClientBase): { cork(): void; uncork(): void } | undefined {
  const stream = (client as unknown as { connection?: { stream?: { cork?: unknown; uncork?: unknown } } })
    .connection?.stream;
  return typeof stream?.cork === 'function' && typeof stream.uncork === 'function'
    ? (stream as { cork(): void; uncork(): void })
    : undefined;
}

const coalesced = new WeakSet<pg.ClientBase>();

/**
 * Statements `client` is given in one turn of the event loop go out in one socket write. The
 * engine sends a transaction's independent statements together (pipeline mode: one round trip),
 * but node-postgres writes each statement's messages with a system call of its own; corking the
 * socket until the current turn ends (`process.nextTick`) sends them all with one. Nothing waits
 * longer than the turn that sent it. Idempotent.
 */
export function coalesceWrites(client: pg.ClientBase): void {
  if (coalesced.has(client)) return;
  coalesced.add(client);
  let corked = false;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const socket = corked ? undefined : corkable(client);
    if (socket) {
      corked = true;
      socket.cork();
      process.nextTick(() => {
        corked = false;
        socket.uncork();
      });
    }
    return query(...args);
  };
}
