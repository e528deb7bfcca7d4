import { HedgehopError } from '../core/errors.js';
import type { MemoryContext } from '../memory/context.js';

/** Who an agent is within its file. */
export interface AgentInfo {
  readonly id: number;
  readonly name: string;
  readonly primary: boolean;
  readonly createdAt: number;
}

/**
 * One agent's memory inside a file: its radial memory, context-window manager, conversation
 * turn loop, profile and recall. Everything written through one agent is invisible to the
 * others, except the file-wide knowledge graphs.
 *
 * @example
 * ```ts
 * const db = await openMemory('memory.db');
 * const agent = db.primary();
 * await agent.radial.createLine('auth', 'Authentication', 'Login, tokens, sessions');
 * ```
 */
export class Agent {
  readonly #context: MemoryContext;
  readonly #info: AgentInfo;

  /** @internal Agents are obtained from `MemoryDB.primary()` and `MemoryDB.agent(name)`. */
  constructor(context: MemoryContext, info: AgentInfo) {
    this.#context = context;
    this.#info = info;
  }

  /** This agent's name (`primary` for the primary agent). */
  get name(): string {
    return this.#info.name;
  }

  /** Who this agent is. */
  info(): AgentInfo {
    return this.#info;
  }

  /** @internal */
  get memoryContext(): MemoryContext {
    this.#assertOpen('agent');
    return this.#context;
  }

  #assertOpen(what: string): void {
    if (this.#context.store.closed) {
      throw new HedgehopError('CLOSED', `${what}: the memory file ${this.#context.store.path} is closed`);
    }
  }
}
