/**
 * What the agent reads from conversation memory (issue 19): recall's top hit, latest-state
 * questions, Dream's topic segmentation and keyword shape, on the hand-labelled development
 * conversations (CONVERSATION_DATA, default ../shared/data/conversation-dev.json; skipped with a
 * note when absent). Each conversation is ingested as a library user would: one scene, each
 * turn opened with `search`, its tool events appended, closed with `update`. Baselines in the
 * same run: plain BM25 over one row per turn (text and events) for retrieval, and cutting at the
 * N least similar adjacent pairs (N = the true number of switches) for segmentation.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../src/api/memory-db.js';
import type { Agent } from '../src/api/agent.js';
import type { RecallHit } from '../src/core/model/recall.js';
import { matchExpression, queryTerms } from '../src/recall/query.js';
import { contentTerms } from '../src/core/text-analysis.js';
import { jaccard } from '../src/llm/topic-grouping.js';
import { Store } from '../src/store/store.js';
import { tempDir, type BenchModule, type BenchRow } from './harness.js';

/** Where the development conversations live unless CONVERSATION_DATA says otherwise. */
export const CONVERSATION_DATA =
  process.env.CONVERSATION_DATA ?? join(process.cwd(), '..', 'shared', 'data', 'conversation-dev.json');

interface DevTurn {
  readonly input: string;
  readonly output: string;
  readonly events: readonly { readonly eventType: string; readonly content: string }[];
  readonly topic: string;
}

interface DevQuestion {
  readonly q: string;
  readonly answerTurns: readonly number[];
  readonly supersededTurns?: readonly number[];
  readonly kind: 'fact' | 'latest' | 'multi-turn';
}

interface DevConversation {
  readonly id: string;
  readonly speakers: { readonly user: string; readonly agent: string };
  readonly turns: readonly DevTurn[];
  readonly questions: readonly DevQuestion[];
}

/** Minutes between two turns of a development conversation (one working day). */
const TURN_MINUTES = 7;
const DAY_START = Date.UTC(2024, 2, 14, 9, 0);

/** Ranked turn indexes of each question, for hedgehop or the baseline. */
type Ranker = (question: string) => Promise<number[]>;

/** Retrieval figures of one ranker over every question. */
export interface RetrievalScore {
  readonly questions: number;
  readonly top1InAnswer: number;
  readonly latest: number;
  readonly latestCorrect: number;
  readonly recallAt5: number;
}

/** Exact and ±1 boundary precision/recall/F1, micro-averaged over conversations. */
export interface SegmentationScore {
  readonly gold: number;
  readonly found: number;
  readonly exactF1: number;
  readonly nearF1: number;
}

function turnText(turn: DevTurn): string {
  return [turn.input, turn.output, ...turn.events.map((e) => e.content)].join('\n');
}

/** Scores the ranked turns of every question of the conversations. */
export async function scoreRetrieval(
  rankers: readonly { conversation: DevConversation; rank: Ranker }[],
): Promise<RetrievalScore> {
  let questions = 0;
  let top1 = 0;
  let latest = 0;
  let latestCorrect = 0;
  let recall5 = 0;
  for (const { conversation, rank } of rankers) {
    for (const q of conversation.questions) {
      const ranked = await rank(q.q);
      questions++;
      if (ranked[0] !== undefined && q.answerTurns.includes(ranked[0])) top1++;
      const top5 = ranked.slice(0, 5);
      recall5 += q.answerTurns.filter((t) => top5.includes(t)).length / q.answerTurns.length;
      if (q.kind !== 'latest') continue;
      latest++;
      const relevant = new Set([...q.answerTurns, ...(q.supersededTurns ?? [])]);
      const best = ranked.findIndex((t) => relevant.has(t));
      if (best >= 0 && best < 5 && q.answerTurns.includes(ranked[best] as number)) latestCorrect++;
    }
  }
  return { questions, top1InAnswer: top1, latest, latestCorrect, recallAt5: (100 * recall5) / questions };
}

/** Boundary F1 (a boundary at i: turn i starts a new topic, i > 0). */
export function scoreSegmentation(
  pairs: readonly { gold: readonly number[]; found: readonly number[] }[],
): SegmentationScore {
  let gold = 0;
  let found = 0;
  let exact = 0;
  let nearFound = 0;
  let nearGold = 0;
  for (const pair of pairs) {
    gold += pair.gold.length;
    found += pair.found.length;
    exact += pair.found.filter((b) => pair.gold.includes(b)).length;
    nearFound += pair.found.filter((b) => pair.gold.some((g) => Math.abs(g - b) <= 1)).length;
    nearGold += pair.gold.filter((g) => pair.found.some((b) => Math.abs(g - b) <= 1)).length;
  }
  const f1 = (p: number, r: number): number => (p + r === 0 ? 0 : (2 * p * r) / (p + r));
  const share = (a: number, b: number): number => (b === 0 ? 0 : a / b);
  return {
    gold,
    found,
    exactF1: 100 * f1(share(exact, found), share(exact, gold)),
    nearF1: 100 * f1(share(nearFound, found), share(nearGold, gold)),
  };
}

