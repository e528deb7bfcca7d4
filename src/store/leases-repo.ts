import type { Engine } from './engine.js';

/**
 * Leases coordinate background work across processes: at most one owner per name until the
 * lease expires, so a crashed worker's lease lapses and another process takes over.
 */
export class LeasesRepo {
  readonly #engine: Engine;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /** Takes (or renews, for the same owner) the lease; false when someone else holds it. */
  acquire(name: string, owner: string, ttlMs: number, now: number): boolean {
    return this.#engine.write('acquire lease', () => {
      const info = this.#engine
        .statement(
          `INSERT INTO leases (name, owner, expires_at) VALUES (?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
           WHERE leases.owner = excluded.owner OR leases.expires_at <= ?`,
        )
        .run(name, owner, now + ttlMs, now);
      return info.changes === 1;
    });
  }

  /** Gives the lease up if `owner` holds it. */
  release(name: string, owner: string): void {
    this.#engine.write('release lease', () => {
      this.#engine.statement('DELETE FROM leases WHERE name = ? AND owner = ?').run(name, owner);
    });
  }

  /** Who holds the lease now, if anyone. */
  holder(name: string, now: number): { owner: string; expiresAt: number } | undefined {
    const row = this.#engine
      .statement('SELECT owner, expires_at AS expiresAt FROM leases WHERE name = ? AND expires_at > ?')
      .get(name, now) as { owner: string; expiresAt: number } | undefined;
    return row;
  }

  /**
   * Who holds the lease now, read inside a write transaction so that no other process can take
   * the lease over before that transaction ends. A SQLite write transaction already holds the
   * file's write lock (`BEGIN IMMEDIATE`), so this is {@link LeasesRepo.holder}; the PostgreSQL
   * engine locks the lease row (`FOR SHARE`).
   */
  holderLocked(name: string, now: number): { owner: string; expiresAt: number } | undefined {
    return this.holder(name, now);
  }
}
