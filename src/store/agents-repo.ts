import type { Engine } from './engine.js';

/** One agent (domain) of a file. */
export interface AgentRow {
  readonly id: number;
  readonly name: string;
  readonly isPrimary: boolean;
  readonly createdAt: number;
}

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

/** Agents and file metadata. */
export class AgentsRepo {
  readonly #engine: Engine;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /** The primary agent, created on first use. */
  ensurePrimary(name: string, now: number): AgentRow {
    return this.#engine.write('open primary agent', () => {
      const existing = this.#engine.statement('SELECT * FROM agents WHERE is_primary = 1').get() as
        | RawAgent
        | undefined;
      if (existing) return toAgent(existing);
      this.#engine
        .statement('INSERT INTO agents (name, is_primary, created_at) VALUES (?, 1, ?)')
        .run(name, now);
      return toAgent(this.#engine.statement('SELECT * FROM agents WHERE is_primary = 1').get() as RawAgent);
    });
  }

  /** The agent of that name, created if absent (idempotent). */
  ensure(name: string, now: number): { agent: AgentRow; created: boolean } {
    return this.#engine.write('open agent', () => {
      const existing = this.byName(name);
      if (existing) return { agent: existing, created: false };
      this.#engine
        .statement('INSERT INTO agents (name, is_primary, created_at) VALUES (?, 0, ?)')
        .run(name, now);
      return { agent: this.byName(name) as AgentRow, created: true };
    });
  }

  /** The primary agent, if the file has one yet. */
  primary(): AgentRow | undefined {
    const row = this.#engine.statement('SELECT * FROM agents WHERE is_primary = 1').get() as
      | RawAgent
      | undefined;
    return row ? toAgent(row) : undefined;
  }

  byName(name: string): AgentRow | undefined {
    const row = this.#engine.statement('SELECT * FROM agents WHERE name = ?').get(name) as
      | RawAgent
      | undefined;
    return row ? toAgent(row) : undefined;
  }

  byId(id: number): AgentRow | undefined {
    const row = this.#engine.statement('SELECT * FROM agents WHERE id = ?').get(id) as RawAgent | undefined;
    return row ? toAgent(row) : undefined;
  }

  list(): AgentRow[] {
    return (
      this.#engine.statement('SELECT * FROM agents ORDER BY is_primary DESC, id').all() as RawAgent[]
    ).map(toAgent);
  }

  getMeta(key: string): string | undefined {
    return this.#engine.statement('SELECT value FROM meta WHERE key = ?').pluck().get(key) as
      | string
      | undefined;
  }

  setMeta(key: string, value: string): void {
    this.#engine.write('set meta', () => {
      this.#engine
        .statement(
          'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        )
        .run(key, value);
    });
  }
}
