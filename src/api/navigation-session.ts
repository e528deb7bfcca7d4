import { type DetailLevelName, levelName, type DetailLevel } from '../core/model/levels.js';
import type { RadialService } from '../memory/radial/radial-service.js';
import { renderSession } from '../memory/radial/session-view.js';
import type { RadialLine, RadialNode } from '../core/model/radial.js';

/** One ranked alternative of a navigation. */
export interface NavigationCandidate {
  readonly node: RadialNode;
  /** Calibrated match confidence 0..1 (0 for nodes a step-by-step walk lists without a match). */
  readonly confidence: number;
}

/** @internal How a session moves on to the next candidate. */
type Advance = () => Promise<NavigationSession | undefined>;

/** @internal What a session is built from. */
interface SessionSeed {
  readonly node: RadialNode;
  readonly level: DetailLevel;
  /** `undefined` for a node loaded by position (shown as such; `confidence` is then 1). */
  readonly confidence: number | undefined;
  readonly candidates: readonly NavigationCandidate[];
  readonly candidateIndex: number;
  readonly query: string | undefined;
}

/**
 * A node loaded into context at some detail level, as returned by `RadialMemory.navigate`.
 * Sessions are immutable: `drillDeeper()` and `next()` return new sessions. They refer to their
 * node by id, so a session stays right while other tasks are committed (its `position` is the
 * one read when the session was made).
 *
 * @example
 * ```ts
 * const session = await agent.radial.navigate('how did we implement login?');
 * if (session) {
 *   console.log(session.context);                // brief level
 *   const deeper = await session.drillDeeper();  // summary level
 *   const verbatim = await session.loadFullState();
 * }
 * ```
 */
export class NavigationSession {
  /** The node this session shows (the best match for a navigation). */
  readonly node: RadialNode;
  readonly line: RadialLine;
  /** Current detail level, 0 (origin) … 4 (full, verbatim). */
  readonly level: DetailLevel;
  readonly levelName: DetailLevelName;
  /** Calibrated confidence 0..1 that `node` is what the query asked for (1 when loaded by position). */
  readonly confidence: number;
  /** Every ranked candidate of the navigation, best first (`node` is `candidates[candidateIndex]`). */
  readonly candidates: readonly NavigationCandidate[];
  readonly candidateIndex: number;
  /** The query that found the node, if any. */
  readonly query: string | undefined;
  /** The text to put in the model's context. */
  readonly context: string;
  readonly #service: RadialService;
  readonly #advance: Advance | undefined;
  readonly #seed: SessionSeed;

  /** @internal Sessions come from `RadialMemory.navigate`, `navigateStepByStep` and `openNode`. */
  static async open(
    service: RadialService,
    seed: SessionSeed,
    advance?: Advance,
  ): Promise<NavigationSession> {
    const line = await service.getLineOrThrow(seed.node.lineId);
    const earlier = await service.earlierNodes(seed.node);
    const context = renderSession({
      projectName: await service.projectName(),
      line,
      node: seed.node,
      level: seed.level,
      confidence: seed.confidence,
      fullContext: seed.level === 4 ? await service.fullContext(seed.node.id) : undefined,
      earlier: earlier.nodes,
      earlierBeyond: earlier.beyond,
      storedHistory: (await service.nodeRecord(seed.node.id))?.history,
    });
    return new NavigationSession(service, seed, line, context, advance);
  }

  private constructor(
    service: RadialService,
    seed: SessionSeed,
    line: RadialLine,
    context: string,
    advance: Advance | undefined,
  ) {
    this.#service = service;
    this.#seed = seed;
    this.#advance = advance;
    this.node = seed.node;
    this.line = line;
    this.level = seed.level;
    this.levelName = levelName(seed.level);
    this.confidence = seed.confidence ?? 1;
    this.candidates = seed.candidates;
    this.candidateIndex = seed.candidateIndex;
    this.query = seed.query;
    this.context = context;
  }

  /** True while a more detailed level exists (every node has a verbatim state). */
  get canDrillDeeper(): boolean {
    return this.level < 4;
  }

  /** True at level 4, where `context` holds the verbatim full context. */
  get isFullStateLoaded(): boolean {
    return this.level === 4;
  }

