import { HedgehopError } from '../../core/errors.js';
import type { UndoDreamReport } from '../../core/model/dream.js';
import type {
  DreamRunRow,
  DreamRunStatus,
  FusionWrite,
  ProfileEstimateRow,
  RefreshWrite,
  SurfacePlace,
} from '../../store/dream-repo.js';
import type { EngramDiff, EngramEdgeRow, EngramNodeRow } from '../../store/engram-repo.js';
import type { StoreTx } from '../../store/seam.js';

/** The engram changes of a pass and the stamps of the scenes they were computed from. */
export interface EngramWrite {
  readonly stamps: ReadonlyMap<string, string>;
  readonly diff: EngramDiff;
}

/** The profile estimate to write, if the stored one is still `expected`. */
export interface ProfileWrite {
  readonly expected: ProfileEstimateRow;
  readonly emotion: string;
  readonly mbti: string;
  readonly distilled: string;
}

/** The lease a pass must still hold when it writes. */
interface DreamLease {
  readonly name: string;
  readonly owner: string;
  readonly now: number;
}

/** Everything one Dream pass writes, applied in one transaction. */
interface DreamApplyRequest {
  readonly runId: string;
  readonly agentId: number;
  readonly lease: DreamLease;
  readonly now: number;
  readonly fusions: readonly FusionWrite[];
  readonly refreshes: readonly RefreshWrite[];
  readonly engram: EngramWrite | undefined;
  readonly profile: ProfileWrite | undefined;
  /** Retention cutoff (host time); undefined = retention is off. */
  readonly retentionCutoff: number | undefined;
}

/** What the apply transaction did. */
export interface DreamApplyResult {
  readonly fusions: readonly FusionWrite[];
  readonly fusionConflicts: readonly { readonly sceneId: string; readonly reason: string }[];
  readonly refreshes: readonly RefreshWrite[];
  readonly refreshConflicts: readonly string[];
  readonly engram: 'applied' | 'conflict' | 'none';
  readonly engramConflict: string | undefined;
  readonly profile: 'applied' | 'conflict' | 'none';
  readonly pruned: { readonly archiveRecords: number; readonly planNodes: number } | undefined;
}

/** What an undo put back (the public report without the pass's id). */
type DreamUndoResult = Omit<UndoDreamReport, 'id'>;

/** The `undo` JSON of a run: exactly what its apply changed, with the state before. */
interface UndoRecord {
  readonly fusions?: { readonly fusedId: string; readonly sceneId: string; readonly members: string[] }[];
  readonly radial?: RefreshWrite[];
  readonly engram?: {
    readonly nodes: { readonly sceneId: string; readonly before: EngramNodeRow | null }[];
    readonly edges: { readonly a: string; readonly b: string; readonly before: EngramEdgeRow | null }[];
  };
  readonly profile?: { readonly before: ProfileEstimateRow; readonly after: ProfileWrite };
  readonly pruned?: { readonly archiveRecords: number; readonly planNodes: number };
}

/** Builds the run's status and report from what was applied and the estimate as it now stands. */
type FinishApply = (
  result: DreamApplyResult,
  estimate: ProfileEstimateRow,
) => { status: DreamRunStatus; report: string };

const conflict = (message: string): HedgehopError => new HedgehopError('CONFLICT', message);

/**
 * Applies a pass inside the caller's ONE write transaction: checks the pass still holds its
 * lease (else `BUSY`, nothing written), then writes each part whose inputs are unchanged since
 * they were read (a changed part is skipped and reported), then the run's report and undo
 * record. Nothing here calls a model: everything was computed before the transaction.
 */