function goldBoundaries(conversation: DevConversation): number[] {
  return conversation.turns.flatMap((turn, i) =>
    i > 0 && turn.topic !== conversation.turns[i - 1]?.topic ? [i] : [],
  );
}

/** The baseline cut: the N least similar adjacent pairs (word Jaccard), N = the true count. */
function leastSimilarCuts(conversation: DevConversation): number[] {
  const terms = conversation.turns.map((turn) => contentTerms(turnText(turn)));
  const n = goldBoundaries(conversation).length;
  return terms
    .slice(1)
    .map((t, i) => ({ at: i + 1, similarity: jaccard(terms[i] as Set<string>, t) }))
    .sort((a, b) => a.similarity - b.similarity)
    .slice(0, n)
    .map((c) => c.at)
    .sort((a, b) => a - b);
}

interface Ingested {
  readonly agent: Agent;
  readonly sceneId: string;
  /** Topic id of each turn, in order. */
  readonly topicIds: readonly string[];
  readonly close: () => Promise<void>;
}

async function ingest(conversation: DevConversation): Promise<Ingested> {
  const temp = tempDir('hedgehop-quality-recall-');
  const db = await openMemory(join(temp.dir, 'memory.db'), { durability: 'normal', dream: { auto: false } });
  const agent = db.primary();
  const topicIds: string[] = [];
  let sceneId = '';
  for (const [i, turn] of conversation.turns.entries()) {
    const createdAt = DAY_START + i * TURN_MINUTES * 60_000;
    const opened = await agent.search(
      i === 0
        ? { newScene: true, sceneName: `${conversation.speakers.user} and ${conversation.speakers.agent}` }
        : {},
    );
    sceneId = opened.scene.id;
    for (const event of turn.events) {
      await agent.appendArchive({
        kind: 'event',
        eventType: event.eventType,
        content: event.content,
        createdAt,
      });
    }
    const closed = await agent.update({ input: turn.input, output: turn.output, createdAt });
    topicIds.push(closed.topic.id);
  }
  return {
    agent,
    sceneId,
    topicIds,
    close: async () => {
      await db.close();
      temp.cleanup();
    },
  };
}

/** Recall's hits as turn indexes, best first, each turn once. */
export function hitTurns(hits: readonly RecallHit[], topicIds: readonly string[]): number[] {
  const byTopic = new Map(topicIds.map((id, i) => [id, i]));
  const out: number[] = [];
  for (const hit of hits) {
    const topic = hit.layer === 'topic' ? hit.ref : hit.provenance.topicId;
    const turn = topic === undefined ? undefined : byTopic.get(topic);
    if (turn !== undefined && !out.includes(turn)) out.push(turn);
  }
  return out;
}

/** Plain BM25 over one row per turn (its text and events). */
function bm25Ranker(conversation: DevConversation): { rank: Ranker; close: () => Promise<void> } {
  const temp = tempDir('hedgehop-quality-bm25-');
  const store = Store.open(join(temp.dir, 'bm25.db'), {
    durability: 'normal',
    mode: 'exclusive',
    busyTimeoutMs: 1000,
  });
  const agent = store.direct.agents.ensurePrimary('primary', 0);
  store.engine.write('ingest', () => {
    conversation.turns.forEach((turn, i) => {
      store.direct.index.upsert({
        layer: 'archive',
        ref: String(i),
        agentId: agent.id,
        createdAt: i,
        text: turnText(turn),
      });
    });
  });
  return {
    rank: (question) => {
      const expression = matchExpression(queryTerms(question).map((t) => t.word));
      if (!expression) return Promise.resolve([]);
      const hits = store.engine.read('rank', () =>
        store.direct.recall.match(expression, { agentId: agent.id }, 40),
      );
      return Promise.resolve(hits.map((h) => Number(h.ref)));
    },
    close: async () => {
      await store.close();
      temp.cleanup();
    },
  };
}

/** Turn indexes where Dream's surface starts a new topic (after one pass over the scene). */
async function dreamBoundaries(ingested: Ingested): Promise<number[]> {
  await ingested.agent.dream(ingested.sceneId);
  const { topics } = await ingested.agent.sceneContext(ingested.sceneId);
  const turnOf = new Map(ingested.topicIds.map((id, i) => [id, i]));
  const starts: number[] = [];
  for (const topic of topics.filter((t) => t.depth === 1)) {
    const members =
      topic.kind === 'turn' ? [topic.id] : topics.filter((t) => t.parentId === topic.id).map((t) => t.id);
    const first = Math.min(...members.map((id) => turnOf.get(id) ?? Number.POSITIVE_INFINITY));
    if (Number.isFinite(first) && first > 0) starts.push(first);
  }
  return [...new Set(starts)].sort((a, b) => a - b);
}