  /** The same node one level deeper (this session itself at level 4). */
  async drillDeeper(): Promise<NavigationSession> {
    if (!this.canDrillDeeper) return this;
    const node = (await this.#service.getNodeById(this.node.id)) ?? this.node;
    return NavigationSession.open(
      this.#service,
      { ...this.#seed, node, level: (this.level + 1) as DetailLevel },
      this.#advance,
    );
  }

  /**
   * The next candidate at the level this navigation started at, or `undefined` after the last.
   * For a step-by-step walk this is the walk's next node.
   */
  async next(): Promise<NavigationSession | undefined> {
    return this.#advance ? this.#advance() : undefined;
  }

  /** The node's committed `fullContext`, byte for byte. */
  async loadFullState(): Promise<string> {
    return this.#service.fullContext(this.node.id);
  }
}

/** Sessions over a ranked candidate list: `next()` walks the list. */
export async function candidateSession(
  service: RadialService,
  candidates: readonly NavigationCandidate[],
  index: number,
  level: DetailLevel,
  query: string | undefined,
): Promise<NavigationSession | undefined> {
  const candidate = candidates[index];
  if (!candidate) return undefined;
  const node = (await service.getNodeById(candidate.node.id)) ?? candidate.node;
  return NavigationSession.open(
    service,
    { node, level, confidence: candidate.confidence, candidates, candidateIndex: index, query },
    async () => candidateSession(service, candidates, index + 1, level, query),
  );
}

/** Where a step-by-step walk is. */
interface WalkCursor {
  lineIndex: number;
  beforeLineSeq: number | undefined;
  buffer: NavigationCandidate[];
}

/**
 * Walks candidate nodes one at a time (`RadialMemory.navigateStepByStep`): first every node the
 * query matches, best first, then the remaining nodes of the chosen lines newest first (with
 * confidence 0), so an agent can inspect everything in a sensible order. The set of nodes is the
 * one that existed when the walk began.
 */
export class StepNavigator {
  readonly query: string;
  readonly lineId: string | undefined;
  readonly #service: RadialService;
  readonly #matches: readonly NavigationCandidate[];
  readonly #matched: ReadonlySet<string>;
  readonly #lines: readonly { readonly id: string; readonly endSeq: number }[];
  readonly #total: number;
  readonly #cursor: WalkCursor = { lineIndex: 0, beforeLineSeq: undefined, buffer: [] };
  #returned = 0;
  #matchIndex = 0;

  /** @internal Use `RadialMemory.navigateStepByStep`. */
  constructor(
    service: RadialService,
    query: string,
    lineId: string | undefined,
    matches: readonly NavigationCandidate[],
    lines: readonly RadialLine[],
  ) {
    this.#service = service;
    this.query = query;
    this.lineId = lineId;
    this.#matches = matches;
    this.#matched = new Set(matches.map((m) => m.node.id));
    this.#lines = lines.map((line) => ({ id: line.id, endSeq: line.nodeCount + 1 }));
    this.#total = lines.reduce((sum, line) => sum + line.nodeCount, 0);
  }

  /** Nodes not yet returned. */
  get remaining(): number {
    return Math.max(0, this.#total - this.#returned);
  }

  /** The next node as a brief-level session, or `undefined` when the walk is over. */
  async next(): Promise<NavigationSession | undefined> {
    const candidate = await this.#nextCandidate();
    if (!candidate) return undefined;
    this.#returned++;
    const node = (await this.#service.getNodeById(candidate.node.id)) ?? candidate.node;
    return NavigationSession.open(
      this.#service,
      {
        node,
        level: 1,
        confidence: candidate.confidence,
        candidates: this.#matches,
        candidateIndex: this.#matches.findIndex((m) => m.node.id === node.id),
        query: this.query,
      },
      () => this.next(),
    );
  }

  async #nextCandidate(): Promise<NavigationCandidate | undefined> {
    if (this.#matchIndex < this.#matches.length) return this.#matches[this.#matchIndex++];
    const cursor = this.#cursor;
    while (cursor.buffer.length === 0) {
      const line = this.#lines[cursor.lineIndex];
      if (!line) return undefined;
      const page = await this.#service.linePage(line.id, cursor.beforeLineSeq ?? line.endSeq, 100);
      if (page.length === 0) {
        cursor.lineIndex++;
        cursor.beforeLineSeq = undefined;
        continue;
      }
      cursor.beforeLineSeq = page[page.length - 1]?.lineSeq;
      for (const { node } of page)
        if (!this.#matched.has(node.id)) cursor.buffer.push({ node, confidence: 0 });
    }
    return cursor.buffer.shift();
  }
}
