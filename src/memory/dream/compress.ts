/**
 * Scene compression: adjacent surface turns of the same thread are grouped (by the summariser)
 * into a fused topic holding a reconstruction; the turns are folded under it, never deleted.
 */
import { newId } from '../../core/ids.js';
import { codePointLength, truncateText } from '../../core/text.js';
import { appendMissingKeywords } from '../../llm/topic-grouping.js';
import type { TopicForGrouping } from '../../llm/types.js';
import type { FusionWrite, SurfaceTopicRow } from '../../store/dream-repo.js';
import type { MemoryContext } from '../context.js';
import { distill } from '../scenes/turn-loop.js';
import type { StageRecord } from './stage-record.js';
import { messageOf, type StageSummarizer } from './stage-summarizer.js';

/** Code points of a turn's dialogue shown to the grouping call. */
const GROUPING_TEXT_CHARS = 1200;
/** Longest reconstruction kept (code points, before missing member keywords are appended). */
export const RECONSTRUCTION_CHARS = 12_000;

/** A group that passed every check, with its members in surface order. */
interface AcceptedGroup {
  readonly members: readonly SurfaceTopicRow[];
  readonly summary: string;
}

/**
 * Keeps the groups a summariser proposed that obey the contract, whoever implemented it: a list
 * of `{ topicIds, mergedSummary }`, at least two distinct known turns per group, each turn in one
 * group, members adjacent on the scene's surface (a fused topic between them breaks adjacency:
 * fused topics are never fused again), a non-empty reconstruction. Each reconstruction gets every
 * member keyword it lacks appended, so nothing searchable is lost.
 */
export function acceptGroups(
  surface: readonly SurfaceTopicRow[],
  proposal: unknown,
): { accepted: AcceptedGroup[]; rejected: string[] } {
  const rejected: string[] = [];
  if (!Array.isArray(proposal)) return { accepted: [], rejected: ['the grouping reply is not a list'] };
  const position = new Map(surface.map((topic, i) => [topic.id, i]));
  const used = new Set<string>();
  const accepted: AcceptedGroup[] = [];
  proposal.forEach((group: unknown, n) => {
    const checked = checkGroup(group, surface, position, used);
    if (typeof checked === 'string') {
      rejected.push(`group ${n + 1}: ${checked}`);
      return;
    }
    const members = checked.at.map((p) => surface[p] as SurfaceTopicRow);
    for (const member of members) used.add(member.id);
    const summary =
      codePointLength(checked.summary) > RECONSTRUCTION_CHARS
        ? truncateText(checked.summary, RECONSTRUCTION_CHARS)
        : checked.summary;
    accepted.push({ members, summary: appendMissingKeywords(summary, members) });
  });
  return { accepted, rejected };
}

/** The group's surface positions (sorted) and trimmed reconstruction, or what is wrong with it. */
function checkGroup(
  group: unknown,
  surface: readonly SurfaceTopicRow[],
  position: ReadonlyMap<string, number>,
  used: ReadonlySet<string>,
): { at: number[]; summary: string } | string {
  if (typeof group !== 'object' || group === null) return 'not an object';
  const { topicIds, mergedSummary } = group as { topicIds?: unknown; mergedSummary?: unknown };
  if (!Array.isArray(topicIds) || !topicIds.every((id) => typeof id === 'string'))
    return 'topicIds is not a list of ids';
  if (typeof mergedSummary !== 'string' || mergedSummary.trim().length === 0)
    return 'the reconstruction is empty';
  const ids = [...new Set(topicIds as string[])];
  if (ids.length < 2) return 'fewer than two topics';
  const unknown = ids.find((id) => !position.has(id));
  if (unknown !== undefined) return `${unknown} is not a topic on this scene's surface`;
  const reused = ids.find((id) => used.has(id));
  if (reused !== undefined) return `${reused} is already in another group`;
  const at = ids.map((id) => position.get(id) as number).sort((a, b) => a - b);
  if (at.some((p) => surface[p]?.kind !== 'turn')) return 'a fused topic cannot be fused again';
  if (at.some((p, i) => i > 0 && p !== (at[i - 1] as number) + 1)) return 'the topics are not adjacent';
  return { at, summary: mergedSummary.trim() };
}

/** What the grouping call is shown of a turn. */
function forGrouping(topic: SurfaceTopicRow): TopicForGrouping {
  const text = topic.text.length > 0 ? truncateText(topic.text, GROUPING_TEXT_CHARS) : undefined;
  return text === undefined
    ? { id: topic.id, keywords: topic.keywords }
    : { id: topic.id, keywords: topic.keywords, text };
}

/**
 * Plans the fusions of the given scenes (model calls; no transaction is open). A failed or
 * unusable grouping leaves that scene as it is and is recorded on `stage`; a failed keyword
 * distillation of a reconstruction leaves the fused topic's keywords pending (filled later).
 */
export async function planCompression(
  context: MemoryContext,
  summarizer: StageSummarizer,
  sceneIds: readonly string[],
  stage: StageRecord,
  yieldNow: () => Promise<void>,
): Promise<FusionWrite[]> {
  const minTopics = context.settings.dream.compressMinTopics;
  const fusions: FusionWrite[] = [];
  const withModel: MemoryContext = { ...context, summarizer };
  stage.read = { scenes: 0, topics: 0 };
  for (const sceneId of sceneIds) {
    await yieldNow();
    const { surface } = await context.store.read('dream compress', (tx) => tx.dream.surface(sceneId));
    stage.read.scenes = (stage.read.scenes ?? 0) + 1;
    stage.read.topics = (stage.read.topics ?? 0) + surface.length;
    const turns = surface.filter((topic) => topic.kind === 'turn');
    if (turns.length < 2) continue;
    const target = Math.max(1, minTopics - (surface.length - turns.length));
    let proposal: unknown;
    try {
      proposal = await summarizer.groupTopics(turns.map(forGrouping), { target });
    } catch (error) {
      stage.fail(`scene ${sceneId}: grouping failed: ${messageOf(error)}`);
      continue;
    }
    const { accepted, rejected } = acceptGroups(surface, proposal);
    for (const problem of rejected) stage.fail(`scene ${sceneId}: unusable ${problem}`);
    for (const group of accepted) fusions.push(await fusionOf(withModel, sceneId, group, stage));
  }
  return fusions;
}

async function fusionOf(
  context: MemoryContext,
  sceneId: string,
  group: AcceptedGroup,
  stage: StageRecord,
): Promise<FusionWrite> {
  // The grouping call saw `who: content` lines, and reconstructions may keep them: the speaker
  // labels are not keywords of the fused topic.
  const content = group.summary.replace(/^(?:user|agent|system|dream):[ \t]*/gimu, '');
  const { keywords, error } = await distill(context, [{ role: 'dream', content }]);
  if (keywords === undefined)
    stage.fail(
      `scene ${sceneId}: keywords of a reconstruction left pending: ${error ?? 'distillation failed'}`,
    );
  return {
    sceneId,
    fusedId: newId('tpc'),
    members: group.members.map((member) => ({ id: member.id, fingerprint: member.fingerprint })),
    summary: group.summary,
    keywords,
    userTs: Math.min(...group.members.map((m) => m.userTs)),
    agentTs: Math.max(...group.members.map((m) => m.agentTs)),
  };
}
