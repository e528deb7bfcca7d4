import { z } from 'zod';
import { parseInput } from '../../core/validate.js';
import {
  type PlanNode,
  planTitleSchema,
  planStepSchema,
  type PlanState,
} from '../../core/model/conversation.js';
import type { MemoryContext } from '../context.js';
import { buildForest, foldSummaries, planNodeView } from './plan-tree.js';

const addSchema = z.strictObject({
  parentSeq: z.number().int('must be a whole number').min(0, 'must be 0 (a root) or a step number'),
  title: planTitleSchema,
});

function findNode(roots: readonly PlanNode[], seq: number): PlanNode | undefined {
  for (const root of roots) {
    if (root.seq === seq) return root;
    const found = findNode(root.children, seq);
    if (found) return found;
  }
  return undefined;
}

/**
 * Adds a step to the open turn's plan under `parentSeq` (0 = a new root) and returns it; it
 * starts `in_progress`. Refused with `INVALID_INPUT` when no turn is open, `NOT_FOUND` when the
 * parent is not a step of this turn.
 */
export async function planNodeAdd(
  context: MemoryContext,
  parentSeq: unknown,
  title: unknown = '',
): Promise<PlanNode> {
  const parsed = parseInput(addSchema, { parentSeq, title }, 'planNodeAdd');
  const now = context.clock.now();
  const row = await context.store.write(
    'planNodeAdd',
    (tx) => tx.conversation.plans.add(context.agentId, parsed.parentSeq, parsed.title, now),
    { oneCall: true },
  );
  return planNodeView(row);
}

/**
 * Sets a step's status (and title/summary when given), then folds summaries up the tree, in one
 * transaction. Returns the step as it is now.
 */
export async function planNodeUpdate(context: MemoryContext, step: unknown): Promise<PlanNode> {
  const parsed = parseInput(planStepSchema, step, 'planNodeUpdate');
  const now = context.clock.now();
  const plan = await context.store.write('planNodeUpdate', (tx) =>
    tx.conversation.plans.update(context.agentId, parsed, now, foldSummaries),
  );
  return findNode(buildForest(plan.nodes), parsed.seq) as PlanNode;
}

/** The open turn's plan forest and its counts (`INVALID_INPUT` when no turn is open). */
export async function planState(context: MemoryContext): Promise<PlanState> {
  const plan = await context.store.read('planState', (tx) =>
    tx.conversation.plans.openPlan(context.agentId, 'planState'),
  );
  return {
    turnId: plan.topicId,
    roots: buildForest(plan.nodes),
    doneCount: plan.nodes.filter((node) => node.status === 'done').length,
    totalCount: plan.nodes.length,
  };
}
