import type { LeasesRepository } from '../seam.js';
import type { PgQuery } from './pg-query.js';

/**
 * Leases on PostgreSQL: at most one owner per name until the lease expires. The upsert's
 * `WHERE` is evaluated under the row's lock, so two machines racing for a lapsed lease cannot
 * both win.
 */
export class PgLeasesRepo implements LeasesRepository {
  readonly #db: PgQuery;

  constructor(db: PgQuery) {
    this.#db = db;
  }

  /** Takes (or renews, for the same owner) the lease; false when someone else holds it. */
  async acquire(name: string, owner: string, ttlMs: number, now: number): Promise<boolean> {
    const { rowCount } = await this.#db.query(
      `INSERT INTO leases (name, owner, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
       WHERE leases.owner = excluded.owner OR leases.expires_at <= $4`,
      [name, owner, now + ttlMs, now],
    );
    return rowCount === 1;
  }

  /** Gives the lease up if `owner` holds it. */
  async release(name: string, owner: string): Promise<void> {
    await this.#db.query('DELETE FROM leases WHERE name = $1 AND owner = $2', [name, owner]);
  }

  /** Who holds the lease now, if anyone. */
  async holder(name: string, now: number): Promise<{ owner: string; expiresAt: number } | undefined> {
    const { rows } = await this.#db.query<{ owner: string; expiresAt: number }>(
      'SELECT owner, expires_at AS "expiresAt" FROM leases WHERE name = $1 AND expires_at > $2',
      [name, now],
    );
    return rows[0];
  }

  /**
   * Who holds the lease now, its row locked `FOR SHARE` until the (write) transaction ends: a
   * takeover by another machine (the upsert of {@link PgLeasesRepo.acquire}) waits for this
   * transaction, and one already under way is waited for and then seen. Without the lock, a
   * plain read under read committed could return the old holder while a takeover commits, and
   * a Dream pass that lost its lease would still apply.
   */
  async holderLocked(name: string, now: number): Promise<{ owner: string; expiresAt: number } | undefined> {
    const { rows } = await this.#db.query<{ owner: string; expiresAt: number }>(
      'SELECT owner, expires_at AS "expiresAt" FROM leases WHERE name = $1 AND expires_at > $2 FOR SHARE',
      [name, now],
    );
    return rows[0];
  }
}
