import { notFound } from '../../core/errors.js';
import type { PlanNodeRow } from '../../core/model/conversation.js';
import { toPlanNode, type RawPlanNode } from '../conversation-rows.js';
import type { PlanFold, PlanRepo, PlanStepChange, TurnPlan } from '../plan-repo.js';
import type { Repository } from '../seam.js';
import { readOpenTurn, requireOpenTurn } from './open-turn.js';
import type { PgQuery } from './pg-query.js';
import { all, lockAgent, one, run, scalar } from './rows.js';

/**
 * Plan trees in PostgreSQL: the same calls and results as {@link PlanRepo}. Steps are numbered
 * under the agent's lock ({@link lockAgent}), so two writers never take the same seq.
 */
export class PgPlanRepo implements Repository<PlanRepo> {
  readonly #db: PgQuery;

  constructor(db: PgQuery) {
    this.#db = db;
  }

  /** See {@link PlanRepo.add}. */
  async add(agentId: number, parentSeq: number, title: string, now: number): Promise<PlanNodeRow> {
    await lockAgent(this.#db, agentId);
    const turn = await requireOpenTurn(this.#db, agentId, 'planNodeAdd');
    if (parentSeq !== 0 && !(await this.#get(turn.id, parentSeq))) {
      throw notFound(`planNodeAdd: step ${parentSeq} is not in the open turn's plan`);
    }
    const seq = await this.#nextSeq(turn.id);
    await run(
      this.#db,
      `INSERT INTO plan_nodes (topic_id, seq, agent_id, parent_seq, status, title, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'in_progress', $5, $6, $6)`,
      [turn.id, seq, agentId, parentSeq, title, now],
    );
    return (await this.#get(turn.id, seq)) as PlanNodeRow;
  }

  /** See {@link PlanRepo.update}. */
  async update(
    agentId: number,
    change: PlanStepChange,
    now: number,
    fold: (nodes: readonly PlanNodeRow[]) => PlanFold[],
  ): Promise<TurnPlan> {
    await lockAgent(this.#db, agentId);
    const turn = await requireOpenTurn(this.#db, agentId, 'planNodeUpdate');
    const node = await this.#get(turn.id, change.seq);
    if (!node) throw notFound(`planNodeUpdate: step ${change.seq} is not in the open turn's plan`);
    const terminal = change.status !== 'in_progress';
    const summary = change.summary !== undefined && change.summary.length > 0 ? change.summary : undefined;
    await run(
      this.#db,
      `UPDATE plan_nodes SET status = $1, title = $2, summary = $3, summary_folded = $4, finished_at = $5,
         updated_at = $6 WHERE topic_id = $7 AND seq = $8`,
      [
        change.status,
        change.title !== undefined && change.title.length > 0 ? change.title : node.title,
        summary ?? node.summary,
        summary !== undefined ? 0 : node.summaryFolded ? 1 : 0,
        terminal ? (node.finishedAt ?? now) : null,
        now,
        turn.id,
        change.seq,
      ],
    );
    const nodes = await this.nodes(turn.id);
    const folds = fold(nodes);
    for (const folded of folds) {
      await run(
        this.#db,
        `UPDATE plan_nodes SET summary = $1, summary_folded = 1, updated_at = $2
         WHERE topic_id = $3 AND seq = $4 AND (summary <> $1 OR summary_folded = 0)`,
        [folded.summary, now, turn.id, folded.seq],
      );
    }
    return { topicId: turn.id, nodes: folds.length > 0 ? await this.nodes(turn.id) : nodes };
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

  async #get(topicId: string, seq: number): Promise<PlanNodeRow | undefined> {
    const row = await one<RawPlanNode>(
      this.#db,
      'SELECT * FROM plan_nodes WHERE topic_id = $1 AND seq = $2',
      [topicId, seq],
    );
    return row ? toPlanNode(row) : undefined;
  }

  async #nextSeq(topicId: string): Promise<number> {
    const next = await scalar<number>(
      this.#db,
      `SELECT GREATEST(coalesce((SELECT max(seq) FROM plan_nodes WHERE topic_id = $1), 0),
                       coalesce((SELECT max(plan_step) FROM archive WHERE topic_id = $1 AND plan_step IS NOT NULL), 0)) + 1`,
      [topicId],
    );
    return next as number;
  }
}
