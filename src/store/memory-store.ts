import { existsSync } from 'node:fs';
import type { EngineOptions } from './engine.js';
import type { PgStore } from './pg/pg-store.js';
import { isPgUrl } from './pg/pg-url.js';
import { Store } from './store.js';

/** An open memory on either engine: the SQLite file {@link Store} or the PostgreSQL {@link PgStore}. */
export type MemoryStore = Store | PgStore;

/** True when `path` names a memory on a PostgreSQL server (`postgres://…`), not a file. */
export function isServerUrl(path: string): boolean {
  return isPgUrl(path);
}

/**
 * Opens the memory at `path` on the engine it names: a `postgres://` (or `postgresql://`) URL
 * on PostgreSQL, anything else as an SQLite file. The one place the engine is chosen. The
 * PostgreSQL engine (and `pg`) is loaded only when a URL is given.
 */
export async function openStore(path: string, options: EngineOptions): Promise<MemoryStore> {
  if (!isPgUrl(path)) return Store.open(path, options);
  const { PgStore } = await import('./pg/pg-store.js');
  return PgStore.open(path, options);
}

/** True when a memory exists at `path` (a file, or a memory on the server a URL names). */
export async function memoryExists(path: string): Promise<boolean> {
  if (!isPgUrl(path)) return existsSync(path);
  const { PgStore } = await import('./pg/pg-store.js');
  return PgStore.exists(path);
}

/** Closes a store whose open failed halfway (nothing can be queued on it yet). */
export async function closeFailed(store: MemoryStore): Promise<void> {
  if (store instanceof Store) store.closeNow();
  else await store.close().catch(() => undefined);
}