export async function applyPass(
  tx: StoreTx,
  request: DreamApplyRequest,
  finish: FinishApply,
): Promise<DreamApplyResult> {
  await checkLease(tx, request.lease);
  const fusions: FusionWrite[] = [];
  const fusionConflicts: { sceneId: string; reason: string }[] = [];
  for (const fusion of request.fusions) {
    const problem = await fusionProblem(tx, request.agentId, fusion);
    if (problem !== undefined) fusionConflicts.push({ sceneId: fusion.sceneId, reason: problem });
    else {
      await tx.dream.insertFusion(request.runId, request.agentId, request.now, fusion);
      fusions.push(fusion);
    }
  }
  const refreshes: RefreshWrite[] = [];
  for (const refresh of request.refreshes) {
    if (await tx.dream.replaceSummaries(request.agentId, refresh.nodeId, refresh.before, refresh.after))
      refreshes.push(refresh);
  }
  const refreshConflicts = request.refreshes.filter((r) => !refreshes.includes(r)).map((r) => r.nodeId);
  const engram = await applyEngram(tx, request.agentId, request.engram);
  const profile = await applyProfile(tx, request.agentId, request.profile, request.now);
  const pruned =
    request.retentionCutoff === undefined
      ? undefined
      : await prune(tx, request.agentId, request.retentionCutoff);
  const result: DreamApplyResult = {
    fusions,
    fusionConflicts,
    refreshes,
    refreshConflicts,
    engram: engram.state,
    engramConflict: engram.conflict,
    profile: profile.state,
    pruned,
  };
  const undo: UndoRecord = {
    ...(fusions.length > 0
      ? {
          fusions: fusions.map((f) => ({
            fusedId: f.fusedId,
            sceneId: f.sceneId,
            members: f.members.map((m) => m.id),
          })),
        }
      : {}),
    ...(refreshes.length > 0 ? { radial: refreshes } : {}),
    ...(engram.undo ? { engram: engram.undo } : {}),
    ...(profile.undo ? { profile: profile.undo } : {}),
    ...(pruned && pruned.archiveRecords + pruned.planNodes > 0 ? { pruned } : {}),
  };
  const { status, report } = finish(result, await tx.dream.profileEstimate(request.agentId));
  await tx.dream.record(request.agentId, request.runId, {
    status,
    finishedAt: request.now,
    report,
    undo: JSON.stringify(undo),
  });
  return result;
}

/**
 * Refuses (`BUSY`) unless `lease.owner` still holds the lease, and keeps it held until the
 * caller's transaction ends (the lease row is locked on PostgreSQL), so a takeover by another
 * machine between this check and the commit cannot happen.
 */
async function checkLease(tx: StoreTx, lease: DreamLease): Promise<void> {
  const owner = (await tx.leases.holderLocked(lease.name, lease.now))?.owner;
  if (owner !== lease.owner) {
    throw new HedgehopError(
      'BUSY',
      `dream: this pass lost its lease ${lease.name} (now held by ${owner ?? 'nobody'}); nothing was applied`,
    );
  }
}

/** Why a computed fusion may no longer be written, or undefined when it may. */
async function fusionProblem(tx: StoreTx, agentId: number, fusion: FusionWrite): Promise<string | undefined> {
  const places: SurfacePlace[] = [];
  for (const member of fusion.members) {
    const state = await tx.dream.topicState(agentId, member.id);
    if (!state) return `topic ${member.id} was deleted while Dream computed`;
    if (state.kind !== 'turn' || state.fingerprint !== member.fingerprint)
      return `topic ${member.id} changed while Dream computed`;
    places.push(state);
  }
  // The members are unchanged surface turns in (userTs, id) order; they are still adjacent when
  // no other surface topic lies between the first and the last.
  const between = await tx.dream.surfaceBetween(
    fusion.sceneId,
    places[0] as SurfacePlace,
    places[places.length - 1] as SurfacePlace,
  );
  return between === places.length - 2
    ? undefined
    : `topics ${fusion.members.map((m) => m.id).join(', ')} are no longer adjacent`;
}

