/**
 * Radial re-summarisation. Views present a node at the level its distance from position 1
 * earns (`levelAtDistance`: detailed at position 1, summary at 2, brief at 3–4, origin at 5–8),
 * so once a node has moved away, its abstract levels are what readers see of it. When the
 * summaries were written by a weaker summariser than the one configured now (the offline one,
 * and a language model is configured), Dream rewrites the level the node is now presented at and
 * every more abstract one, chained from the stored level above, nearest position first. Position
 * 1 is left alone (it is presented in full detail), and so are supplied or imported summaries.
 */
import type { RefreshCandidate, RefreshWrite, SummarySnapshot } from '../../store/dream-repo.js';
import type { MemoryContext } from '../context.js';
import { levelAtDistance, SUMMARY_LEVELS, type SummaryLevelName } from '../../core/model/levels.js';
import { computeSummaries, SummaryTier, type PartialSummaries } from '../radial/summaries.js';
import type { StageRecord } from './stage-record.js';
import { messageOf, type StageSummarizer } from './stage-summarizer.js';

/** Nodes refreshed per pass at most (each costs up to three summariser calls). */
const REFRESH_PER_PASS = 16;

/** The tier a summariser's summaries are recorded with (`nodes.summaries_tier`). */
function tierOfSummarizer(summarizer: { readonly id: string }): number {
  return summarizer.id === 'offline' ? SummaryTier.offline : SummaryTier.model;
}

/** The levels refreshed for a node at `position`: the one it is presented at and the more abstract ones. */
function levelsToRefresh(position: number): SummaryLevelName[] {
  const presented = levelAtDistance(3, position - 1) ?? 0;
  return SUMMARY_LEVELS.slice(0, Math.min(presented, 2) + 1);
}

function partial(snapshot: SummarySnapshot): PartialSummaries {
  const out: PartialSummaries = {};
  if (snapshot.origin !== null) out.origin = snapshot.origin;
  if (snapshot.brief !== null) out.brief = snapshot.brief;
  if (snapshot.summary !== null) out.summary = snapshot.summary;
  if (snapshot.detailed !== null) out.detailed = snapshot.detailed;
  return out;
}

/**
 * Computes the refreshed levels of the candidates (model calls, outside any transaction). A node
 * whose summariser call fails is left as it is and the failure recorded.
 */
export async function planRefreshes(
  context: MemoryContext,
  summarizer: StageSummarizer,
  stage: StageRecord,
  yieldNow: () => Promise<void>,
): Promise<RefreshWrite[]> {
  const tier = tierOfSummarizer(context.summarizer);
  const candidates = await context.store.read('dream radial', (tx) =>
    tx.dream.refreshCandidates(context.agentId, tier, REFRESH_PER_PASS),
  );
  stage.read.refreshCandidates = candidates.length;
  const refreshes: RefreshWrite[] = [];
  for (const candidate of candidates) {
    await yieldNow();
    const refresh = await refreshOne(summarizer, candidate, tier, stage);
    if (refresh) refreshes.push(refresh);
  }
  return refreshes;
}

async function refreshOne(
  summarizer: StageSummarizer,
  candidate: RefreshCandidate,
  tier: number,
  stage: StageRecord,
): Promise<RefreshWrite | undefined> {
  const levels = levelsToRefresh(candidate.position);
  const known = partial(candidate.summaries);
  for (const level of levels) delete known[level];
  // The stored level above the refreshed ones is the input, so the full context is never needed.
  const task = {
    taskLabel: candidate.taskLabel,
    conversationSummary: '',
    fileChanges: [],
    todos: [],
    fullContext: '',
  };
  const computed = await computeSummaries(summarizer, task, known);
  if (!computed.complete) {
    stage.fail(`node ${candidate.nodeId}: ${messageOf(computed.error)}`);
    return undefined;
  }
  const s = computed.summaries;
  return {
    nodeId: candidate.nodeId,
    before: candidate.summaries,
    after: {
      origin: s.origin ?? null,
      brief: s.brief ?? null,
      summary: s.summary ?? null,
      detailed: s.detailed ?? null,
      tier,
    },
  };
}
