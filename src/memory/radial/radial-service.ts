import { HedgehopError } from '../../core/errors.js';
import { newUuid } from '../../core/ids.js';
import { backfillEmbeddings } from '../../recall/vectors.js';
import type { LineOverview, NodeCommit, NodeRecord, SummaryColumns } from '../../store/radial-repo.js';
import type { Awaitable, RadialRepository, StoreTx, WriteOptions } from '../../store/seam.js';
import type { MemoryContext } from '../context.js';
import { levelAtDistance, levelName } from '../../core/model/levels.js';
import { isStopWord } from '../../core/text-analysis.js';
import { timeCues, withoutTimeCues } from '../../core/time-cues.js';
import { shownSceneName } from '../../core/model/conversation.js';
import { buildOrigin } from './origin-view.js';
import { profileBrief } from './origin-profile.js';
import { nodeTextAt } from './session-view.js';
import { verificationCandidates, verifiesByMeaning } from './verification-candidates.js';
import {
  matchText,
  nodeTexts,
  queryWords,
  readNavigationCandidates,
  vectorConfidence,
} from './navigation-rank.js';
import {
  computeSummaries,
  resolveSummaries,
  storedSummaries,
  suppliedSummaries,
  SummaryTier,
  tierOf,
  type PartialSummaries,
} from './summaries.js';
import type {
  FileChange,
  JsonValue,
  LineHistoryEntry,
  RadialLine,
  RadialNode,
  TaskRecord,
} from '../../core/model/radial.js';
import { parseJsonOr } from '../../core/json.js';
import { nodeIndexTexts, summaryIndexText } from '../../core/index-text.js';

/** Most keywords of the current scene the origin considers (it then cuts them to its budget). */
const SCENE_KEYWORDS = 40;

/** Default project name of a radial memory that was never given one (as in HedgehogMemory). */
export const DEFAULT_PROJECT_NAME = 'Project';

/** A ranked navigation candidate. */
interface RankedNode {
  readonly node: RadialNode;
  readonly confidence: number;
}

/** What {@link RadialService.fillPendingSummaries} did. */
export interface FillReport {
  /** Nodes whose summaries are now complete. */
  readonly filled: number;
  /** Nodes tried whose summariser failed again (still pending). */
  readonly failed: number;
  /** Nodes of the agent still pending afterwards. */
  readonly remaining: number;
  /** The last failure's message, if any. */
  readonly lastError: string | undefined;
}

/** How many earlier nodes a session view lists. */
const EARLIER_SHOWN = 8;
/** Index rows embedded before a navigation at most, so vectors catch up while latency stays bounded. */
const NAVIGATE_BACKFILL = 64;
/** At most this many nodes per navigation get a second opinion from `verifyMatch`. */
const CONFIRM_TOP = 3;

interface Scored {
  readonly node: RadialNode;
  confidence: number;
  readonly lexical: number;
  /** Share of the question's adjacent word pairs the node holds adjacent too. */
  readonly pairs: number;
  /** Commit order across the agent's nodes (higher = newer). */
  readonly seq: number;
  /** 0 for the oldest candidate … 1 for the newest. */
  recency: number;
}

/** Candidates within this share of the best key count as the same subject for a time question. */
const SAME_SUBJECT = 0.7;
/** How much a time question moves the newest (or oldest) matching candidate up. */
const TIME_WEIGHT = 0.25;
/** Near ties go to the newer node. */
const TIE_WEIGHT = 0.02;

/**
 * What a question's wording says about time: `current` ("now", "latest", "still") prefers the
 * most recent node of the matching subject, `past` ("before", "originally", "used to") the
 * oldest, `none` only breaks near ties towards the newer.
 */
export function timeOfQuestion(query: string): 'current' | 'past' | 'none' {
  const cues = timeCues(query);
  if (cues.past) return 'past';
  if (cues.current) return 'current';
  return 'none';
}