/** Keyword shape: per-turn counts, and words repeated inside a kept phrase. */
function keywordShape(keywordLists: readonly (readonly string[])[]): {
  mean: number;
  max: number;
  repeated: number;
} {
  let total = 0;
  let max = 0;
  let repeated = 0;
  for (const keywords of keywordLists) {
    total += keywords.length;
    max = Math.max(max, keywords.length);
    const phrases = keywords.filter((k) => /\s/u.test(k)).map((k) => k.toLowerCase().split(/\s+/u));
    repeated += keywords.filter(
      (k) => !/\s/u.test(k) && phrases.some((words) => words.includes(k.toLowerCase())),
    ).length;
  }
  return { mean: total / Math.max(1, keywordLists.length), max, repeated };
}

function loadConversations(): DevConversation[] {
  const parsed = JSON.parse(readFileSync(CONVERSATION_DATA, 'utf8')) as { conversations: DevConversation[] };
  return parsed.conversations;
}

export const runQualityRecall: BenchModule = async (options) => {
  if (!existsSync(CONVERSATION_DATA)) {
    return {
      name: 'quality-recall',
      rows: [],
      notes: [`skipped: development conversations not found at ${CONVERSATION_DATA} (set CONVERSATION_DATA)`],
    };
  }
  const conversations = loadConversations();
  options.log(`quality-recall: ${conversations.length} conversations`);
  const subjects: { conversation: DevConversation; rank: Ranker }[] = [];
  const baselines: { conversation: DevConversation; rank: Ranker }[] = [];
  const segmentation: { gold: number[]; found: number[] }[] = [];
  const baselineCuts: { gold: number[]; found: number[] }[] = [];
  const keywordLists: string[][] = [];
  const closers: (() => Promise<void> | void)[] = [];
  try {
    for (const conversation of conversations) {
      const ingested = await ingest(conversation);
      closers.push(ingested.close);
      const context = await ingested.agent.sceneContext(ingested.sceneId);
      for (const topic of context.topics) keywordLists.push([...topic.keywords]);
      subjects.push({
        conversation,
        rank: async (question) =>
          hitTurns(
            (await ingested.agent.recall(question, { limit: 40, budgetTokens: 0 })).hits,
            ingested.topicIds,
          ),
      });
      const bm25 = bm25Ranker(conversation);
      closers.push(bm25.close);
      baselines.push({ conversation, rank: bm25.rank });
      baselineCuts.push({ gold: goldBoundaries(conversation), found: leastSimilarCuts(conversation) });
    }
    const retrieval = await scoreRetrieval(subjects);
    const baseline = await scoreRetrieval(baselines);
    // Dream changes the surface, so it runs on fresh copies after the retrieval questions.
    for (const conversation of conversations) {
      const ingested = await ingest(conversation);
      closers.push(ingested.close);
      segmentation.push({ gold: goldBoundaries(conversation), found: await dreamBoundaries(ingested) });
    }
    return {
      name: 'quality-recall',
      rows: rowsOf(
        retrieval,
        baseline,
        scoreSegmentation(segmentation),
        scoreSegmentation(baselineCuts),
        keywordShape(keywordLists),
      ),
      notes: [
        `${retrieval.questions} questions (${retrieval.latest} latest) over ${conversations.length} conversations of ${CONVERSATION_DATA}`,
        'retrieval baseline: FTS5 bm25 over one row per turn (input, output, events); segmentation baseline: cut at the N least similar adjacent pairs (word Jaccard)',
        `Dream boundaries: ${segmentation.map((s) => `[${s.found.join(', ')}] vs gold [${s.gold.join(', ')}]`).join('; ')}`,
      ],
    };
  } finally {
    for (const close of closers.reverse()) await close();
  }
};

function rowsOf(
  retrieval: RetrievalScore,
  baseline: RetrievalScore,
  segmentation: SegmentationScore,
  baselineCuts: SegmentationScore,
  keywords: { mean: number; max: number; repeated: number },
): BenchRow[] {
  const row = (kase: string, metric: string, value: number, unit: string, base?: number): BenchRow => ({
    bench: 'quality-recall',
    case: kase,
    metric,
    value: Math.round(value * 10) / 10,
    unit,
    ...(base !== undefined
      ? { baseline: Math.round(base * 10) / 10, ratio: value / Math.max(base, 1e-9) }
      : {}),
  });
  return [
    row(
      'recall top hit in an answer turn',
      `of ${retrieval.questions}`,
      retrieval.top1InAnswer,
      'questions',
      baseline.top1InAnswer,
    ),
    row(
      'latest-state questions answered by the newer turn',
      `of ${retrieval.latest}`,
      retrieval.latestCorrect,
      'questions',
      baseline.latestCorrect,
    ),
    row('answer turns in the top 5', 'R@5', retrieval.recallAt5, '%', baseline.recallAt5),
    row('Dream topic boundaries', 'F1 exact', segmentation.exactF1, '%', baselineCuts.exactF1),
    row('Dream topic boundaries', 'F1 within ±1 turn', segmentation.nearF1, '%', baselineCuts.nearF1),
    row('Dream topic boundaries', `found (gold ${segmentation.gold})`, segmentation.found, 'boundaries'),
    row('keywords per turn', 'mean', keywords.mean, 'keywords'),
    row('keywords per turn', 'max', keywords.max, 'keywords'),
    row('single keywords repeating a word of a kept phrase', 'count', keywords.repeated, 'keywords'),
  ];
}
