import { HedgehopError } from '../core/errors.js';
import type { MemoryContext } from '../memory/context.js';
import { recall } from '../recall/recall.js';
import { type RecallOptions, type RecallResult } from '../core/model/recall.js';
import { ContextWindowManager } from './context-window-manager.js';
import { RadialMemory } from './radial-memory.js';
import {
  type ArchiveRecord,
  type Profile,
  type Scene,
  type Topic,
  type ArchiveSlot,
  type DeleteReport,
  type MergeReport,
  type ArchiveInput,
  type ArchiveQuery,
  type PlanState,
  type PlanStepUpdate,
  type PlanNode,
  type ProfileUpdate,
  type ListedScene,
  type SceneContext,
  type SceneUpdate,
  type SearchQuery,
  type SearchResult,
  type TurnEnd,
  type TurnResult,
} from '../core/model/conversation.js';
import { appendArchive, appendArchiveMany, searchArchive } from '../memory/archive/archive.js';
import { planNodeAdd, planNodeUpdate, planState } from '../memory/plan/plan.js';
import { getProfile, updateProfile } from '../memory/profile/profile.js';
import {
  deleteScene,
  deleteTopic,
  listScenes,
  mergeScenes,
  renameTopic,
  sceneContext,
  updateScene,
} from '../memory/scenes/scenes-admin.js';
import { closeTurn, search } from '../memory/scenes/turn-loop.js';
import { listEngram } from '../memory/engram/engram.js';
import { type EngramGraph } from '../core/model/engram.js';
import { DreamScheduler } from '../memory/dream/dream-scheduler.js';
import type { DistilledProfile, DreamReport, UndoDreamReport } from '../core/model/dream.js';
import {
  distilledProfile,
  dreamHistory,
  parseDreamId,
  parseDreamScene,
  type DreamHistoryOptions,
} from '../memory/dream/dream-history.js';

/** Who an agent is within its file. */
export interface AgentInfo {
  readonly id: number;
  readonly name: string;
  readonly primary: boolean;
  readonly createdAt: number;
}

/**
 * One agent's memory inside a file: its radial memory, context-window manager, conversation
 * turn loop, profile and recall. Everything written through one agent is invisible to the
 * others, except the file-wide knowledge graphs.
 *
 * @example
 * ```ts
 * const db = await openMemory('memory.db');
 * const agent = db.primary();
 * await agent.radial.createLine('auth', 'Authentication', 'Login, tokens, sessions');
 * ```
 */
export class Agent {
  readonly #context: MemoryContext;
  readonly #info: AgentInfo;
  #radial: RadialMemory | undefined;
  #contextManager: ContextWindowManager | undefined;
  #dreams: DreamScheduler | undefined;

  /** @internal Agents are obtained from `MemoryDB.primary()` and `MemoryDB.agent(name)`. */
  constructor(context: MemoryContext, info: AgentInfo) {
    this.#context = context;
    this.#info = info;
  }

  /** This agent's name (`primary` for the primary agent). */
  get name(): string {
    return this.#info.name;
  }

  /** Who this agent is. */
  info(): AgentInfo {
    return this.#info;
  }

  /** This agent's radial memory: task lines, nodes, navigation and verbatim restore. */
  get radial(): RadialMemory {
    this.#assertOpen('radial');
    this.#radial ??= new RadialMemory(this.#context);
    return this.#radial;
  }

  /** This agent's context-window manager (reset to the origin, load a task, commit). */
  get context(): ContextWindowManager {
    this.#assertOpen('context');
    this.#contextManager ??= new ContextWindowManager(this.radial);
    return this.#contextManager;
  }

  /**
   * Recalls what this agent's memory holds about `query`, across layers (its own and the
   * file-wide knowledge): ranked hits with provenance, and a context that fills `budgetTokens`
   * with the best of them (full text for the top hits, briefer for the rest).
   *
   * An empty or whitespace-only query is refused with `INVALID_INPUT` (as by navigation); a
   * query holding no word at all (only punctuation or symbols) returns no hits and an empty
   * context. A query of stop words only ("who is she") still searches those words.
   *
   * @example
   * ```ts
   * const { context, hits } = await agent.recall('where is the JWT secret?', { budgetTokens: 500 });
   * ```
   */
  async recall(query: string, options?: RecallOptions): Promise<RecallResult> {
    const context = this.memoryContext;
    return recall(
      context.store,
      { agentId: context.agentId, agentName: context.agentName, embedder: context.embedder },
      query,
      options,
    );
  }

