import type { PlanNodeRow, PlanStatus, PlanNode } from '../../core/model/conversation.js';
import type { PlanFold } from '../../store/plan-repo.js';

const isTerminal = (status: PlanStatus): boolean => status !== 'in_progress';

function childrenBySeq(nodes: readonly PlanNodeRow[]): Map<number, PlanNodeRow[]> {
  const present = new Set(nodes.map((node) => node.seq));
  const children = new Map<number, PlanNodeRow[]>();
  for (const node of nodes) {
    // A step whose parent is gone (retention) is shown as a root.
    const parent = present.has(node.parentSeq) ? node.parentSeq : 0;
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(node);
  }
  for (const list of children.values()) list.sort((a, b) => a.seq - b.seq);
  return children;
}

/** One stored step as a {@link PlanNode} with the given children. */
export function planNodeView(node: PlanNodeRow, children: readonly PlanNode[] = []): PlanNode {
  return {
    seq: node.seq,
    parentSeq: node.parentSeq,
    title: node.title.length > 0 ? node.title : String(node.seq),
    status: node.status,
    summary: node.summary,
    summaryFolded: node.summaryFolded,
    createdAt: node.createdAt,
    finishedAt: node.finishedAt,
    updatedAt: node.updatedAt,
    children,
  };
}

/** The forest of a turn's steps: roots (and orphans) in seq order, each with its subtree. */
export function buildForest(nodes: readonly PlanNodeRow[]): PlanNode[] {
  const children = childrenBySeq(nodes);
  const view = (node: PlanNodeRow): PlanNode => planNodeView(node, (children.get(node.seq) ?? []).map(view));
  return (children.get(0) ?? []).map(view);
}

/**
 * The fold rule, bottom-up: a `done` step with children, whose summary is empty or was folded
 * by hedgehop, and whose every direct child is terminal (`done` or `failed`), gets the non-empty
 * summaries of its children joined by "; " in child order. Host-written summaries are never
 * replaced; a child going back to `in_progress` leaves the last fold in place.
 */
export function foldSummaries(nodes: readonly PlanNodeRow[]): PlanFold[] {
  const children = childrenBySeq(nodes);
  const summary = new Map(nodes.map((node) => [node.seq, node.summary]));
  const folds: PlanFold[] = [];
  // A parent always has a smaller seq than its children (it existed when they were added), so
  // descending seq order visits every child before its parent.
  for (const node of [...nodes].sort((a, b) => b.seq - a.seq)) {
    const kids = children.get(node.seq) ?? [];
    if (kids.length === 0 || node.status !== 'done') continue;
    if (node.summary.length > 0 && !node.summaryFolded) continue;
    if (!kids.every((kid) => isTerminal(kid.status))) continue;
    const folded = kids
      .map((kid) => summary.get(kid.seq) ?? '')
      .filter((text) => text.length > 0)
      .join('; ');
    summary.set(node.seq, folded);
    if (folded !== node.summary || !node.summaryFolded) folds.push({ seq: node.seq, summary: folded });
  }
  return folds;
}

/** `seq` and the seqs of every step under it (just `seq` when the turn has no such step). */
export function subtreeSeqs(nodes: readonly PlanNodeRow[], seq: number): number[] {
  const children = childrenBySeq(nodes);
  const out: number[] = [];
  const stack = [seq];
  while (stack.length > 0) {
    const current = stack.pop() as number;
    out.push(current);
    for (const kid of children.get(current) ?? []) stack.push(kid.seq);
  }
  return out.sort((a, b) => a - b);
}
