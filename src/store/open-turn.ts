import { HedgehopError } from '../core/errors.js';
import type { RawTopic } from './conversation-rows.js';
import type { Engine } from './engine.js';

/** The agent's open turn (at most one: a unique index on `topics(agent_id) WHERE status = 'open'`). */
export function readOpenTurn(engine: Engine, agentId: number): RawTopic | undefined {
  return engine
    .statement("SELECT * FROM topics WHERE agent_id = ? AND status = 'open'")
    .pluck(false)
    .get(agentId) as RawTopic | undefined;
}

/** The refusal every turn write gives when the agent has no open turn. */
export function noOpenTurn(_what: string): HedgehopError {
  // No call name in the message: each surface words the remedy (open a turn) its own way.
  return new HedgehopError('INVALID_INPUT', 'turn: no turn is open for this agent', {
    field: 'turn',
    path: [],
    remedy: 'open-turn',
  });
}

/** The agent's open turn, or the {@link noOpenTurn} refusal. Call inside a transaction. */
export function requireOpenTurn(engine: Engine, agentId: number, what: string): RawTopic {
  const turn = readOpenTurn(engine, agentId);
  if (!turn) throw noOpenTurn(what);
  return turn;
}
