import type { Server } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { MemoryDB } from '../api/memory-db.js';
import { HedgehopError, invalidInput } from '../core/errors.js';
import { parseInput } from '../core/validate.js';
import { createHttpApp, LOOPBACK_NAMES, type HttpAppOptions } from './create-http-app.js';
import { ReadPool } from './read-pool.js';

/** Default port of `hedgehop serve`. */
export const DEFAULT_PORT = 4747;

/** Options of {@link startServer}: where to listen, plus everything {@link createHttpApp} takes. */
export interface ServerOptions extends HttpAppOptions {
  /** Address to bind (default `127.0.0.1`); anything but loopback requires `token`. */
  readonly host?: string;
  /** Port (default 4747; 0 picks a free one). */
  readonly port?: number;
  /**
   * Run the read routes (recall, navigate, search, history…) on this many worker threads, each
   * with its own read-only handle on the file, so a long read keeps no other request waiting
   * (default: none, every request on the event loop). The workers open `file` (default: the
   * memory's path; give the URL for PostgreSQL, whose `db.path` hides the password) with the
   * default options: use them only with a memory opened without an embedder, model or clock.
   */
  readonly readPool?: {
    readonly workers: number;
    readonly file?: string;
    readonly busyTimeoutMs?: number;
  };
}

/** A listening server. */
export interface RunningServer {
  readonly app: Hono;
  readonly host: string;
  readonly port: number;
  /** Base URL, e.g. `http://127.0.0.1:4747`. */
  readonly url: string;
  /** Stops listening and ends open connections (event streams included). */
  close(): Promise<void>;
}

const listenSchema = z.object({
  host: z.string().min(1).max(253).default('127.0.0.1'),
  port: z.number().int().min(0).max(65_535).default(DEFAULT_PORT),
  readPool: z
    .strictObject({
      workers: z.number().int().min(0).max(64),
      file: z.string().min(1).optional(),
      busyTimeoutMs: z.number().int().min(0).max(600_000).default(5000),
    })
    .optional(),
});

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === 'localhost' || name === '::1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

function listen(app: Hono, host: string, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname: host, port }) as Server;
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new HedgehopError('IO', `cannot listen on ${host}:${port}: ${error.code ?? error.message}`, {
          cause: error,
        }),
      ),
    );
    server.once('listening', () => resolve(server));
  });
}

/**
 * Serves the HTTP API, web UI (and `/mcp` when given) on a real port. Binds 127.0.0.1 unless
 * told otherwise; binding any other address without a token is refused before listening,
 * since the memory would then be readable by anyone on the network.
 *
 * @example
 * ```ts
 * const db = await openMemory('memory.db');
 * const server = await startServer(db, { port: 0 });
 * console.log(`open ${server.url}`);
 * await server.close();
 * ```
 */
export async function startServer(db: MemoryDB, options: ServerOptions = {}): Promise<RunningServer> {
  const { host: rawHost, port: rawPort, readPool: rawPool, ...appOptions } = options;
  const { host, port, readPool } = parseInput(
    listenSchema,
    { host: rawHost, port: rawPort, readPool: rawPool },
    'options',
  );
  const loopback = isLoopbackHost(host);
  if (!loopback && appOptions.token === undefined) {
    throw invalidInput(
      'token',
      `binding ${host} exposes the memory beyond this machine; pass a token (--token) or bind 127.0.0.1`,
    );
  }
  if (readPool !== undefined && readPool.workers > 0 && appOptions.reads !== undefined) {
    throw invalidInput('readPool', 'give either readPool or reads, not both');
  }
  const allowedHosts = appOptions.allowedHosts ?? [...LOOPBACK_NAMES, urlHost(host)];
  // Checked before any worker starts, so bad options start nothing.
  createHttpApp(db, { ...appOptions, allowedHosts });
  const pool =
    readPool !== undefined && readPool.workers > 0
      ? await ReadPool.start({
          workers: readPool.workers,
          file: readPool.file ?? db.path,
          busyTimeoutMs: readPool.busyTimeoutMs,
        })
      : undefined;
  try {
    const app = createHttpApp(db, { ...appOptions, allowedHosts, ...(pool ? { reads: pool } : {}) });
    const server = await listen(app, host, port);
    const address = server.address() as AddressInfo;
    return {
      app,
      host,
      port: address.port,
      url: `http://${urlHost(host)}:${address.port}`,
      close: async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        await pool?.close();
      },
    };
  } catch (error) {
    await pool?.close();
    throw error;
  }
}
