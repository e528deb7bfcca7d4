/**
 * One Dream pass. It never blocks a turn: it reads snapshots (short read transactions), computes
 * (model calls outside any transaction, yielding to the event loop between units of work), then
 * applies everything in ONE short write transaction that first re-checks what each part was
 * computed from and skips (and reports) a part whose inputs changed meanwhile. The exception is
 * the filling of pending summaries and keywords, which reuses the radial and conversation
 * backfills: each item is its own short transaction, and a model failure leaves it pending.
 */
import { HedgehopError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { ProfileDistillation } from '../../llm/types.js';
import type {
  DreamRunStatus,
  FusionWrite,
  ProfileEstimateRow,
  RefreshWrite,
} from '../../store/dream-repo.js';
import { applyPass, type DreamApplyResult, type EngramWrite, type ProfileWrite } from './dream-apply.js';
import type { StoreTx } from '../../store/seam.js';
import type { MemoryContext } from '../context.js';
import { cleanKeywords } from '../../llm/keyword-extraction.js';
import { ENGRAM, topKeywords } from '../engram/engram-math.js';
import { planEngram, sceneEvidence, type EngramPlan } from '../engram/engram-plan.js';
import { RadialService } from '../radial/radial-service.js';
import { fillPendingKeywords } from '../scenes/turn-loop.js';
import { planCompression } from './compress.js';
import { type DreamReport, type DreamStageName, type DreamStatus } from '../../core/model/dream.js';
import { StageRecord } from './stage-record.js';
import {
  checkDistillation,
  profileSamples,
  storedDistillation,
  toDistilledProfile,
} from './profile-distill.js';
import { planRefreshes } from './radial-refresh.js';
import { messageOf, StageSummarizer } from './stage-summarizer.js';

/** How many pending topics / radial nodes one pass fills at most. */
const FILL_PER_PASS = 100;

/** The lease a pass runs under (coordinates passes of one agent across processes). */
export interface PassLease {
  readonly name: string;
  readonly owner: string;
  /** Extends the lease; false when another owner holds it now. */
  renew(): Promise<boolean>;
  /** Wall-clock time for lease expiry checks (leases are compared across processes). */
  wallNow(): number;
}

/** How a pass is run. */
interface DreamPassOptions {
  readonly sceneId: string | undefined;
  readonly startedBy: 'explicit' | 'background';
  readonly lease: PassLease;
  readonly signal: AbortSignal;
  readonly callTimeoutMs: number;
}

const STAGE_ORDER: readonly DreamStageName[] = ['radial', 'compress', 'profile', 'engram', 'retention'];

const yieldNow = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What the compute half of a pass produced. */
interface Computed {
  refreshes: RefreshWrite[];
  fusions: FusionWrite[];
  distillation: ProfileDistillation | undefined;
  engram: EngramPlan | undefined;
  retentionCutoff: number | undefined;
}

class Pass {
  readonly id = newId('drm');
  readonly stages = new Map<DreamStageName, StageRecord>(
    STAGE_ORDER.map((name) => [name, new StageRecord(name)]),
  );
  readonly errors: string[] = [];
  readonly computed: Computed = {
    refreshes: [],
    fusions: [],
    distillation: undefined,
    engram: undefined,
    retentionCutoff: undefined,
  };
  readonly startedAt: number;
  readonly #started = performance.now();
  applyMs = 0;
  cancelled: string | undefined;

  constructor(
    readonly context: MemoryContext,
    readonly options: DreamPassOptions,
  ) {
    this.startedAt = context.clock.now();
  }

  stage(name: DreamStageName): StageRecord {
    return this.stages.get(name) as StageRecord;
  }

  /** Stops before the next stage when the pass was cancelled or lost its lease. */
  async checkpoint(): Promise<boolean> {
    if (this.cancelled !== undefined) return false;
    if (this.options.signal.aborted) this.cancelled = 'the memory file is closing';
    else if (!(await this.options.lease.renew()))
      this.cancelled = `lease ${this.options.lease.name} is held by another process`;
    return this.cancelled === undefined;
  }

  async run(
    name: DreamStageName,
    body: (stage: StageRecord, summarizer: StageSummarizer) => Promise<void> | void,
  ): Promise<void> {
    const stage = this.stage(name);
    if (!(await this.checkpoint())) {
      stage.cancel(`cancelled: ${this.cancelled ?? ''}`);
      return;
    }
    const summarizer = new StageSummarizer(
      this.context.summarizer,
      this.options.signal,
      this.options.callTimeoutMs,
    );
    const start = performance.now();
    try {
      await body(stage, summarizer);
    } catch (error) {
      stage.fail(messageOf(error));
    }
    stage.durationMs = performance.now() - start;
    stage.modelCalls = summarizer.calls;
    if (this.options.signal.aborted && stage.status === 'ok')
      stage.cancel('cancelled: the memory file is closing');
  }

  /** The pass's report; `written` is the profile estimate when this pass wrote it. */
  report(status: DreamStatus, written: ProfileEstimateRow | undefined): DreamReport {
    const stages = STAGE_ORDER.map((name) => this.stage(name).report());
    const estimate = written ? toDistilledProfile(written) : undefined;
    return {
      id: this.id,
      sceneId: this.options.sceneId,
      startedBy: this.options.startedBy,
      status,
      startedAt: this.startedAt,
      finishedAt: this.context.clock.now(),
      durationMs: Math.round((performance.now() - this.#started) * 100) / 100,
      applyMs: Math.round(this.applyMs * 100) / 100,
      modelCalls: stages.reduce((sum, stage) => sum + stage.modelCalls, 0),
      stages,
      profile: estimate,
      errors: [...this.errors],
      undoneAt: undefined,
    };
  }
}

/**
 * Runs one Dream pass for the agent of `context` and returns its report. The pass is recorded
 * in `dream_runs` from its start; failures of stages are in the report, never thrown.
 */
export async function runDreamPass(context: MemoryContext, options: DreamPassOptions): Promise<DreamReport> {
  const pass = new Pass(context, options);
  const run = {
    id: pass.id,
    agentId: context.agentId,
    sceneId: options.sceneId,
    startedBy: options.startedBy,
    owner: options.lease.owner,
    startedAt: pass.startedAt,
  };
  await context.store.write('dream start', (tx) => tx.dream.start(run));
  await pass.run('radial', (stage, summarizer) => radialStage(pass, stage, summarizer));
  await pass.run('compress', async (stage, summarizer) => {
    pass.computed.fusions = await compressStage(pass, stage, summarizer);
  });
  await pass.run('profile', (stage, summarizer) => profileStage(pass, stage, summarizer));
  await yieldNow();
  // Whatever changes between the engram's reads and the apply (here or in another process) is
  // caught by the stamps the apply re-checks inside its transaction.
  await pass.run('engram', (stage) => engramStage(pass, stage));
  await pass.run('retention', (stage) => retentionStage(pass, stage));
  if (!(await pass.checkpoint())) return finishWithoutApply(pass, 'cancelled', pass.cancelled ?? 'cancelled');
  return apply(pass);
}

async function radialStage(pass: Pass, stage: StageRecord, summarizer: StageSummarizer): Promise<void> {
  const context: MemoryContext = { ...pass.context, summarizer };
  const keywords = await fillPendingKeywords(context, { limit: FILL_PER_PASS });
  for (const [topicId, error] of Object.entries(keywords.errors)) stage.fail(`topic ${topicId}: ${error}`);
  const summaries = await new RadialService(context).fillPendingSummaries(FILL_PER_PASS);
  if (summaries.failed > 0)
    stage.fail(`${summaries.failed} radial node(s) still pending: ${summaries.lastError ?? ''}`);
  stage.read = {
    pendingTopics: keywords.filled + keywords.failed,
    pendingNodes: summaries.filled + summaries.failed,
  };
  // Filled items were written as they were computed (their own short transactions).
  stage.changed = { keywordsFilled: keywords.filled, summariesFilled: summaries.filled, nodesRefreshed: 0 };
  pass.computed.refreshes = await planRefreshes(pass.context, summarizer, stage, yieldNow);
  const looked = Object.values(stage.read).reduce((a, b) => a + b, 0);
  if (looked === 0) stage.skip('nothing pending, and no summary written by a weaker summariser to refresh');
}

async function compressStage(
  pass: Pass,
  stage: StageRecord,
  summarizer: StageSummarizer,
): Promise<FusionWrite[]> {
  const { context, options } = pass;
  const min = context.settings.dream.compressMinTopics;
  const sceneIds = await context.store.read('dream compress', (tx) =>
    tx.dream.compressibleScenes(context.agentId, options.sceneId, min),
  );
  stage.changed = { fusedTopics: 0, topicsFolded: 0 };
  if (sceneIds.length === 0) {
    stage.read = { scenes: 0, topics: 0 };
    stage.skip(`no scene has ${min} or more surface topics`);
    return [];
  }
  return planCompression(context, summarizer, sceneIds, stage, yieldNow);
}

async function evidenceOf(pass: Pass): Promise<{
  plan: (
    emotions?: ReadonlyMap<string, { readonly valence: number; readonly arousal: number }>,
  ) => EngramPlan;
  keywords: Map<string, string[]>;
  read: Record<string, number>;
}> {
  const { context } = pass;
  const { stored, rows } = await context.store.read('dream engram', async (tx) => ({
    stored: await tx.engram.list(context.agentId),
    rows: await tx.engram.sceneEvidence(context.agentId),
  }));
  const scenes = rows.map(sceneEvidence);
  const keywords = new Map(
    rows.map((row) => [
      row.sceneId,
      topKeywords(
        row.topics.map((t) => cleanKeywords(t.keywords, Number.POSITIVE_INFINITY)),
        ENGRAM.keywordsPerSample,
      ),
    ]),
  );
  const now = context.clock.now();
  return {
    plan: (emotions) =>
      planEngram({
        nodes: stored.nodes,
        edges: stored.edges,
        scenes,
        now,
        ...(emotions ? { emotions } : {}),
      }),
    keywords,
    read: { scenes: scenes.length, nodes: stored.nodes.length, edges: stored.edges.length },
  };
}

async function profileStage(pass: Pass, stage: StageRecord, summarizer: StageSummarizer): Promise<void> {
  const { context } = pass;
  stage.changed = { profile: 0 };
  const evidence = await evidenceOf(pass);
  const preliminary = evidence.plan();
  const estimate = await context.store.read('dream profile', (tx) =>
    tx.dream.profileEstimate(context.agentId),
  );
  const fresh = preliminary.counts.nodesAdded + preliminary.counts.nodesRenewed > 0;
  if (estimate.distilled !== undefined && !fresh) {
    stage.read = { samples: 0 };
    stage.skip('no new evidence since the last distillation');
    return;
  }
  const samples = profileSamples(preliminary, evidence.keywords, context.clock.now());
  stage.read = { samples: samples.length };
  if (samples.length === 0) {
    stage.skip('no scene has keywords yet');
    return;
  }
  const raw: unknown = await summarizer.distillProfile(samples);
  pass.computed.distillation = checkDistillation(raw, new Set(samples.map((s) => s.id)));
}

async function engramStage(pass: Pass, stage: StageRecord): Promise<void> {
  const evidence = await evidenceOf(pass);
  const perNode = pass.computed.distillation?.perNode ?? [];
  const plan = evidence.plan(
    new Map(perNode.map((row) => [row.id, { valence: row.valence, arousal: row.arousal }])),
  );
  stage.read = evidence.read;
  stage.changed = { ...zeroCounts(plan) };
  pass.computed.engram = plan;
}

function zeroCounts(plan: EngramPlan): Record<string, number> {
  return Object.fromEntries(Object.keys(plan.counts).map((key) => [key, 0]));
}

function retentionStage(pass: Pass, stage: StageRecord): void {
  const windowMs = pass.context.settings.retentionMs;
  stage.changed = { archiveRecords: 0, planNodes: 0 };
  if (windowMs === undefined) {
    stage.skip(
      'retention is off: nothing verbatim is deleted unless the memory is opened with a retention policy',
    );
    return;
  }
  stage.read = { windowMs };
  pass.computed.retentionCutoff = pass.context.clock.now() - windowMs;
}

async function profileWrite(pass: Pass, tx: StoreTx): Promise<ProfileWrite | undefined> {
  const distillation = pass.computed.distillation;
  if (!distillation) return undefined;
  const { context } = pass;
  const expected = await tx.dream.profileEstimate(context.agentId);
  return {
    expected,
    emotion: JSON.stringify(distillation.emotion),
    mbti: JSON.stringify(distillation.mbti),
    distilled: storedDistillation(distillation.personality, context.clock.now(), pass.id),
  };
}

function engramWrite(plan: EngramPlan | undefined): EngramWrite | undefined {
  if (!plan) return undefined;
  const { diff } = plan;
  const empty =
    diff.upsertNodes.length + diff.deleteNodes.length + diff.upsertEdges.length + diff.deleteEdges.length ===
    0;
  return empty ? undefined : { stamps: plan.changed, diff };
}

async function apply(pass: Pass): Promise<DreamReport> {
  const { context, options } = pass;
  const start = performance.now();
  let report: DreamReport | undefined;
  try {
    await context.store.write('dream', async (tx) =>
      applyPass(
        tx,
        {
          runId: pass.id,
          agentId: context.agentId,
          lease: { name: options.lease.name, owner: options.lease.owner, now: options.lease.wallNow() },
          now: context.clock.now(),
          fusions: pass.computed.fusions,
          refreshes: pass.computed.refreshes,
          engram: engramWrite(pass.computed.engram),
          profile: await profileWrite(pass, tx),
          retentionCutoff: pass.computed.retentionCutoff,
        },
        (result, estimate) => {
          record(pass, result);
          pass.applyMs = performance.now() - start;
          report = pass.report(statusOf(pass), result.profile === 'applied' ? estimate : undefined);
          return { status: report.status as DreamRunStatus, report: JSON.stringify(report) };
        },
      ),
    );
  } catch (error) {
    if (HedgehopError.isInstance(error) && error.code === 'CLOSED') throw error;
    pass.errors.push(`nothing was applied: ${messageOf(error)}`);
    const lost = HedgehopError.isInstance(error) && error.code === 'BUSY';
    return finishWithoutApply(pass, lost ? 'cancelled' : 'partial', lost ? messageOf(error) : undefined);
  }
  return report as DreamReport;
}

function statusOf(pass: Pass): DreamStatus {
  const stages = [...pass.stages.values()].map((stage) => stage.report());
  const troubled = stages.some((stage) => stage.status === 'error' || stage.conflicts.length > 0);
  return troubled || pass.errors.length > 0 ? 'partial' : 'ok';
}

/** Writes what the apply did into the stages' `changed` counts and conflicts. */
function record(pass: Pass, result: DreamApplyResult): void {
  const radial = pass.stage('radial');
  radial.changed = { ...radial.changed, nodesRefreshed: result.refreshes.length };
  for (const nodeId of result.refreshConflicts)
    radial.conflicts.push(`radial node ${nodeId} changed meanwhile`);
  const compress = pass.stage('compress');
  compress.changed = {
    fusedTopics: result.fusions.length,
    topicsFolded: result.fusions.reduce((sum, fusion) => sum + fusion.members.length, 0),
  };
  for (const conflict of result.fusionConflicts)
    compress.conflicts.push(`scene ${conflict.sceneId}: ${conflict.reason}`);
  const engram = pass.stage('engram');
  const plan = pass.computed.engram;
  if (plan && result.engram === 'applied') engram.changed = { ...plan.counts };
  if (result.engram === 'conflict')
    engram.conflicts.push(result.engramConflict ?? 'the engram changed meanwhile');
  const profile = pass.stage('profile');
  profile.changed = { profile: result.profile === 'applied' ? 1 : 0 };
  if (result.profile === 'conflict') profile.conflicts.push('the profile estimate changed meanwhile');
  const retention = pass.stage('retention');
  if (result.pruned) retention.changed = { ...result.pruned };
}

async function finishWithoutApply(
  pass: Pass,
  status: DreamRunStatus,
  reason: string | undefined,
): Promise<DreamReport> {
  for (const stage of pass.stages.values()) {
    if (stage.status === 'ok' && reason !== undefined && status === 'cancelled')
      stage.cancel(`cancelled: ${reason}`);
    // Only the fills were written (item by item); nothing computed for the apply was.
    if (stage.name !== 'radial')
      stage.changed = Object.fromEntries(Object.keys(stage.changed).map((k) => [k, 0]));
    else stage.changed = { ...stage.changed, nodesRefreshed: 0 };
  }
  if (reason !== undefined && !pass.errors.some((e) => e.includes(reason))) pass.errors.push(reason);
  const report = pass.report(status, undefined);
  await pass.context.store.write('dream finish', (tx) =>
    tx.dream.finish(pass.id, status, JSON.stringify(report), report.finishedAt ?? pass.startedAt),
  );
  return report;
}
