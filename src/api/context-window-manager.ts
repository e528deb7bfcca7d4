import { HedgehopError } from '../core/errors.js';
import { parseInput } from '../core/validate.js';
import { z } from 'zod';
import type { DetailLevelName, DetailLevel } from '../core/model/levels.js';
import type { RadialNode } from '../core/model/radial.js';
import type { NavigationCandidate, NavigationSession } from './navigation-session.js';
import {
  parseLevel,
  type CompleteTaskInput,
  type DetailLevelInput,
  type ExtendTaskInput,
  type NavigateOptions,
  type RadialMemory,
} from './radial-memory.js';

/** What the manager has put in context last. */
export interface ContextState {
  readonly type: 'empty' | 'origin' | 'node';
  readonly lineId: string | undefined;
  /** The loaded node's id (its position is looked up fresh whenever it is reported). */
  readonly nodeId: string | undefined;
}

/** The first line of the text `reset()` returns after the origin. */
const RESET_FOOTER = 'Context reset to the origin; load a task by topic, or by line and position.';

/**
 * The outcome of `ContextWindowManager.load` / `loadNode`: the context to show, and ways to go
 * deeper. A `not_found` result carries the origin in `context`, so the agent is never left
 * without its bearings.
 */
export class LoadResult {
  readonly status: 'found' | 'not_found';
  readonly context: string;
  /** Match confidence 0..1 (1 for a node loaded by position, 0 when not found). */
  readonly confidence: number;
  readonly level: DetailLevel | undefined;
  readonly levelName: DetailLevelName | undefined;
  readonly canDrillDeeper: boolean;
  readonly node: RadialNode | undefined;
  readonly lineId: string | undefined;
  /** Ranked alternatives of a query load (empty otherwise). */
  readonly candidates: readonly NavigationCandidate[];
  /** The underlying session, when found. */
  readonly session: NavigationSession | undefined;
  readonly #onLoad: (session: NavigationSession) => void;

  /** @internal */
  constructor(
    found: { session: NavigationSession } | { notFound: string },
    onLoad: (session: NavigationSession) => void,
  ) {
    this.#onLoad = onLoad;
    if ('session' in found) {
      const { session } = found;
      this.status = 'found';
      this.context = session.context;
      this.confidence = session.confidence;
      this.level = session.level;
      this.levelName = session.levelName;
      this.canDrillDeeper = session.canDrillDeeper;
      this.node = session.node;
      this.lineId = session.node.lineId;
      this.candidates = session.candidates;
      this.session = session;
    } else {
      this.status = 'not_found';
      this.context = found.notFound;
      this.confidence = 0;
      this.level = undefined;
      this.levelName = undefined;
      this.canDrillDeeper = false;
      this.node = undefined;
      this.lineId = undefined;
      this.candidates = [];
      this.session = undefined;
    }
  }