async function applyEngram(
  tx: StoreTx,
  agentId: number,
  write: EngramWrite | undefined,
): Promise<{ state: DreamApplyResult['engram']; conflict?: string; undo?: UndoRecord['engram'] }> {
  if (!write) return { state: 'none' };
  for (const [sceneId, stamp] of write.stamps) {
    if ((await tx.engram.sceneStamp(sceneId)) !== stamp)
      return { state: 'conflict', conflict: `scene ${sceneId} changed while Dream computed the engram` };
  }
  const { diff } = write;
  const sceneIds = [...new Set([...diff.upsertNodes.map((n) => n.sceneId), ...diff.deleteNodes])];
  const pairs = [...diff.upsertEdges, ...diff.deleteEdges].map((e) => ({ a: e.a, b: e.b }));
  const before = await tx.engram.rowsOf(agentId, sceneIds, pairs);
  await tx.engram.write(agentId, diff);
  if (sceneIds.length + pairs.length === 0) return { state: 'applied' };
  return {
    state: 'applied',
    undo: {
      nodes: sceneIds.map((sceneId) => ({ sceneId, before: before.nodes.get(sceneId) ?? null })),
      edges: pairs.map((p) => ({ ...p, before: before.edges.get(`${p.a}\u0000${p.b}`) ?? null })),
    },
  };
}

async function applyProfile(
  tx: StoreTx,
  agentId: number,
  write: ProfileWrite | undefined,
  now: number,
): Promise<{ state: DreamApplyResult['profile']; undo?: UndoRecord['profile'] }> {
  if (!write) return { state: 'none' };
  const current = await tx.dream.profileEstimate(agentId);
  const same =
    current.emotion === write.expected.emotion &&
    current.mbti === write.expected.mbti &&
    current.distilled === write.expected.distilled;
  if (!same) return { state: 'conflict' };
  await tx.dream.writeEstimate(agentId, write, now);
  return { state: 'applied', undo: { before: current, after: write } };
}

/** Retention inside the pass: never the open turn. */
async function prune(
  tx: StoreTx,
  agentId: number,
  cutoff: number,
): Promise<{ archiveRecords: number; planNodes: number }> {
  const open = await tx.conversation.scenes.openTurnOf(agentId);
  return {
    archiveRecords: await tx.conversation.archive.prune(agentId, cutoff, open?.id),
    planNodes: await tx.conversation.plans.prune(agentId, cutoff),
  };
}

/**
 * Reverts what run `id` applied, inside the caller's one write transaction, or refuses
 * (`CONFLICT`, nothing written) when it cannot be done safely: the run was undone already or is
 * still running, a later run that changed something has not been undone, a fused topic was
 * deleted, named or had its members moved, or a refreshed radial node changed since.
 */
export async function undoPass(
  tx: StoreTx,
  agentId: number,
  id: string,
  now: number,
  lease: DreamLease,
): Promise<DreamUndoResult> {
  await checkLease(tx, lease);
  const record = await undoable(tx, agentId, id);
  let topicsUnfused = 0;
  for (const fusion of record.fusions ?? [])
    topicsUnfused += await tx.dream.removeFusion(fusion.fusedId, fusion.members);
  for (const refresh of record.radial ?? [])
    await tx.dream.replaceSummaries(agentId, refresh.nodeId, refresh.after, refresh.before);
  const engramRowsRestored = record.engram ? await restoreEngram(tx, agentId, record.engram) : 0;
  if (record.profile) await tx.dream.writeEstimate(agentId, record.profile.before, now);
  await tx.dream.markUndone(id, now);
  return {
    topicsUnfused,
    fusedTopicsRemoved: record.fusions?.length ?? 0,
    radialNodesRestored: record.radial?.length ?? 0,
    engramRowsRestored,
    profileRestored: record.profile !== undefined,
    prunedNotRestored: record.pruned ?? { archiveRecords: 0, planNodes: 0 },
  };
}

/**
 * Throws the refusal {@link undoPass} would give (`NOT_FOUND`, `CONFLICT`), writing nothing, so a
 * caller can refuse before it takes any lock.
 */
export async function checkUndo(tx: StoreTx, agentId: number, id: string): Promise<void> {
  await undoable(tx, agentId, id);
}

