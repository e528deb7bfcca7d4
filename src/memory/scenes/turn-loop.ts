import type { z } from 'zod';
import { newId } from '../../core/ids.js';
import { parseInput } from '../../core/validate.js';
import type { TurnUtterance } from '../../llm/types.js';
import type { ArchiveWrite } from '../../store/archive-repo.js';
import {
  searchQuerySchema,
  type SearchResult,
  type Topic,
  turnEndSchema,
  type TurnResult,
  OUTCOME_EVENT,
} from '../../core/model/conversation.js';
import { noOpenTurn } from '../../store/open-turn.js';
import type { MemoryContext } from '../context.js';
import { renderProfileBrief } from '../profile/profile-brief.js';

/**
 * Opens a turn (or returns the one still open), in one transaction. A turn already open in
 * another scene is a `CONFLICT` when the query names another scene or a new one.
 */
export async function search(context: MemoryContext, query: unknown = {}): Promise<SearchResult> {
  const parsed = parseInput(searchQuerySchema, query ?? {}, 'search');
  const request = {
    agentId: context.agentId,
    sceneId: parsed.sceneId,
    newScene: parsed.newScene,
    knowledgeId: parsed.knowledgeId,
    sceneName: parsed.sceneName,
    now: context.clock.now(),
    newSceneId: newId('scn'),
    newTopicId: newId('tpc'),
  };
  // Both calls start at once: on PostgreSQL their statements share one round trip.
  const [opened, profile] = await context.store.write('search', (tx) =>
    Promise.all([tx.conversation.scenes.openTurn(request), tx.conversation.profiles.get(context.agentId)]),
  );
  return {
    turnId: opened.turn.id,
    resumed: opened.resumed,
    scene: opened.scene,
    sceneCreated: opened.sceneCreated,
    profile,
    profileBrief: renderProfileBrief(profile),
    topics: opened.surface,
  };
}

function endRecords(end: z.output<typeof turnEndSchema>, createdAt: number): ArchiveWrite[] {
  const records: ArchiveWrite[] = [];
  const base = { contentType: 'text' as const, createdAt };
  if (end.input) records.push({ ...base, kind: 'utterance', role: 'user', content: end.input, seq: 1 });
  if (end.output) records.push({ ...base, kind: 'utterance', role: 'agent', content: end.output, seq: 2 });
  if (end.outcome) records.push({ ...base, kind: 'event', eventType: OUTCOME_EVENT, content: end.outcome });
  return records;
}

/** Keywords as distilled, cleaned (trimmed, no empties, no exact duplicates), or why they are not. */
export async function distill(
  context: MemoryContext,
  utterances: readonly TurnUtterance[],
): Promise<{ keywords: string[] | undefined; error: string | undefined }> {
  if (utterances.length === 0) return { keywords: [], error: undefined };
  try {
    const raw: unknown = await context.summarizer.distillKeywords(utterances);
    if (!Array.isArray(raw)) return { keywords: undefined, error: 'distillKeywords returned no list' };
    const keywords = [
      ...new Set(raw.filter((k): k is string => typeof k === 'string').map((k) => k.trim())),
    ].filter((k) => k.length > 0);
    return { keywords, error: undefined };
  } catch (error) {
    return { keywords: undefined, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Closes the open turn: distils its keywords (outside any transaction), then in ONE transaction
 * writes the input/output utterances and the outcome event, the topic (keywords, times, outcome)
 * and its index rows, and closes the turn. A failed distillation does not fail the call: the
 * turn closes with its keywords pending. Also returns how many surface topics the
 * turn's scene has now (read in the same transaction), which decides whether a background Dream
 * pass is due.
 */
export async function closeTurn(
  context: MemoryContext,
  turnEnd: unknown,
): Promise<{ result: TurnResult; surfaceCount: number }> {
  const end = parseInput(turnEndSchema, turnEnd, 'update');
  // The open turn and its utterances are read side by side (one round trip on PostgreSQL).
  const [turn, held] = await context.store.read('update', (tx) =>
    Promise.all([
      tx.conversation.scenes.openTurnOf(context.agentId),
      tx.conversation.archive.openTurnUtterances(context.agentId),
    ]),
  );
  if (!turn) throw noOpenTurn('update');
  const createdAt = end.createdAt ?? context.clock.now();
  const records = endRecords(end, createdAt);
  const bySeq = new Map<number, TurnUtterance>(
    held.map((u) => [u.seq, { role: u.role, content: u.content }]),
  );
  for (const record of records) {
    if (record.kind === 'utterance' && record.seq !== undefined)
      bySeq.set(record.seq, { role: record.role ?? 'user', content: record.content });
  }
  const utterances = [...bySeq.entries()].sort((a, b) => a[0] - b[0]).map(([, u]) => u);
  const { keywords, error } = await distill(context, utterances);
  const closing = {
    agentId: context.agentId,
    turnId: turn.id,
    records,
    keywords,
    outcome: end.outcome ? end.outcome : undefined,
    createdAt,
    now: context.clock.now(),
  };
  const { topic, surfaceCount } = await context.store.write(
    'update',
    (tx) => tx.conversation.scenes.closeTurn(closing),
    { oneCall: true },
  );
  return { result: { topic, keywordsPending: keywords === undefined, keywordsError: error }, surfaceCount };
}

/** What a {@link fillPendingKeywords} pass did. */
interface FillKeywordsReport {
  readonly filled: number;
  readonly failed: number;
  /** Errors by topic id, for the topics that are still pending. */
  readonly errors: Readonly<Record<string, string>>;
}

/**
 * Distils keywords for closed topics left pending by a failed model call (oldest first, at most
 * `limit`). Model calls run outside transactions; each topic is written in its own short one.
 */
export async function fillPendingKeywords(
  context: MemoryContext,
  options: { readonly limit?: number } = {},
): Promise<FillKeywordsReport> {
  const pending = await context.store.read('fillPendingKeywords', async (tx) => {
    const topics = await tx.conversation.scenes.pendingKeywordTopics(context.agentId, options.limit ?? 100);
    const out: { topic: Topic; utterances: TurnUtterance[] }[] = [];
    for (const topic of topics) {
      const held = await tx.conversation.archive.utterances(topic.id);
      out.push({ topic, utterances: held.map((u) => ({ role: u.role, content: u.content })) });
    }
    return out;
  });
  let filled = 0;
  const errors: Record<string, string> = {};
  for (const { topic, utterances } of pending) {
    const { keywords, error } = await distill(context, utterances);
    if (keywords === undefined) errors[topic.id] = error ?? 'distillation failed';
    else if (
      await context.store.write('fillPendingKeywords', (tx) =>
        tx.conversation.scenes.fillKeywords(context.agentId, topic.id, keywords),
      )
    )
      filled++;
  }
  return { filled, failed: Object.keys(errors).length, errors };
}