  /** The same node one level deeper (this result itself at level 4 or when not found). */
  async drillDeeper(): Promise<LoadResult> {
    if (!this.session || !this.session.canDrillDeeper) return this;
    return new LoadResult({ session: await this.session.drillDeeper() }, this.#onLoad);
  }

  /** The next ranked candidate (which becomes the loaded node), or `undefined` after the last. */
  async next(): Promise<LoadResult | undefined> {
    const session = await this.session?.next();
    if (!session) return undefined;
    this.#onLoad(session);
    return new LoadResult({ session }, this.#onLoad);
  }

  /** The node's committed full context, byte for byte ('' when not found). */
  async loadFullState(): Promise<string> {
    return this.session ? this.session.loadFullState() : '';
  }
}

/**
 * Keeps an agent's context window small: `reset()` to the origin, `load()` a task when it is
 * needed, `commit()` when one is done. Its state follows the loaded node by id, so
 * `statusReport()` stays right however many tasks are committed after the load.
 *
 * @example
 * ```ts
 * const context = agent.context;
 * const system = await context.reset();                 // origin only, within budget
 * const result = await context.load('how did we implement login?');
 * if (result.status === 'found' && result.canDrillDeeper) console.log((await result.drillDeeper()).context);
 * await context.commit({ lineId: 'auth', taskLabel: 'Add refresh endpoint', fullContext: '…', conversationSummary: '…' });
 * ```
 */
export class ContextWindowManager {
  readonly #radial: RadialMemory;
  #state: ContextState = { type: 'empty', lineId: undefined, nodeId: undefined };

  /** Usually obtained as `agent.context`. */
  constructor(radial: RadialMemory) {
    this.#radial = radial;
  }

  /** What is loaded now. */
  get state(): ContextState {
    return this.#state;
  }

  /** Forgets any loaded task and returns the origin (within the origin token budget). */
  async reset(): Promise<string> {
    const text = await this.#radial.service.originText(RESET_FOOTER);
    this.#state = { type: 'origin', lineId: undefined, nodeId: undefined };
    return text;
  }

  /**
   * Navigates to the task that best answers `query` and loads it (see `RadialMemory.navigate`).
   * Not found (including an unknown `lineId`) gives a `not_found` result holding the origin;
   * the manager's state is then unchanged.
   */
  async load(query: string, options?: NavigateOptions): Promise<LoadResult> {
    let session: NavigationSession | undefined;
    try {
      session = await this.#radial.navigate(query, options);
    } catch (error) {
      if (!(HedgehopError.isInstance(error) && error.code === 'NOT_FOUND')) throw error;
      return this.#notFound(`No such line: ${error.message}`);
    }
    if (!session) return this.#notFound(`No task matches the query: ${query}`);
    this.#loaded(session);
    return new LoadResult({ session }, (s) => this.#loaded(s));
  }

  /**
   * Loads the node at `position` (default 1) of a line at `level` (default 2, summary).
   * An unknown line or position gives a `not_found` result (bad arguments are `INVALID_INPUT`).
   */
  async loadNode(lineId: string, position = 1, level: DetailLevelInput = 2): Promise<LoadResult> {
    parseLevel(level, 'level');
    parseInput(z.number().int().min(1, 'must be a whole number ≥ 1'), position, 'position');
    try {
      const session = await this.#radial.openNode(lineId, position, level);
      this.#loaded(session);
      return new LoadResult({ session }, (s) => this.#loaded(s));
    } catch (error) {
      if (!(HedgehopError.isInstance(error) && error.code === 'NOT_FOUND')) throw error;
      return this.#notFound(`No such node: line '${lineId}', position ${position}.`);
    }
  }

  /** Commits a task (an extension of the line's newest task with `extension: true`) and loads it. */
  async commit(
    task: CompleteTaskInput | ExtendTaskInput,
    options: { readonly extension?: boolean } = {},
  ): Promise<RadialNode> {
    const node = options.extension
      ? await this.#radial.extendTask(task)
      : await this.#radial.completeTask(task as CompleteTaskInput);
    this.#state = { type: 'node', lineId: node.lineId, nodeId: node.id };
    return node;
  }

  /** What is loaded (the node found by id, with its current position), followed by the origin. */
  async statusReport(): Promise<string> {
    const lines = [`Context manager status: ${this.#describeType()}`];
    if (this.#state.type === 'node' && this.#state.nodeId !== undefined) {
      const node = await this.#radial.getNodeById(this.#state.nodeId);
      lines.push(
        node
          ? `Loaded task: "${node.taskLabel}" on line ${node.lineId}, now at position ${node.position} (node ${node.id})`
          : `Loaded task: node ${this.#state.nodeId} no longer exists`,
      );
    }
    lines.push('', await this.#radial.getOriginContext());
    return lines.join('\n');
  }

  #describeType(): string {
    if (this.#state.type === 'empty') return 'empty (nothing loaded yet)';
    if (this.#state.type === 'origin') return 'origin only';
    return 'task loaded';
  }

  #loaded(session: NavigationSession): void {
    this.#state = { type: 'node', lineId: session.node.lineId, nodeId: session.node.id };
  }

  async #notFound(reason: string): Promise<LoadResult> {
    const context = [
      reason,
      'Try other words, load a task by line and position, or recall across every layer.',
      '',
      await this.#radial.service.originText(),
    ].join('\n');
    return new LoadResult({ notFound: context }, (s) => this.#loaded(s));
  }
}
