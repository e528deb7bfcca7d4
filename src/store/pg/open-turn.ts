import type { RawTopic } from '../conversation-rows.js';
import { noOpenTurn } from '../open-turn.js';
import type { PgQuery } from './pg-query.js';
import { one } from './rows.js';

/** The agent's open turn (at most one: a unique index on `topics(agent_id) WHERE status = 'open'`). */
export function readOpenTurn(db: PgQuery, agentId: number): Promise<RawTopic | undefined> {
  return one<RawTopic>(db, "SELECT * FROM topics WHERE agent_id = $1 AND status = 'open'", [agentId]);
}

/** The agent's open turn, or the "no turn is open" refusal. */
export async function requireOpenTurn(db: PgQuery, agentId: number, what: string): Promise<RawTopic> {
  const turn = await readOpenTurn(db, agentId);
  if (!turn) throw noOpenTurn(what);
  return turn;
}