  /** @internal */
  get memoryContext(): MemoryContext {
    this.#assertOpen('agent');
    return this.#context;
  }

  // ---- Conversation memory: profile, the turn loop, archive, plan trees, scenes ----

  /** The agent's profile (an empty one when none was written). */
  async getProfile(): Promise<Profile> {
    return getProfile(this.memoryContext);
  }

  /**
   * Merges `update` into the profile: a field left out keeps its value; a preference set to
   * `null` is removed. Returns the stored profile.
   *
   * @example
   * ```ts
   * await agent.updateProfile({ role: 'release engineer', preferences: { editor: 'vim' } });
   * ```
   */
  async updateProfile(update: ProfileUpdate): Promise<Profile> {
    return updateProfile(this.memoryContext, update);
  }

  /**
   * Opens a turn: continues the current scene (after a reopen: the one used last), or the named
   * one, or a new one (`newScene: true`, or when the agent has none). Returns the profile, the
   * scene's surface topics (newest last) and the turn's id. While a turn is open, `search`
   * returns that same turn (`resumed: true`); asking for another scene then is a `CONFLICT`.
   *
   * @example
   * ```ts
   * const { turnId, topics } = await agent.search();
   * await agent.appendArchive({ kind: 'event', eventType: 'tool_call', content: '{"tool":"grep"}', createdAt: Date.now() });
   * const { topic } = await agent.update({ input: 'Where is the JWT secret?', output: 'In vault, path auth/jwt.', createdAt: Date.now() });
   * ```
   */
  async search(query: SearchQuery = {}): Promise<SearchResult> {
    return search(this.memoryContext, query);
  }

  /**
   * Writes one record (an utterance or an event) into the open turn and returns its slot.
   * Refused (`INVALID_INPUT`, nothing written) with no open turn or over a limit.
   */
  async appendArchive(record: ArchiveInput): Promise<ArchiveSlot> {
    return appendArchive(this.memoryContext, record);
  }

  /** Writes many records into the open turn in one transaction (all or nothing), e.g. a whole session. */
  async appendArchiveMany(records: readonly ArchiveInput[]): Promise<ArchiveSlot[]> {
    return appendArchiveMany(this.memoryContext, records);
  }

  /** Adds a plan step to the open turn under `parentSeq` (0 = a root); it starts `in_progress`. */
  async planNodeAdd(parentSeq: number, title = ''): Promise<PlanNode> {
    return planNodeAdd(this.memoryContext, parentSeq, title);
  }

  /** Sets a step's status (and title/summary when given); summaries fold up finished branches. */
  async planNodeUpdate(step: PlanStepUpdate): Promise<PlanNode> {
    return planNodeUpdate(this.memoryContext, step);
  }

  /** The open turn's plan forest and its counts. */
  async planState(): Promise<PlanState> {
    return planState(this.memoryContext);
  }

  /**
   * Closes the open turn: writes the input, output and outcome, distils the turn's keywords and
   * returns its topic, all in one transaction. When the model fails the turn still closes, with
   * `keywordsPending: true`.
   */
  async update(turnEnd: TurnEnd): Promise<TurnResult> {
    const { result, surfaceCount } = await closeTurn(this.memoryContext, turnEnd);
    // Starts a background Dream pass when the scene passed the threshold; never throws, never waits.
    this.#scheduler().afterUpdate(result.topic.sceneId, surfaceCount);
    return result;
  }

  /** Archive records matching every given condition (text through the recall index). */
  async searchArchive(query: ArchiveQuery = {}): Promise<ArchiveRecord[]> {
    return searchArchive(this.memoryContext, query);
  }

  /** The agent's scenes, oldest first (`knowledgeId`: only those anchored to that graph). */
  async listScenes(options: { knowledgeId?: string } = {}): Promise<ListedScene[]> {
    return listScenes(this.memoryContext, options);
  }

  /** A scene's transcript (default: the current scene). Opens no turn. */
  async sceneContext(sceneId?: string): Promise<SceneContext> {
    return sceneContext(this.memoryContext, sceneId);
  }

