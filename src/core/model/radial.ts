/** Radial memory's public model: lines, nodes, their summaries and verbatim state; input schemas. */
import type { DetailLevelName, DetailLevel } from './levels.js';
import { z } from 'zod';

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

const LONE_SURROGATE_RE = /[\uD800-\uDFFF]/u;

/**
 * True for text that is valid Unicode (no lone surrogate). Storage is UTF-8, where a lone
 * surrogate cannot be written: it would come back as U+FFFD, so it is refused up front.
 */
export function wellFormed(text: string): boolean {
  return !LONE_SURROGATE_RE.test(text);
}

/** Deepest nesting an environment snapshot may have. */
const MAX_DEPTH = 64;

/** Why `value` is not plain JSON, with the path of the first offending part; undefined when it is. */
function jsonProblem(
  value: unknown,
  path: (string | number)[] = [],
  seen: Set<object> = new Set(),
): { path: (string | number)[]; message: string } | undefined {
  if (value === null || typeof value === 'boolean') return undefined;
  if (typeof value === 'string') {
    return wellFormed(value)
      ? undefined
      : { path, message: 'contains a lone surrogate (not valid Unicode text)' };
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { path, message: `${value} is not a JSON number` };
  }
  if (typeof value !== 'object') return { path, message: `a ${typeof value} is not JSON-serialisable` };
  if (seen.has(value)) return { path, message: 'is a circular reference' };
  if (path.length >= MAX_DEPTH) return { path, message: `nested deeper than ${MAX_DEPTH} levels` };
  seen.add(value);
  try {
    if (Array.isArray(value)) return arrayProblem(value, path, seen);
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      const kind = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      return {
        path,
        message: `a ${kind} is not plain JSON (convert it to a string, number or plain object)`,
      };
    }
    for (const [key, child] of Object.entries(value)) {
      if (!wellFormed(key)) return { path: [...path, key], message: 'key contains a lone surrogate' };
      const problem = jsonProblem(child, [...path, key], seen);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}

function arrayProblem(
  value: readonly unknown[],
  path: (string | number)[],
  seen: Set<object>,
): { path: (string | number)[]; message: string } | undefined {
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) return { path: [...path, i], message: 'a hole in an array is not JSON' };
    const problem = jsonProblem(value[i], [...path, i], seen);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * A plain JSON object (an environment snapshot): checked part by part so the error names the
 * exact offending key, then deep-copied so later changes to the caller's object do not leak in.
 */
export const jsonObjectSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be a plain JSON object' });
      return;
    }
    const problem = jsonProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
  })
  .transform((value) => JSON.parse(JSON.stringify(value)) as { [key: string]: JsonValue });
