import type { AgentRow } from '../agents-repo.js';
import type { AgentsRepository } from '../seam.js';
import type { PgQuery } from './pg-query.js';

interface RawAgent {
  id: number;
  name: string;
  is_primary: number;
  created_at: number;
}

const toAgent = (row: RawAgent): AgentRow => ({
  id: row.id,
  name: row.name,
  isPrimary: row.is_primary === 1,
  createdAt: row.created_at,
});

const COLUMNS = 'id, name, is_primary, created_at';

/** Agents and memory metadata on PostgreSQL (the SQLite engine's `AgentsRepo`, same shapes). */
export class PgAgentsRepo implements AgentsRepository {
  readonly #db: PgQuery;

  constructor(db: PgQuery) {
    this.#db = db;
  }

  async #one(sql: string, values: readonly unknown[] = []): Promise<AgentRow | undefined> {
    const { rows } = await this.#db.query<RawAgent>(sql, values);
    return rows[0] ? toAgent(rows[0]) : undefined;
  }

  /** The primary agent, created on first use (two processes racing create one). */
  async ensurePrimary(name: string, now: number): Promise<AgentRow> {
    const found = await this.#one(`SELECT ${COLUMNS} FROM agents WHERE is_primary = 1`);
    if (found) return found;
    // The partial unique index makes a concurrent first open wait for, then skip, the other's row.
    await this.#db.query(
      'INSERT INTO agents (name, is_primary, created_at) VALUES ($1, 1, $2) ON CONFLICT DO NOTHING',
      [name, now],
    );
    return (await this.#one(`SELECT ${COLUMNS} FROM agents WHERE is_primary = 1`)) as AgentRow;
  }

  /** The agent of that name, created if absent (idempotent, also under concurrent callers). */
  async ensure(name: string, now: number): Promise<{ agent: AgentRow; created: boolean }> {
    const inserted = await this.#one(
      `INSERT INTO agents (name, is_primary, created_at) VALUES ($1, 0, $2)
       ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
      [name, now],
    );
    if (inserted) return { agent: inserted, created: true };
    return { agent: (await this.byName(name)) as AgentRow, created: false };
  }

  /** The primary agent, if the memory has one yet. */
  primary(): Promise<AgentRow | undefined> {
    return this.#one(`SELECT ${COLUMNS} FROM agents WHERE is_primary = 1`);
  }

  byName(name: string): Promise<AgentRow | undefined> {
    return this.#one(`SELECT ${COLUMNS} FROM agents WHERE name = $1`, [name]);
  }

  byId(id: number): Promise<AgentRow | undefined> {
    return this.#one(`SELECT ${COLUMNS} FROM agents WHERE id = $1`, [id]);
  }

  async list(): Promise<AgentRow[]> {
    const { rows } = await this.#db.query<RawAgent>(
      `SELECT ${COLUMNS} FROM agents ORDER BY is_primary DESC, id`,
    );
    return rows.map(toAgent);
  }

  async getMeta(key: string): Promise<string | undefined> {
    const { rows } = await this.#db.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]);
    return rows[0]?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.#db.query(
      'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      [key, value],
    );
  }
}
