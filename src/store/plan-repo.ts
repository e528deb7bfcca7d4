import { notFound } from '../core/errors.js';
import { toPlanNode, type RawPlanNode } from './conversation-rows.js';
import { type PlanNodeRow, type PlanStatus } from '../core/model/conversation.js';
import type { Engine } from './engine.js';
import { readOpenTurn, requireOpenTurn } from './open-turn.js';

/** A change to one plan step. `title`/`summary` left out (or empty) keep their stored value. */
export interface PlanStepChange {
  readonly seq: number;
  readonly status: PlanStatus;
  readonly title?: string | undefined;
  readonly summary?: string | undefined;
}

/** A summary the fold rule derived for one step. */
export interface PlanFold {
  readonly seq: number;
  readonly summary: string;
}

/** A turn's plan: the turn and all its steps in seq order. */
export interface TurnPlan {
  readonly topicId: string;
  readonly nodes: readonly PlanNodeRow[];
}

/** Plan trees: one forest of steps per turn. */
export class PlanRepo {
  readonly #engine: Engine;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /**
   * Adds a step under `parentSeq` (0 = a new root) of the open turn. Its seq is one above both
   * the highest step and the highest step any event of the turn names, so an ordinal is never
   * reused while an event still points at it.
   */
  add(agentId: number, parentSeq: number, title: string, now: number): PlanNodeRow {
    return this.#engine.write('planNodeAdd', () => {
      const turn = requireOpenTurn(this.#engine, agentId, 'planNodeAdd');
      if (parentSeq !== 0 && !this.#get(turn.id, parentSeq)) {
        throw notFound(`planNodeAdd: step ${parentSeq} is not in the open turn's plan`);
      }
      const seq = this.#nextSeq(turn.id);
      this.#engine
        .statement(
          `INSERT INTO plan_nodes (topic_id, seq, agent_id, parent_seq, status, title, created_at, updated_at)
           VALUES (?, ?, ?, ?, 'in_progress', ?, ?, ?)`,
        )
        .run(turn.id, seq, agentId, parentSeq, title, now, now);
      return this.#get(turn.id, seq) as PlanNodeRow;
    });
  }

  /**
   * Applies `change` to a step of the open turn, then the fold rule `fold` over the turn's
   * steps (the summaries it returns are written as library-folded), in one transaction.
   */
  update(
    agentId: number,
    change: PlanStepChange,
    now: number,
    fold: (nodes: readonly PlanNodeRow[]) => PlanFold[],
  ): TurnPlan {
    return this.#engine.write('planNodeUpdate', () => {
      const turn = requireOpenTurn(this.#engine, agentId, 'planNodeUpdate');
      const node = this.#get(turn.id, change.seq);
      if (!node) throw notFound(`planNodeUpdate: step ${change.seq} is not in the open turn's plan`);
      const terminal = change.status !== 'in_progress';
      const summary = change.summary !== undefined && change.summary.length > 0 ? change.summary : undefined;
      this.#engine
        .statement(
          `UPDATE plan_nodes SET status = ?, title = ?, summary = ?, summary_folded = ?, finished_at = ?,
             updated_at = ? WHERE topic_id = ? AND seq = ?`,
        )
        .run(
          change.status,
          change.title !== undefined && change.title.length > 0 ? change.title : node.title,
          summary ?? node.summary,
          summary !== undefined ? 0 : node.summaryFolded ? 1 : 0,
          terminal ? (node.finishedAt ?? now) : null,
          now,
          turn.id,
          change.seq,
        );
      const nodes = this.nodes(turn.id);
      const folds = fold(nodes);
      for (const folded of folds) {
        this.#engine
          .statement(
            `UPDATE plan_nodes SET summary = ?, summary_folded = 1, updated_at = ?
             WHERE topic_id = ? AND seq = ? AND (summary <> ? OR summary_folded = 0)`,
          )
          .run(folded.summary, now, turn.id, folded.seq, folded.summary);
      }
      return { topicId: turn.id, nodes: folds.length > 0 ? this.nodes(turn.id) : nodes };
    });
  }

  /** The open turn's plan, or the "no turn is open" refusal. */
  openPlan(agentId: number, what: string): TurnPlan {
    return this.#engine.read(what, () => {
      const turn = requireOpenTurn(this.#engine, agentId, what);
      return { topicId: turn.id, nodes: this.nodes(turn.id) };
    });
  }

  /** Every step of a turn in seq order. */
  nodes(topicId: string): PlanNodeRow[] {
    return (
      this.#engine
        .statement('SELECT * FROM plan_nodes WHERE topic_id = ? ORDER BY seq')
        .pluck(false)
        .all(topicId) as RawPlanNode[]
    ).map(toPlanNode);
  }

  /**
   * Retention: deletes the agent's steps last updated before `cutoff`, except in the open turn
   * and in trees still in flight (a step `in_progress` and a step updated since the cutoff).
   * A `failed` step counts as finished (MemHop kept such trees forever).
   */
  prune(agentId: number, cutoff: number): number {
    return this.#engine.write('prune plans', () => {
      const open = readOpenTurn(this.#engine, agentId);
      return this.#engine
        .statement(
          `DELETE FROM plan_nodes WHERE agent_id = :agent AND updated_at < :cutoff AND topic_id IS NOT :open
             AND topic_id NOT IN (
               SELECT topic_id FROM plan_nodes WHERE agent_id = :agent GROUP BY topic_id
               HAVING max(status = 'in_progress') = 1 AND max(updated_at) >= :cutoff)`,
        )
        .run({ agent: agentId, cutoff, open: open?.id ?? null }).changes;
    });
  }

  #get(topicId: string, seq: number): PlanNodeRow | undefined {
    const row = this.#engine
      .statement('SELECT * FROM plan_nodes WHERE topic_id = ? AND seq = ?')
      .pluck(false)
      .get(topicId, seq) as RawPlanNode | undefined;
    return row ? toPlanNode(row) : undefined;
  }

  #nextSeq(topicId: string): number {
    const row = this.#engine
      .statement(
        `SELECT max(coalesce((SELECT max(seq) FROM plan_nodes WHERE topic_id = :topic), 0),
                    coalesce((SELECT max(plan_step) FROM archive WHERE topic_id = :topic AND plan_step IS NOT NULL), 0)) + 1`,
      )
      .pluck(true)
      .get({ topic: topicId }) as number;
    return row;
  }
}
