import { notFound } from '../../core/errors.js';
import type { PlanNodeRow } from '../../core/model/conversation.js';
import { toPlanNode, type RawPlanNode } from '../conversation-rows.js';
import type { PlanFold, PlanRepo, PlanStepChange, TurnPlan } from '../plan-repo.js';
import type { Repository } from '../seam.js';
import { noOpenTurn } from '../open-turn.js';
import { readOpenTurn, requireOpenTurn } from './open-turn.js';
import { lastStatement, type PgQuery } from './pg-query.js';
import { all, later, lockAgent, numeric, run } from './rows.js';

/**
 * A new step's seq in turn `t`: one above both the highest step and the highest step any event
 * of the turn names, so an ordinal is never reused while an event still points at it.
 */
const NEXT_SEQ = `GREATEST(
  coalesce((SELECT max(p.seq) FROM plan_nodes p WHERE p.topic_id = t.id), 0),
  coalesce((SELECT max(a.plan_step) FROM archive a WHERE a.topic_id = t.id AND a.plan_step IS NOT NULL), 0)) + 1`;

/**
 * Plan trees in PostgreSQL: the same calls and results as {@link PlanRepo}. Steps are numbered
 * under the agent's lock ({@link lockAgent}), so two writers never take the same seq.
 */
export class PgPlanRepo implements Repository<PlanRepo> {
  readonly #db: PgQuery;

  constructor(db: PgQuery) {
    this.#db = db;
  }

  /**
   * See {@link PlanRepo.add}. One round trip: the agent's lock, its open turn and the insert
   * (which finds the turn, checks the parent and numbers the step itself) go out together, the
   * insert carrying COMMIT when the write allows it; when it inserts nothing, the open turn read
   * beside it tells which refusal applies (nothing was written either way).
   */
  async add(agentId: number, parentSeq: number, title: string, now: number): Promise<PlanNodeRow> {
    const locked = later(lockAgent(this.#db, agentId));
    const open = later(readOpenTurn(this.#db, agentId));
    const inserted = lastStatement<Record<string, unknown>>(
      this.#db,
      `INSERT INTO plan_nodes (topic_id, seq, agent_id, parent_seq, status, title, created_at, updated_at)
       SELECT t.id, ${NEXT_SEQ}, $1::bigint, $2::integer, 'in_progress', $3::text, $4::bigint, $4::bigint
       FROM topics t WHERE t.agent_id = $1 AND t.status = 'open'
         AND ($2::integer = 0 OR EXISTS (SELECT 1 FROM plan_nodes p WHERE p.topic_id = t.id AND p.seq = $2))
       RETURNING *`,
      [agentId, parentSeq, title, now],
    );
    await locked;
    const turn = await open;
    const row = (await inserted).rows[0];
    if (!turn) throw noOpenTurn('planNodeAdd');
    if (row === undefined) throw notFound(`planNodeAdd: step ${parentSeq} is not in the open turn's plan`);
    return toPlanNode(numeric<RawPlanNode>(row));
  }

  /**
   * See {@link PlanRepo.update}. The lock, the open turn, the step's update and the turn's steps
   * go out together (one round trip); the folds the rule derives, and the steps read again, in a
   * second. A refusal (no open turn, no such step) rolls the write back.
   */
  async update(
    agentId: number,
    change: PlanStepChange,
    now: number,
    fold: (nodes: readonly PlanNodeRow[]) => PlanFold[],
  ): Promise<TurnPlan> {
    const terminal = change.status !== 'in_progress';
    const summary = change.summary !== undefined && change.summary.length > 0 ? change.summary : null;
    const title = change.title !== undefined && change.title.length > 0 ? change.title : null;
    const locked = later(lockAgent(this.#db, agentId));
    const open = later(readOpenTurn(this.#db, agentId));
    const updated = later(
      run(
        this.#db,
        `UPDATE plan_nodes p SET status = $1, title = coalesce($2::text, p.title), summary = coalesce($3::text, p.summary),
           summary_folded = CASE WHEN $3::text IS NULL THEN p.summary_folded ELSE 0 END,
           finished_at = CASE WHEN $4::boolean THEN coalesce(p.finished_at, $5::bigint) END, updated_at = $5::bigint
         FROM topics t WHERE t.agent_id = $6 AND t.status = 'open' AND p.topic_id = t.id AND p.seq = $7`,
        [change.status, title, summary, terminal, now, agentId, change.seq],
      ),
    );
    const read = later(this.#openNodes(agentId));
    await locked;
    const turn = await open;
    if (!turn) throw noOpenTurn('planNodeUpdate');
    if ((await updated) === 0)
      throw notFound(`planNodeUpdate: step ${change.seq} is not in the open turn's plan`);
    const nodes = await read;
    const folds = fold(nodes);
    const writes = folds.map((folded) =>
      later(
        run(
          this.#db,
          `UPDATE plan_nodes SET summary = $1, summary_folded = 1, updated_at = $2
           WHERE topic_id = $3 AND seq = $4 AND (summary <> $1 OR summary_folded = 0)`,
          [folded.summary, now, turn.id, folded.seq],
        ),
      ),
    );
    const again = folds.length > 0 ? later(this.nodes(turn.id)) : undefined;
    for (const write of writes) await write;
    return { topicId: turn.id, nodes: again ? await again : nodes };
  }

  /** The steps of the agent's open turn, in seq order (none when no turn is open). */
  async #openNodes(agentId: number): Promise<PlanNodeRow[]> {
    const rows = await all<RawPlanNode>(
      this.#db,
      `SELECT p.* FROM plan_nodes p JOIN topics t ON t.id = p.topic_id
       WHERE t.agent_id = $1 AND t.status = 'open' ORDER BY p.seq`,
      [agentId],
    );
    return rows.map(toPlanNode);
  }

  /** See {@link PlanRepo.openPlan}. */
  async openPlan(agentId: number, what: string): Promise<TurnPlan> {
    const turn = await requireOpenTurn(this.#db, agentId, what);
    return { topicId: turn.id, nodes: await this.nodes(turn.id) };
  }

  /** See {@link PlanRepo.nodes}. */
  async nodes(topicId: string): Promise<PlanNodeRow[]> {
    const rows = await all<RawPlanNode>(
      this.#db,
      'SELECT * FROM plan_nodes WHERE topic_id = $1 ORDER BY seq',
      [topicId],
    );
    return rows.map(toPlanNode);
  }

  /** See {@link PlanRepo.prune}. */
  async prune(agentId: number, cutoff: number): Promise<number> {
    await lockAgent(this.#db, agentId);
    const open = await readOpenTurn(this.#db, agentId);
    return run(
      this.#db,
      `DELETE FROM plan_nodes WHERE agent_id = $1 AND updated_at < $2 AND topic_id IS DISTINCT FROM $3
         AND topic_id NOT IN (
           SELECT topic_id FROM plan_nodes WHERE agent_id = $1 GROUP BY topic_id
           HAVING bool_or(status = 'in_progress') AND max(updated_at) >= $2)`,
      [agentId, cutoff, open?.id ?? null],
    );
  }
}