async function undoable(tx: StoreTx, agentId: number, id: string): Promise<UndoRecord> {
  const run = await tx.dream.get(agentId, id);
  if (!run) throw new HedgehopError('NOT_FOUND', `undoDream: no Dream pass ${id} for this agent`);
  if (run.undoneAt !== undefined) throw conflict(`undoDream: pass ${id} was already undone`);
  if (run.status === 'running')
    throw conflict(`undoDream: pass ${id} has not finished (an interrupted pass applied nothing to undo)`);
  await refuseIfLaterRuns(tx, agentId, run);
  const record = JSON.parse(run.undo) as UndoRecord;
  for (const fusion of record.fusions ?? []) await checkUnfuse(tx, agentId, fusion);
  for (const refresh of record.radial ?? []) await checkRefreshUndo(tx, agentId, refresh);
  return record;
}

async function refuseIfLaterRuns(tx: StoreTx, agentId: number, run: DreamRunRow): Promise<void> {
  const later = await tx.dream.laterChangingRun(agentId, run);
  if (later !== undefined)
    throw conflict(`undoDream: pass ${later} ran after ${run.id} and changed memory; undo ${later} first`);
}

async function checkUnfuse(
  tx: StoreTx,
  agentId: number,
  fusion: NonNullable<UndoRecord['fusions']>[number],
): Promise<void> {
  const fused = await tx.dream.topicState(agentId, fusion.fusedId);
  if (!fused) throw conflict(`undoDream: fused topic ${fusion.fusedId} was deleted since (with its members)`);
  if (fused.name !== undefined)
    throw conflict(
      `undoDream: fused topic ${fusion.fusedId} was named '${fused.name}' since; undoing would lose the name`,
    );
  if (fused.depth !== 1 || fused.parentId !== undefined)
    throw conflict(
      `undoDream: fused topic ${fusion.fusedId} was folded under ${fused.parentId ?? '?'} since`,
    );
  const children = await tx.dream.childrenOf(fusion.fusedId);
  const expected = [...fusion.members].sort();
  if (children.length !== expected.length || children.some((child, i) => child !== expected[i]))
    throw conflict(`undoDream: the topics under ${fusion.fusedId} changed since; cannot unfold them safely`);
}

async function checkRefreshUndo(tx: StoreTx, agentId: number, refresh: RefreshWrite): Promise<void> {
  const now = await tx.dream.nodeSummaries(agentId, refresh.nodeId);
  const same =
    now !== undefined &&
    now.origin === refresh.after.origin &&
    now.brief === refresh.after.brief &&
    now.summary === refresh.after.summary &&
    now.detailed === refresh.after.detailed &&
    now.tier === refresh.after.tier;
  if (!same) throw conflict(`undoDream: the summaries of radial node ${refresh.nodeId} changed since`);
}

// Only Dream writes the engram and later passes were undone first, so the recorded before-state
// is what to put back; rows of scenes deleted since stay gone.
async function restoreEngram(
  tx: StoreTx,
  agentId: number,
  engram: NonNullable<UndoRecord['engram']>,
): Promise<number> {
  const existing = await tx.engram.existingScenes(agentId, [
    ...new Set([...engram.nodes.map((n) => n.sceneId), ...engram.edges.flatMap((e) => [e.a, e.b])]),
  ]);
  const upsertNodes = engram.nodes.flatMap((n) => (n.before && existing.has(n.sceneId) ? [n.before] : []));
  const upsertEdges = engram.edges.flatMap((e) =>
    e.before && existing.has(e.a) && existing.has(e.b) ? [e.before] : [],
  );
  await tx.engram.write(agentId, {
    deleteNodes: engram.nodes.map((n) => n.sceneId),
    deleteEdges: engram.edges.map((e) => ({ a: e.a, b: e.b })),
    upsertNodes,
    upsertEdges,
  });
  return engram.nodes.length + engram.edges.length;
}
