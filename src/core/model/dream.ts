import type { MbtiAxes, ProfileEmotion } from './conversation.js';

/** The record of a Dream pass, as `dream()` returns it and `dreamHistory()` lists it. */

/** The stages of a pass, in the order they run. */
export type DreamStageName = 'radial' | 'compress' | 'profile' | 'engram' | 'retention';

/** What became of a stage. */
export type DreamStageStatus = 'ok' | 'skipped' | 'error' | 'cancelled';

/**
 * A pass's state: `running` (not finished yet), `ok`, `partial` (some stage reported errors or
 * was skipped because what it read changed; everything else was applied), `cancelled` (stopped
 * before applying anything: the file was closed, or the pass lost its lease), `interrupted`
 * (the process running it ended before it finished; nothing of it was applied).
 */
export type DreamStatus = 'running' | 'ok' | 'partial' | 'cancelled' | 'interrupted';

/** One stage of a pass. */
export interface DreamStageReport {
  readonly name: DreamStageName;
  readonly status: DreamStageStatus;
  /** Why the stage was skipped or cancelled. */
  readonly reason: string | undefined;
  /** What the stage looked at (counts by kind). */
  readonly read: Readonly<Record<string, number>>;
  /** What it changed in the file (counts by kind); all zero for a stage whose result was not applied. */
  readonly changed: Readonly<Record<string, number>>;
  /** Time spent computing (model calls included), in ms. */
  readonly durationMs: number;
  /** Summariser calls made (each may be several model requests with retries). */
  readonly modelCalls: number;
  /** Failures (model errors, unusable replies); what they concerned was left as it was. */
  readonly errors: readonly string[];
  /** Parts not applied because what they were computed from changed meanwhile. */
  readonly conflicts: readonly string[];
}

/** Dream's estimate of the agent, kept apart from the host-written profile fields. */
export interface DistilledProfile {
  /** Dream's third-person personality line (≤ 160 characters); the host's `personality` is untouched. */
  readonly personality: string;
  readonly emotion: ProfileEmotion;
  /** Axes in −1..1; `type` is derived from them (never taken from a model). */
  readonly mbti: MbtiAxes;
  readonly distilledAt: number;
  /** The pass that distilled it. */
  readonly dreamId: string;
}

/** A Dream pass. */
export interface DreamReport {
  readonly id: string;
  /** The scene the pass compressed; undefined = every scene of the agent. */
  readonly sceneId: string | undefined;
  readonly startedBy: 'explicit' | 'background';
  readonly status: DreamStatus;
  readonly startedAt: number;
  readonly finishedAt: number | undefined;
  readonly durationMs: number;
  /** How long the pass held the file's write lock to apply its result (one transaction). */
  readonly applyMs: number;
  readonly modelCalls: number;
  readonly stages: readonly DreamStageReport[];
  /** The profile estimate this pass wrote, if it wrote one. */
  readonly profile: DistilledProfile | undefined;
  /** Failures of the pass as a whole (lost lease, apply refused). */
  readonly errors: readonly string[];
  /** When `undoDream` reverted this pass. */
  readonly undoneAt: number | undefined;
}

/** What `undoDream` put back. */
export interface UndoDreamReport {
  readonly id: string;
  /** Topics moved back to the surface. */
  readonly topicsUnfused: number;
  /** Fused topics removed, with their reconstruction records and index rows. */
  readonly fusedTopicsRemoved: number;
  readonly radialNodesRestored: number;
  /** Engram nodes and edges put back as they were before the pass. */
  readonly engramRowsRestored: number;
  readonly profileRestored: boolean;
  /**
   * Records retention deleted during that pass. Retention is deliberate deletion: undo does not
   * bring them back. Filled-in pending summaries and keywords are not reverted either (they
   * only completed derived data that was missing).
   */
  readonly prunedNotRestored: { readonly archiveRecords: number; readonly planNodes: number };
}