/** Re-keys the ranked candidates for recency (see {@link timeOfQuestion}). */
function withRecency(ranked: Scored[], query: string): Map<Scored, number> {
  const seqs = ranked.map((r) => r.seq);
  const low = Math.min(...seqs);
  const span = Math.max(1, Math.max(...seqs) - low);
  for (const entry of ranked) entry.recency = (entry.seq - low) / span;
  const time = timeOfQuestion(query);
  const best = Math.max(0, ...ranked.map(keyOf));
  const keys = new Map<Scored, number>();
  for (const entry of ranked) {
    let key = keyOf(entry) + TIE_WEIGHT * entry.recency;
    if (time !== 'none' && keyOf(entry) >= best * SAME_SUBJECT) {
      key += TIME_WEIGHT * (time === 'current' ? entry.recency : 1 - entry.recency);
    }
    keys.set(entry, key);
  }
  return keys;
}

/**
 * Rank key: the calibrated confidence (the share of the question's information the node holds,
 * or its similarity in meaning) first, the part-weighted BM25 score (relative to the best) second,
 * the question's word pairs the node holds adjacent too third.
 */
function keyOf(entry: Scored): number {
  return 0.6 * entry.confidence + 0.3 * entry.lexical + 0.1 * entry.pairs;
}

/**
 * The domain logic of one agent's radial memory (validated input only; the public facade is
 * `RadialMemory` in src/api). Reads and writes go through `store.radial`; summaries are computed
 * before the write transaction; every commit and its index rows are one transaction.
 */
export class RadialService {
  readonly #ctx: MemoryContext;
  /**
   * Lines seen to exist. Lines are never deleted, so a commit to one of them skips the read that
   * fails fast before summarising (the write transaction checks the line again anyway).
   */
  readonly #knownLines = new Set<string>();

  constructor(context: MemoryContext) {
    this.#ctx = context;
  }

  get context(): MemoryContext {
    return this.#ctx;
  }

