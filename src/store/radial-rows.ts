/**
 * Rows of radial memory as both engines read them, and the plain mappers to the records the
 * repositories return. The column lists are SQL both SQLite and PostgreSQL accept; numbers
 * arrive as numbers (the PostgreSQL repository converts its `bigint` strings first).
 */

/** A line as stored, with its node count (`next_seq - 1`: nodes are never deleted). */
export interface LineRecord {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly createdAt: number;
  readonly ord: number;
  readonly nodeCount: number;
  /** JSON object text (import provenance). */
  readonly extra: string;
}

/** A line with the few fields of its newest node that overviews show. */
export interface LineOverview extends LineRecord {
  readonly latest:
    | {
        readonly id: string;
        readonly taskLabel: string;
        readonly createdAt: number;
        readonly sOrigin: string | null;
        readonly sBrief: string | null;
        readonly conversationSummary: string;
      }
    | undefined;
}

/** A node as stored, without its verbatim full context (read that with {@link RadialRepo.fullContext}). */
export interface NodeRecord {
  readonly seq: number;
  readonly id: string;
  readonly lineId: string;
  readonly lineSeq: number;
  readonly position: number;
  readonly taskLabel: string;
  readonly createdAt: number;
  readonly conversationSummary: string;
  /** JSON text of the columns of the same name. */
  readonly fileChanges: string;
  readonly todos: string;
  readonly envSnapshot: string;
  readonly history: string;
  readonly sOrigin: string | null;
  readonly sBrief: string | null;
  readonly sSummary: string | null;
  readonly sDetailed: string | null;
  readonly summariesState: 'ready' | 'pending';
  readonly summariesTier: number;
  readonly extra: string;
  readonly fullBytes: number;
}

export interface RawLine {
  id: string;
  name: string;
  description: string;
  created_at: number;
  ord: number;
  next_seq: number;
  extra: string;
}

export interface RawOverview extends RawLine {
  n_id: string | null;
  n_label: string | null;
  n_created_at: number | null;
  n_origin: string | null;
  n_brief: string | null;
  n_conversation: string | null;
}

export interface RawNode {
  seq: number;
  id: string;
  line_id: string;
  line_seq: number;
  position: number;
  task_label: string;
  created_at: number;
  conversation_summary: string;
  file_changes: string;
  todos: string;
  env_snapshot: string;
  history: string;
  s_origin: string | null;
  s_brief: string | null;
  s_summary: string | null;
  s_detailed: string | null;
  summaries_state: 'ready' | 'pending';
  summaries_tier: number;
  extra: string;
  full_bytes: number;
}

export const toLine = (row: RawLine): LineRecord => ({
  id: row.id,
  name: row.name,
  description: row.description,
  createdAt: row.created_at,
  ord: row.ord,
  nodeCount: row.next_seq - 1,
  extra: row.extra,
});

export const toOverview = (row: RawOverview): LineOverview => ({
  ...toLine(row),
  latest:
    row.n_id === null
      ? undefined
      : {
          id: row.n_id,
          taskLabel: row.n_label ?? '',
          createdAt: row.n_created_at ?? 0,
          sOrigin: row.n_origin,
          sBrief: row.n_brief,
          conversationSummary: row.n_conversation ?? '',
        },
});

export const toNode = (row: RawNode): NodeRecord => ({
  seq: row.seq,
  id: row.id,
  lineId: row.line_id,
  lineSeq: row.line_seq,
  position: row.position,
  taskLabel: row.task_label,
  createdAt: row.created_at,
  conversationSummary: row.conversation_summary,
  fileChanges: row.file_changes,
  todos: row.todos,
  envSnapshot: row.env_snapshot,
  history: row.history,
  sOrigin: row.s_origin,
  sBrief: row.s_brief,
  sSummary: row.s_summary,
  sDetailed: row.s_detailed,
  summariesState: row.summaries_state,
  summariesTier: row.summaries_tier,
  extra: row.extra,
  fullBytes: row.full_bytes,
});

// Every node column except full_context (the large one, read only when asked for).
export const NODE_COLUMNS = `n.seq, n.id, n.line_id, n.line_seq, l.next_seq - n.line_seq AS position, n.task_label,
  n.created_at, n.conversation_summary, n.file_changes, n.todos, n.env_snapshot, n.history, n.s_origin,
  n.s_brief, n.s_summary, n.s_detailed, n.summaries_state, n.summaries_tier, n.extra, n.full_bytes`;
export const NODE_FROM = 'nodes n JOIN lines l ON l.agent_id = n.agent_id AND l.id = n.line_id';

export const LINE_COLUMNS = 'l.id, l.name, l.description, l.created_at, l.ord, l.next_seq, l.extra';