  /** Renames and/or re-anchors a scene (`knowledgeId: null` clears; replacing needs `force`). */
  async updateScene(sceneId: string, patch: SceneUpdate): Promise<Scene> {
    return updateScene(this.memoryContext, sceneId, patch);
  }

  /** Names a topic. */
  async renameTopic(topicId: string, name: string): Promise<Topic> {
    return renameTopic(this.memoryContext, topicId, name);
  }

  /** Moves the topics of `secondaryIds` into `sceneId` and deletes those scenes (one transaction). */
  async mergeScenes(sceneId: string, secondaryIds: readonly string[]): Promise<MergeReport> {
    return mergeScenes(this.memoryContext, sceneId, secondaryIds);
  }

  /** Deletes a scene and everything in it; reports what was removed. */
  async deleteScene(sceneId: string): Promise<DeleteReport> {
    return deleteScene(this.memoryContext, sceneId);
  }

  /** Deletes a topic and the topics under it; reports what was removed. */
  async deleteTopic(topicId: string): Promise<DeleteReport> {
    return deleteTopic(this.memoryContext, topicId);
  }

  // ---- Engram and Dream ----

  /**
   * The agent's engram: one node per scene (importance decaying with time, emotion), and edges
   * between scenes whose keywords overlap. Empty before the first Dream pass; only Dream writes it.
   */
  async listEngram(): Promise<EngramGraph> {
    return listEngram(this.memoryContext);
  }

  /**
   * Runs a Dream pass now and returns its report: fills pending summaries and keywords and
   * refreshes older radial nodes' summaries, fuses related adjacent topics of crowded scenes
   * (only `sceneId`'s when given), distils the profile estimate, rebuilds and decays the engram,
   * and prunes expired records when retention is on. Its result is applied in one short
   * transaction; a turn never waits for its model calls. `BUSY` when another process is running
   * Dream for this agent.
   *
   * @example
   * ```ts
   * const report = await agent.dream();
   * for (const stage of report.stages) console.log(stage.name, stage.status, stage.changed);
   * await agent.undoDream(report.id); // everything it changed, put back
   * ```
   */
  async dream(sceneId?: string): Promise<DreamReport> {
    const scene = parseDreamScene(sceneId);
    this.#assertOpen('dream');
    return this.#scheduler().dream(scene);
  }

  /** The agent's Dream passes, newest first (`limit`, default 100), each with its report. */
  async dreamHistory(options: DreamHistoryOptions = {}): Promise<DreamReport[]> {
    const scheduler = this.#scheduler();
    return dreamHistory(this.memoryContext, (run) => scheduler.isLive(run), options);
  }

  /**
   * Reverts what a Dream pass changed: fused topics are removed and their turns go back to the
   * surface, refreshed summaries, the engram and the profile estimate are restored. Refused with
   * `CONFLICT` (nothing changed) when a later pass has not been undone or something it folded was
   * deleted, renamed or moved since. Records retention deleted are not brought back.
   */
  async undoDream(id: string): Promise<UndoDreamReport> {
    const checked = parseDreamId(id);
    this.#assertOpen('undoDream');
    return this.#scheduler().undo(checked);
  }

  /**
   * Dream's estimate of the agent (personality line, emotion, MBTI-style axes and the type
   * derived from them), kept apart from the host-written profile. Undefined before the first
   * distillation.
   */
  async distilledProfile(): Promise<DistilledProfile | undefined> {
    return distilledProfile(this.memoryContext);
  }

  /** Resolves when no Dream pass of this agent is running in this process (e.g. a background one). */
  async waitForDream(): Promise<void> {
    await this.#dreams?.idle();
  }

  /** @internal Cancels this agent's Dream pass in flight and waits for it (`MemoryDB.close`). */
  async stopBackground(): Promise<void> {
    await this.#dreams?.stop();
  }

  #scheduler(): DreamScheduler {
    this.#dreams ??= new DreamScheduler(this.#context);
    return this.#dreams;
  }

  #assertOpen(what: string): void {
    if (this.#context.store.closed) {
      throw new HedgehopError('CLOSED', `${what}: the memory file ${this.#context.store.path} is closed`);
    }
  }
}
