import type { DetailLevelName } from '../../llm/types.js';
import type { DetailLevel } from './levels.js';

/** Any JSON value (what an environment snapshot may hold). */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** A file a task touched. `changeType` is free text (`modified`, `created`, `deleted`, …). */
export interface FileChange {
  readonly path: string;
  readonly changeType: string;
  readonly diffSummary: string;
}

/** A node's summaries, one per summarised level (see {@link RadialNode.summariesState}). */
export interface LevelSummaries {
  readonly origin: string;
  readonly brief: string;
  readonly summary: string;
  readonly detailed: string;
}

/** What a task left behind besides its summaries. The verbatim `fullContext` is read on demand. */
export interface NodeState {
  readonly conversationSummary: string;
  readonly fileChanges: readonly FileChange[];
  readonly todos: readonly string[];
  readonly envSnapshot: { readonly [key: string]: JsonValue };
  /** Size of the verbatim full context in UTF-8 bytes (load it with `loadFullState()`). */
  readonly fullContextBytes: number;
}

/**
 * One completed task on a line. `position` is 1 for the newest node of its line and grows by
 * one with every later commit on that line; it is derived when read, never stored.
 */
export interface RadialNode {
  /** A UUID v4 (as HedgehogMemory uses), stable for the life of the node. */
  readonly id: string;
  readonly lineId: string;
  readonly position: number;
  readonly taskLabel: string;
  /** Commit time, ms since the epoch. */
  readonly createdAt: number;
  /**
   * Summaries by level. While {@link summariesState} is `pending` (the summariser failed or has
   * not run yet) these hold a deterministic fallback built from the label and the conversation
   * summary, never an empty string.
   */
  readonly summaries: LevelSummaries;
  readonly summariesState: 'ready' | 'pending';
  readonly state: NodeState;
  /** For a node committed with `extendTask`: the node it continues. */
  readonly extendsNodeId: string | undefined;
}

/** A task line (a long-lived task domain such as `auth` or `infra`). */
export interface RadialLine {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** ms since the epoch. */
  readonly createdAt: number;
  readonly nodeCount: number;
  /** The newest node (position 1), if any. */
  readonly latest:
    | { readonly nodeId: string; readonly taskLabel: string; readonly createdAt: number }
    | undefined;
}

/** One entry of {@link RadialMemory.getLineHistory}, presented at the level its distance earns. */
export interface LineHistoryEntry {
  readonly nodeId: string;
  readonly position: number;
  readonly taskLabel: string;
  readonly createdAt: number;
  /** The level `text` is at; `undefined` when the node is far enough to show its label only. */
  readonly level: DetailLevel | undefined;
  readonly levelName: DetailLevelName | 'label';
  readonly text: string;
  readonly summariesState: 'ready' | 'pending';
}

/** The task a `completeTask` call records (already validated). */
export interface TaskRecord {
  readonly lineId: string;
  readonly taskLabel: string;
  readonly fullContext: string;
  readonly conversationSummary: string;
  readonly fileChanges: readonly FileChange[];
  readonly todos: readonly string[];
  readonly envSnapshot: { readonly [key: string]: JsonValue };
  /** Summaries supplied by the caller (e.g. written by the agent's own model); the rest are computed. */
  readonly summaries: Partial<Record<keyof LevelSummaries, string>>;
}
