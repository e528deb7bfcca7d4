import { z } from 'zod';
import { parseInput } from '../../core/validate.js';
import type { DreamRunRow } from '../../store/dream-repo.js';
import type { MemoryContext } from '../context.js';
import { idSchema } from '../../core/model/conversation.js';
import type { DistilledProfile, DreamReport, DreamStatus } from '../../core/model/dream.js';
import { toDistilledProfile } from './profile-distill.js';

const historySchema = z.strictObject({
  limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000).default(100),
});

/** Options of `dreamHistory`. */
export type DreamHistoryOptions = z.input<typeof historySchema>;

/** A pass's report from its row: what it stored, with the row's live state over it. */
function reportOfRun(run: DreamRunRow, live: boolean): DreamReport {
  let stored: Partial<DreamReport> = {};
  try {
    stored = JSON.parse(run.report) as Partial<DreamReport>;
  } catch {
    // an unreadable report still lists the run with what its columns say
  }
  const status: DreamStatus = run.status === 'running' && !live ? 'interrupted' : run.status;
  return {
    id: run.id,
    sceneId: run.sceneId,
    startedBy: run.startedBy,
    status,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    durationMs: stored.durationMs ?? 0,
    applyMs: stored.applyMs ?? 0,
    modelCalls: stored.modelCalls ?? 0,
    stages: stored.stages ?? [],
    profile: stored.profile ?? undefined,
    errors: stored.errors ?? [],
    undoneAt: run.undoneAt,
  };
}

/** The agent's passes, newest first (at most `limit`, default 100). */
export async function dreamHistory(
  context: MemoryContext,
  isLive: (run: DreamRunRow) => Promise<boolean>,
  options: unknown = {},
): Promise<DreamReport[]> {
  const { limit } = parseInput(historySchema, options ?? {}, 'dreamHistory');
  const runs = await context.store.read('dreamHistory', (tx) => tx.dream.list(context.agentId, limit));
  return Promise.all(runs.map(async (run) => reportOfRun(run, await isLive(run))));
}

/** Validates the id given to `undoDream`. */
export function parseDreamId(id: unknown): string {
  return parseInput(idSchema, id, 'undoDream.id');
}

/** Validates the optional scene id given to `dream`. */
export function parseDreamScene(sceneId: unknown): string | undefined {
  return sceneId === undefined ? undefined : parseInput(idSchema, sceneId, 'dream.sceneId');
}

/** Dream's current estimate of the agent (undefined before the first distillation). */
export async function distilledProfile(context: MemoryContext): Promise<DistilledProfile | undefined> {
  return toDistilledProfile(
    await context.store.read('distilledProfile', (tx) => tx.dream.profileEstimate(context.agentId)),
  );
}
