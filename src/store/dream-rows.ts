import type { RawTopic } from './conversation-rows.js';

/* Dream's run rows, the topic fingerprint and the profile record's key (engine-neutral: no SQL). */

/** Who started a pass. */
export type DreamStartedBy = 'explicit' | 'background';
/** A pass's state as stored. */
export type DreamRunStatus = 'running' | 'ok' | 'partial' | 'cancelled';

/** A row of `dream_runs`. `report` and `undo` are JSON text. */
export interface DreamRunRow {
  readonly id: string;
  readonly sceneId: string | undefined;
  readonly startedBy: DreamStartedBy;
  readonly status: DreamRunStatus;
  readonly owner: string;
  readonly startedAt: number;
  readonly finishedAt: number | undefined;
  readonly report: string;
  readonly undo: string;
  readonly undoneAt: number | undefined;
}

export interface RawRun {
  id: string;
  scene_id: string | null;
  started_by: DreamStartedBy;
  status: DreamRunStatus;
  owner: string;
  started_at: number;
  finished_at: number | null;
  report: string;
  undo: string;
  undone_at: number | null;
}

export const toRun = (row: RawRun): DreamRunRow => ({
  id: row.id,
  sceneId: row.scene_id ?? undefined,
  startedBy: row.started_by,
  status: row.status,
  owner: row.owner,
  startedAt: row.started_at,
  finishedAt: row.finished_at ?? undefined,
  report: row.report,
  undo: row.undo,
  undoneAt: row.undone_at ?? undefined,
});

/** The fingerprint compression compares: everything about a surface topic a fusion relies on. */
export function fingerprintOf(row: RawTopic): string {
  return JSON.stringify([
    row.scene_id,
    row.depth,
    row.parent_id,
    row.status,
    row.keywords,
    row.keywords_state,
    row.user_ts,
    row.agent_ts,
  ]);
}

export const profileKey = (agentId: number): string => `dream.${agentId}.profile`;