  get #agentId(): number {
    return this.#ctx.agentId;
  }

  /** Runs `work` on the radial repository in one read transaction. */
  #read<T>(what: string, work: (repo: RadialRepository, tx: StoreTx) => Awaitable<T>): Promise<T> {
    return this.#ctx.store.read(what, (tx) => work(tx.radial, tx));
  }

  #write<T>(
    what: string,
    work: (repo: RadialRepository) => Awaitable<T>,
    options: WriteOptions = {},
  ): Promise<T> {
    return this.#ctx.store.write(what, (tx) => work(tx.radial), options);
  }

  // ---- project ------------------------------------------------------------------------------

  async projectName(): Promise<string> {
    return this.#read('projectName', (repo) => projectNameIn(repo, this.#agentId));
  }

  /** Stores the project name; with `overwrite` false a stored name wins (HedgehogMemory's rule). */
  setProjectName(name: string, overwrite: boolean): Promise<string> {
    return this.#write('setProjectName', (repo) =>
      repo.setMeta(this.#agentId, 'projectName', name, overwrite),
    );
  }

  // ---- lines --------------------------------------------------------------------------------

  async createLine(id: string, name: string, description: string): Promise<RadialLine> {
    const createdAt = this.#ctx.clock.now();
    const record = await this.#write('createLine', (repo) =>
      repo.createLine(this.#agentId, { id, name, description, createdAt, extra: '{}' }),
    );
    return toLine({ ...record, latest: undefined });
  }

  async getOrCreateLine(
    id: string,
    name: string,
    description: string,
  ): Promise<{ line: RadialLine; created: boolean }> {
    const createdAt = this.#ctx.clock.now();
    return this.#write('getOrCreateLine', async (repo) => {
      const { line, created } = await repo.getOrCreateLine(this.#agentId, {
        id,
        name,
        description,
        createdAt,
        extra: '{}',
      });
      if (created) return { line: toLine({ ...line, latest: undefined }), created };
      return {
        line: (await lineIn(repo, this.#agentId, id)) ?? toLine({ ...line, latest: undefined }),
        created,
      };
    });
  }

  getLine(id: string): Promise<RadialLine | undefined> {
    return this.#read('getLine', (repo) => lineIn(repo, this.#agentId, id));
  }

  async getLineOrThrow(id: string): Promise<RadialLine> {
    const line = await this.getLine(id);
    if (!line) throw lineNotFound(id);
    return line;
  }

  async listLines(): Promise<RadialLine[]> {
    return (await this.#read('listLines', (repo) => repo.listLines(this.#agentId))).map(toLine);
  }

  // ---- commit -------------------------------------------------------------------------------

  /**
   * Records a completed task as the new position 1 of its line. Summaries are computed first
   * (outside any transaction); if the summariser fails the node is committed anyway with its
   * summaries pending, to be filled by {@link fillPendingSummaries} (or Dream).
   */
  async commit(task: TaskRecord, options: { extend: boolean }): Promise<RadialNode> {
    if (!this.#knownLines.has(task.lineId)) {
      if (!(await this.#read('completeTask', (repo) => repo.getLine(this.#agentId, task.lineId))))
        throw lineNotFound(task.lineId);
      this.#knownLines.add(task.lineId);
    }
    const supplied = suppliedSummaries(task.summaries);
    const computed = await computeSummaries(this.#ctx.summarizer, task, supplied);
    const summaries = computed.summaries;
    const columns = toColumns(summaries);
    const tier = tierOf(this.#ctx.summarizer, supplied, summaries);
    const id = newUuid();
    const createdAt = this.#ctx.clock.now();
    const entry: NodeCommit = {
      node: {
        id,
        taskLabel: task.taskLabel,
        createdAt,
        conversationSummary: task.conversationSummary,
        fileChanges: JSON.stringify(task.fileChanges),
        todos: JSON.stringify(task.todos),
        envSnapshot: JSON.stringify(task.envSnapshot),
        history: '',
        summaries: columns,
        summariesState: computed.complete ? 'ready' : 'pending',
        summariesTier: tier,
        fullContext: task.fullContext,
        fullBytes: Buffer.byteLength(task.fullContext, 'utf8'),
      },
      index: nodeIndexTexts(task, computed.complete && tier !== SummaryTier.offline ? summaries : undefined),
      extend: options.extend,
    };
    // Keyed by `id`: an engine may run this write again after a lost connection (a second run
    // finds the first's node and writes nothing), so a lost reply leaves the caller no doubt.
    const { extendsNodeId } = await this.#write(
      'completeTask',
      (repo) => repo.insertNode(this.#agentId, task.lineId, entry),
      { oneCall: true, idempotent: true },
    );
    return {
      id,
      lineId: task.lineId,
      position: 1,
      taskLabel: task.taskLabel,
      createdAt,
      summaries: resolveSummaries(summaries, task.taskLabel, task.conversationSummary),
      summariesState: computed.complete ? 'ready' : 'pending',
      state: {
        conversationSummary: task.conversationSummary,
        fileChanges: task.fileChanges,
        todos: task.todos,
        envSnapshot: task.envSnapshot,
        fullContextBytes: Buffer.byteLength(task.fullContext, 'utf8'),
      },
      extendsNodeId,
    };
  }

  /**
   * Computes the summaries still pending (oldest first, at most `limit` nodes) and stores them.
   * Safe to run while others commit: each node is updated in its own short transaction, and a
   * node filled meanwhile is skipped.
   */
  async fillPendingSummaries(limit = 100): Promise<FillReport> {
    let filled = 0;
    let failed = 0;
    let lastError: string | undefined;
    const pending = await this.#read('pending summaries', (repo) => repo.pendingNodes(this.#agentId, limit));
    for (const { node, fullContext } of pending) {
      const task = { ...taskTextOf(node), fullContext };
      const computed = await computeSummaries(this.#ctx.summarizer, task, storedSummaries(node));
      if (!computed.complete) {
        failed++;
        lastError = computed.error instanceof Error ? computed.error.message : String(computed.error);
      }
      const tier = Math.max(node.summariesTier, tierOf(this.#ctx.summarizer, {}, computed.summaries));
      const summaryText =
        computed.complete && tier !== SummaryTier.offline ? summaryIndexText(computed.summaries) : undefined;
      const changed = await this.#write('fillPendingSummaries', (repo) =>
        repo.fillSummaries(
          this.#agentId,
          node.id,
          toColumns(computed.summaries),
          computed.complete ? 'ready' : 'pending',
          tier,
          summaryText,
        ),
      );
      if (changed && computed.complete) filled++;
    }
    const remaining = await this.#read('pending summaries', (repo) => repo.pendingCount(this.#agentId));
    return { filled, failed, remaining, lastError };
  }

  // ---- reading nodes -----------------------------------------------------------------------

  async getNode(lineId: string, position: number): Promise<RadialNode | undefined> {
    const record = await this.#read('getNode', (repo) => repo.nodeAt(this.#agentId, lineId, position));
    return record ? toNode(record) : undefined;
  }

  /** The node, or `NOT_FOUND` naming `lineId` or `position`. */
  async getNodeOrThrow(lineId: string, position: number): Promise<RadialNode> {
    const node = await this.getNode(lineId, position);
    if (node) return node;
    const line = await this.getLineOrThrow(lineId);
    throw new HedgehopError(
      'NOT_FOUND',
      `position: line '${lineId}' has no node at position ${position} (it has ${line.nodeCount})`,
      { field: 'position' },
    );
  }

  async getNodeById(nodeId: string): Promise<RadialNode | undefined> {
    const record = await this.nodeRecord(nodeId);
    return record ? toNode(record) : undefined;
  }

  /** Records (not mapped), for views that need the stored history. */
  nodeRecord(nodeId: string): Promise<NodeRecord | undefined> {
    return this.#read('getNode', (repo) => repo.nodeById(this.#agentId, nodeId));
  }

  /** The verbatim full context, byte for byte as committed. `NOT_FOUND` if the node is gone. */
  async fullContext(nodeId: string): Promise<string> {
    const text = await this.#read('loadFullState', (repo) => repo.fullContext(this.#agentId, nodeId));
    if (text === undefined) throw new HedgehopError('NOT_FOUND', `node ${nodeId} does not exist`);
    return text;
  }

  /** Up to `limit` nodes older than `node` on its line, nearest first, and how many more exist. */
  earlierNodes(node: RadialNode, limit = EARLIER_SHOWN): Promise<{ nodes: RadialNode[]; beyond: number }> {
    return this.#read('earlier nodes', async (repo) => {
      const record = await repo.nodeById(this.#agentId, node.id);
      if (!record) return { nodes: [], beyond: 0 };
      const nodes = (
        await repo.lineNodes(this.#agentId, node.lineId, { beforeLineSeq: record.lineSeq, limit })
      ).map(toNode);
      return { nodes, beyond: Math.max(0, record.lineSeq - 1 - nodes.length) };
    });
  }

  /** A page of a line's nodes newest first, below `beforeLineSeq`. */
  async linePage(
    lineId: string,
    beforeLineSeq: number | undefined,
    limit: number,
  ): Promise<{ node: RadialNode; lineSeq: number }[]> {
    const options = beforeLineSeq === undefined ? { limit } : { beforeLineSeq, limit };
    const records = await this.#read('line nodes', (repo) => repo.lineNodes(this.#agentId, lineId, options));
    return records.map((record) => ({ node: toNode(record), lineSeq: record.lineSeq }));
  }

  /**
   * Every node of a line newest first, each at the level its distance from position 1 earns
   * (detailed for position 1, then one level less per doubling of distance, then label only).
   */
  async lineHistory(lineId: string): Promise<LineHistoryEntry[]> {
    await this.getLineOrThrow(lineId);
    const out: LineHistoryEntry[] = [];
    let before: number | undefined;
    for (;;) {
      const page = await this.linePage(lineId, before, 500);
      for (const { node } of page) out.push(historyEntry(node));
      if (page.length < 500) return out;
      before = page[page.length - 1]?.lineSeq;
    }
  }

  // ---- navigation ------------------------------------------------------------------------

  /**
   * The best nodes for `query` (see src/memory/radial/navigation-rank.ts): candidates come from
   * the recall index in FTS5's BM25 order (label, caller summary, summary and full context rows,
   * weighted per part) and, when an embedder is configured, from the nearest vectors; each
   * candidate is then compared with the question as a whole node. A node's confidence (0..1,
   * comparable across queries, independent of any threshold) is the information-weighted share
   * of the question's words it holds (related forms, and other words of a group naming one thing,
   * see src/recall/concepts.ts, count in part), or, found by meaning, how far
   * its similarity stands above an unrelated node's ({@link vectorConfidence}), whichever is
   * higher. Nodes are ordered by a blend of that confidence, the part-weighted BM25 score and the
   * question's word pairs the node holds. On near ties the newer node wins; a question about the
   * current state ("now", "latest", "still") moves the newest node of the matching subject up,
   * one about the past ("before", "originally") the oldest ({@link timeOfQuestion}).
   *
   * With `confirmBelow`, the summariser's `verifyMatch` is asked about at most
   * {@link CONFIRM_TOP} of the best nodes whose confidence is under it (a language model thus
   * confirms reworded questions that share few words with the node); a confirmed match raises
   * that node's confidence to the summariser's. Never one model call per node.
   */
  async rank(
    query: string,
    options: { lineId?: string | undefined; limit: number; confirmBelow?: number | undefined },
  ): Promise<RankedNode[]> {
    const queryVector = await this.#queryVector(query);
    // Words and word pairs are those of the subject; the time cues only order its nodes.
    const subject = withoutTimeCues(query);
    const read = await this.#read('navigate', (_repo, tx) =>
      readNavigationCandidates(tx, {
        agentId: this.#agentId,
        query: subject,
        lineId: options.lineId,
        limit: options.limit,
        queryVector,
      }),
    );
    const bestBm25 = Math.max(1e-9, ...read.candidates.map((c) => c.bm25));
    const question = queryWords(read.terms, subject, read.concepts);
    const ranked: Scored[] = [];
    const unscored: string[] = [];
    for (const candidate of read.candidates) {
      const match = matchText(question, nodeTexts(candidate.record, candidate.fullContext));
      const byMeaning =
        candidate.similarity === undefined || read.background === undefined
          ? 0
          : vectorConfidence(candidate.similarity, read.background);
      const confidence = Math.max(match.coverage, byMeaning);
      if (confidence <= 0) {
        unscored.push(candidate.record.id);
        continue;
      }
      ranked.push({
        node: toNode(candidate.record),
        confidence,
        lexical: candidate.bm25 / bestBm25,
        pairs: match.pairs,
        seq: candidate.record.seq,
        recency: 0,
      });
    }
    const order = (): void => {
      const keys = withRecency(ranked, query);
      ranked.sort((a, b) => (keys.get(b) ?? 0) - (keys.get(a) ?? 0) || b.seq - a.seq);
    };
    order();
    if (options.confirmBelow !== undefined) {
      const extra = await this.#extraCandidates(options.lineId, ranked, unscored);
      await this.#confirm(query, [...ranked.slice(0, CONFIRM_TOP), ...extra], options.confirmBelow);
      ranked.push(...extra.filter((entry) => entry.confidence > 0));
      order();
    }
    return ranked
      .slice(0, options.limit)
      .map(({ node, confidence }) => ({ node, confidence: round3(confidence) }));
  }

  /**
   * The question's vector, when an embedder is configured: a few pending index rows are embedded
   * first (as recall does, so vectors catch up with the memory), then the question, provided the
   * file's vectors come from the same model. A failing embedder leaves navigation to the words.
   */
  async #queryVector(query: string): Promise<Float32Array | undefined> {
    const embedder = this.#ctx.embedder;
    if (!embedder || query.trim().length === 0) return undefined;
    try {
      if (!this.#ctx.store.readOnly)
        await backfillEmbeddings(this.#ctx.store, embedder, { limit: NAVIGATE_BACKFILL });
      const model = await this.#read('navigate', (_repo, tx) => tx.vectors.model());
      if (!model || model.modelId !== embedder.modelId || model.dimensions !== embedder.dimensions)
        return undefined;
      const [vector] = await embedder.embed([query]);
      return vector;
    } catch {
      return undefined;
    }
  }

  /**
   * Candidates beyond the scored ones, when `verifyMatch` judges meaning (a model) or vectors
   * are searched: see {@link verificationCandidates}. Kept apart from the ranking above.
   */
  async #extraCandidates(
    lineId: string | undefined,
    ranked: readonly Scored[],
    unscored: readonly string[],
  ): Promise<Scored[]> {
    if (!verifiesByMeaning(this.#ctx)) return [];
    const found = await this.#read('navigate', async (repo) => {
      const ids = await verificationCandidates(repo, this.#agentId, {
        lineId,
        unscored,
        exclude: new Set(ranked.map((entry) => entry.node.id)),
      });
      return { ids, records: ids.length === 0 ? [] : await repo.nodesByIds(this.#agentId, ids) };
    });
    const records = new Map(found.records.map((r) => [r.id, r]));
    return found.ids.flatMap((id) => {
      const record = records.get(id);
      return record
        ? [{ node: toNode(record), confidence: 0, lexical: 0, pairs: 0, seq: record.seq, recency: 0 }]
        : [];
    });
  }

  async #confirm(query: string, top: readonly Scored[], below: number): Promise<void> {
    for (const entry of top) {
      if (entry.confidence >= below) continue;
      try {
        const verdict = await this.#ctx.summarizer.verifyMatch(
          query,
          `${entry.node.taskLabel}. ${entry.node.summaries.brief}`,
        );
        const confidence = Number(verdict.confidence);
        if (verdict.match === true && Number.isFinite(confidence)) {
          entry.confidence = Math.max(entry.confidence, Math.min(1, Math.max(0, confidence)));
        }
      } catch {
        // A summariser that is down only loses the second opinion.
      }
    }
  }

  // ---- origin --------------------------------------------------------------------------------

  /** The origin text within the configured token budget, read in one snapshot. */
  async originText(footer?: string): Promise<string> {
    const { projectName, lines, scene } = await this.#read('origin', async (repo, tx) => ({
      projectName: await projectNameIn(repo, this.#agentId),
      lines: await repo.listLines(this.#agentId),
      scene: await currentSceneKeywords(tx, this.#agentId),
    }));
    return buildOrigin({
      projectName,
      profileBrief: await profileBrief(this.#ctx),
      lines,
      budgetTokens: this.#ctx.settings.originTokenBudget,
      footer,
      scene,
    });
  }
}

/**
 * The current scene's keywords ranked by how many of its turns use them, then by how recently
 * (at most {@link SCENE_KEYWORDS}); filler, stop words and bare short numbers are left out.
 */
async function currentSceneKeywords(
  tx: StoreTx,
  agentId: number,
): Promise<{ name: string; keywords: string[] } | undefined> {
  const scenes = tx.conversation.scenes;
  const scene = await scenes.currentScene(agentId);
  if (!scene) return undefined;
  const surface = await scenes.surface(scene.id);
  return { name: shownSceneName(scene), keywords: rankSceneKeywords(surface.map((t) => t.keywords)) };
}

/** Words that carry no subject of their own, beyond the stop-word lists. */
const FILLER = new Set(
  (
    'good great fine nice cool ok okay yes yeah yep no nope sure thanks thank welcome please sorry hi hello hey bye ' +
    'today tomorrow yesterday now then later soon maybe perhaps really actually basically just also still even ' +
    'thing things stuff lot lots way bit kind sort ugh hmm oh ah wow right well done'
  ).split(' '),
);

/** True for a keyword worth showing: not filler, not a stop word, not a bare 1–2 digit number. */
export function isSubjectKeyword(keyword: string): boolean {
  const word = keyword.trim().toLowerCase();
  if (word.length < 2 || /^\d{1,2}$/u.test(word) || FILLER.has(word)) return false;
  if (!/\s/u.test(word) && (isStopWord(word) || isStopWord(word.replace(/['’]\p{L}+$/u, '')))) return false;
  return true;
}

/**
 * Keywords of a scene's turns (oldest first), ranked by how many turns use each, then by the
 * latest turn that does; each keyword once (case-insensitive), at most {@link SCENE_KEYWORDS},
 * in lower case when any turn wrote it so (a capital that only opened a sentence is not a name).
 */
export function rankSceneKeywords(turns: readonly (readonly string[])[]): string[] {
  const stats = new Map<string, { keyword: string; turns: number; last: number }>();
  turns.forEach((keywords, turn) => {
    const seen = new Set<string>();
    for (const keyword of keywords) {
      const key = keyword.trim().toLowerCase();
      if (seen.has(key) || !isSubjectKeyword(key)) continue;
      seen.add(key);
      const entry = stats.get(key);
      const surface = keyword.trim();
      if (entry) {
        entry.turns++;
        entry.last = turn;
        if (entry.keyword !== key) entry.keyword = surface;
      } else stats.set(key, { keyword: surface, turns: 1, last: turn });
    }
  });
  return [...stats.values()]
    .sort((a, b) => b.turns - a.turns || b.last - a.last)
    .slice(0, SCENE_KEYWORDS)
    .map((entry) => entry.keyword);
}

async function projectNameIn(repo: RadialRepository, agentId: number): Promise<string> {
  return (await repo.getMeta(agentId, 'projectName')) ?? DEFAULT_PROJECT_NAME;
}

/** A line with the few fields of its newest node, read in the caller's transaction. */
async function lineIn(repo: RadialRepository, agentId: number, id: string): Promise<RadialLine | undefined> {
  const record = await repo.getLine(agentId, id);
  if (!record) return undefined;
  const latest = record.nodeCount > 0 ? await repo.nodeAt(agentId, id, 1) : undefined;
  return toLine({
    ...record,
    latest: latest && {
      id: latest.id,
      taskLabel: latest.taskLabel,
      createdAt: latest.createdAt,
      sOrigin: latest.sOrigin,
      sBrief: latest.sBrief,
      conversationSummary: latest.conversationSummary,
    },
  });
}

// ---- mapping ------------------------------------------------------------------------------

function lineNotFound(lineId: string): HedgehopError {
  return new HedgehopError('NOT_FOUND', `lineId: no line '${lineId}'`, {
    field: 'lineId',
    remedy: 'create-line',
  });
}

function toLine(record: LineOverview): RadialLine {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    createdAt: record.createdAt,
    nodeCount: record.nodeCount,
    latest: record.latest && {
      nodeId: record.latest.id,
      taskLabel: record.latest.taskLabel,
      createdAt: record.latest.createdAt,
    },
  };
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The task parts of a stored node (without its full context). */
function taskTextOf(record: NodeRecord): {
  taskLabel: string;
  conversationSummary: string;
  fileChanges: FileChange[];
  todos: string[];
} {
  return {
    taskLabel: record.taskLabel,
    conversationSummary: record.conversationSummary,
    fileChanges: parseJsonOr<FileChange[]>(record.fileChanges, []),
    todos: parseJsonOr<string[]>(record.todos, []),
  };
}

/** A stored node as the public {@link RadialNode}. */
export function toNode(record: NodeRecord): RadialNode {
  const task = taskTextOf(record);
  const extra = parseJsonOr<{ extendsNodeId?: unknown }>(record.extra, {});
  return {
    id: record.id,
    lineId: record.lineId,
    position: record.position,
    taskLabel: record.taskLabel,
    createdAt: record.createdAt,
    summaries: resolveSummaries(storedSummaries(record), record.taskLabel, record.conversationSummary),
    summariesState: record.summariesState,
    state: {
      conversationSummary: record.conversationSummary,
      fileChanges: task.fileChanges,
      todos: task.todos,
      envSnapshot: parseJsonOr<{ [key: string]: JsonValue }>(record.envSnapshot, {}),
      fullContextBytes: record.fullBytes,
    },
    extendsNodeId: typeof extra.extendsNodeId === 'string' ? extra.extendsNodeId : undefined,
  };
}

function historyEntry(node: RadialNode): LineHistoryEntry {
  const level = levelAtDistance(3, node.position - 1);
  return {
    nodeId: node.id,
    position: node.position,
    taskLabel: node.taskLabel,
    createdAt: node.createdAt,
    level,
    levelName: level === undefined ? 'label' : levelName(level),
    text: nodeTextAt(node, level),
    summariesState: node.summariesState,
  };
}

function toColumns(summaries: PartialSummaries): SummaryColumns {
  return {
    origin: summaries.origin ?? null,
    brief: summaries.brief ?? null,
    summary: summaries.summary ?? null,
    detailed: summaries.detailed ?? null,
  };
}
