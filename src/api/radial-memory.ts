import { z } from 'zod';
import { HedgehopError } from '../core/errors.js';
import { hasControlCharacter } from '../core/control-characters.js';
import { parseInput } from '../core/validate.js';
import type { Summarizer } from '../llm/types.js';
import type { PartialSummarizer } from '../llm/partial-summarizer.js';
import type { MemoryContext } from '../memory/context.js';
import { DETAIL_LEVEL_NAMES, levelNumber, type DetailLevel } from '../core/model/levels.js';
import { RadialService, type FillReport } from '../memory/radial/radial-service.js';
import {
  type LineHistoryEntry,
  type RadialLine,
  type RadialNode,
  type TaskRecord,
  jsonObjectSchema,
  wellFormed,
} from '../core/model/radial.js';
import { candidateSession, NavigationSession, StepNavigator } from './navigation-session.js';
import type { OpenOptions } from './options.js';
import { queryTextSchema } from '../core/model/recall.js';

const LONE_SURROGATE = 'contains a lone surrogate (not valid Unicode text)';

const idSchema = z
  .string()
  .refine((value) => value.trim().length > 0, 'must not be empty')
  .refine((value) => Buffer.byteLength(value, 'utf8') <= 256, 'at most 256 bytes')
  .refine(wellFormed, LONE_SURROGATE)
  .refine((value) => !hasControlCharacter(value), 'must not contain control characters');

const textSchema = z.string().refine(wellFormed, LONE_SURROGATE);

const labelSchema = z
  .string()
  .refine((value) => value.trim().length > 0, 'must not be empty')
  .refine(wellFormed, LONE_SURROGATE);

const levelSchema = z.union([z.number().int().min(0).max(4), z.enum(DETAIL_LEVEL_NAMES)], {
  error: 'must be a detail level: 0..4 or origin, brief, summary, detailed, full',
});

const positionSchema = z
  .number({ error: 'must be a whole number ≥ 1' })
  .int('must be a whole number ≥ 1')
  .min(1, 'must be a whole number ≥ 1');

const fileChangeSchema = z.strictObject({
  path: z.string().min(1, 'must not be empty').refine(wellFormed, LONE_SURROGATE),
  changeType: textSchema.default('modified'),
  diffSummary: textSchema.default(''),
});

const suppliedSummariesSchema = z.strictObject({
  origin: textSchema.optional(),
  brief: textSchema.optional(),
  summary: textSchema.optional(),
  detailed: textSchema.optional(),
});

const taskFields = {
  lineId: idSchema,
  fullContext: textSchema,
  conversationSummary: textSchema,
  fileChanges: z.array(fileChangeSchema).default([]),
  todos: z.array(textSchema).default([]),
  envSnapshot: jsonObjectSchema.default({}),
  summaries: suppliedSummariesSchema.default({}),
};

const completeTaskSchema = z.strictObject({ ...taskFields, taskLabel: labelSchema });
const extendTaskSchema = z.strictObject({ ...taskFields, taskLabel: labelSchema.optional() });

/** A memory a standalone {@link RadialMemory} opened itself: closing the radial memory closes it. */
interface OwnedMemory {
  readonly context: MemoryContext;
  close(): Promise<void>;
}

/** How {@link RadialMemory.open} opens its own memory; provided by memory-db.ts. */
type StandaloneOpen = (path: string, options: OpenOptions) => Promise<OwnedMemory>;
let standaloneOpen: StandaloneOpen | undefined;

/**
 * @internal Called once by memory-db.ts, which owns `openMemory`. Importing it here instead would
 * close the cycle MemoryDB → Agent → RadialMemory → MemoryDB.
 */
export function provideStandaloneOpen(open: StandaloneOpen): void {
  standaloneOpen = open;
}

/** A completed task, as given to {@link RadialMemory.completeTask}. */
export type CompleteTaskInput = z.input<typeof completeTaskSchema>;
/** A continuation of a line's newest task ({@link RadialMemory.extendTask}); the label may be omitted. */
export type ExtendTaskInput = z.input<typeof extendTaskSchema>;
/** A detail level by number (0..4) or name. */
export type DetailLevelInput = z.input<typeof levelSchema>;

/**
 * Default `confidenceThreshold` of `navigate`. Confidence is the calibrated share of the query's
 * information (IDF-weighted words) found in the node, or, with an embedder, how far the node's
 * similarity in meaning stands above an unrelated node's (whichever is higher), so a question
 * whose only informative word matches ("what happens when someone forgets their password?")
 * scores about 0.1–0.2 against the right node; HedgehogMemory's 0.25 was on its plain
 * word-share scale.
 */
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.1;

/**
 * Best nodes whose confidence is under this get the summariser's second opinion. It is fixed,
 * not the caller's threshold, so that the confidence a node reports never depends on the
 * threshold it is compared with.
 */
const CONFIRM_BELOW = DEFAULT_CONFIDENCE_THRESHOLD;

const navigateOptionsSchema = z
  .strictObject({
    lineId: idSchema.optional(),
    initialLevel: levelSchema.default(1),
    confidenceThreshold: z.number().min(0).max(1).default(DEFAULT_CONFIDENCE_THRESHOLD),
    limit: z.number().int().min(1).max(200).default(10),
  })
  .default({ initialLevel: 1, confidenceThreshold: DEFAULT_CONFIDENCE_THRESHOLD, limit: 10 });

/** Options of {@link RadialMemory.navigate}. */
export type NavigateOptions = z.input<typeof navigateOptionsSchema>;

const stepOptionsSchema = z.strictObject({ lineId: idSchema.optional() }).default({});
const querySchema = queryTextSchema.refine((q) => q.trim().length > 0, 'must not be empty');
const stepQuerySchema = queryTextSchema;

/** Options of {@link RadialMemory.open}: those of `openMemory`, plus the project name. */
export type RadialOpenOptions = OpenOptions & {
  /** The project name of a new memory; a name already stored in the file wins (as in HedgehogMemory). */
  readonly projectName?: string;
  readonly summarizer?: Summarizer | PartialSummarizer;
};

/** Resolves a validated level input to its number. */
function toLevel(value: number | string): DetailLevel {
  return typeof value === 'number'
    ? (value as DetailLevel)
    : levelNumber(value as Parameters<typeof levelNumber>[0]);
}

/** @internal Validates a level argument (`field` names it in the error). */
export function parseLevel(value: unknown, field: string): DetailLevel {
  return toLevel(parseInput(levelSchema, value, field));
}

/**
 * An agent's radial memory: task lines radiating from one origin, each holding the tasks
 * completed on it (nodes, newest at position 1), every node with summaries at four levels and
 * its verbatim state. Get it as `agent.radial`, or standalone with {@link RadialMemory.open}.
 *
 * @example
 * ```ts
 * const radial = await RadialMemory.open('memory.db', { projectName: 'Shop' });
 * await radial.createLine('auth', 'Authentication', 'Login, tokens, sessions');
 * await radial.completeTask({
 *   lineId: 'auth',
 *   taskLabel: 'Implement JWT login endpoint',
 *   fullContext: 'POST /api/auth/login returns access and refresh tokens …',
 *   conversationSummary: 'Chose stateless JWT over server sessions.',
 *   todos: ['Add rate limiting'],
 * });
 * console.log(await radial.getOriginContext());
 * const session = await radial.navigate('how does login work?');
 * console.log(await session?.loadFullState());
 * await radial.close();
 * ```
 */
export class RadialMemory {
  readonly #service: RadialService;
  readonly #owned: OwnedMemory | undefined;

  /** @internal Use `agent.radial` or {@link RadialMemory.open}. */
  constructor(context: MemoryContext, owned?: OwnedMemory) {
    this.#service = new RadialService(context);
    this.#owned = owned;
  }

  /**
   * Opens (or creates) a memory file and returns its primary agent's radial memory. Closing it
   * closes the file. `projectName` is stored when the file has none yet.
   */
  static async open(path: string, options: RadialOpenOptions = {}): Promise<RadialMemory> {
    const { projectName, ...openOptions } = options;
    const name = projectName === undefined ? undefined : parseInput(labelSchema, projectName, 'projectName');
    if (!standaloneOpen)
      throw new HedgehopError('IO', 'RadialMemory.open: import it from the hedgehop package');
    const db = await standaloneOpen(path, openOptions);
    try {
      const radial = new RadialMemory(db.context, db);
      if (name !== undefined && !openOptions.readOnly) await radial.#service.setProjectName(name, false);
      return radial;
    } catch (error) {
      await db.close();
      throw error;
    }
  }

  /** @internal */
  get service(): RadialService {
    return this.#service;
  }

  /** The project name shown in the origin (`Project` until one is set). */
  async getProjectName(): Promise<string> {
    return this.#service.projectName();
  }

  /** Renames the project. */
  async setProjectName(name: string): Promise<string> {
    return this.#service.setProjectName(parseInput(labelSchema, name, 'projectName'), true);
  }

  // ---- lines --------------------------------------------------------------------------------

  /** Creates a task line; `CONFLICT` if the id is taken. `name` defaults to the id. */
  async createLine(id: string, name?: string, description?: string): Promise<RadialLine> {
    const args = this.#lineArgs(id, name, description, 'createLine');
    return this.#service.createLine(args.id, args.name, args.description);
  }

  /** The line, created if absent; an existing line keeps its name and description. */
  async getOrCreateLine(id: string, name?: string, description?: string): Promise<RadialLine> {
    const args = this.#lineArgs(id, name, description, 'getOrCreateLine');
    return (await this.#service.getOrCreateLine(args.id, args.name, args.description)).line;
  }

  #lineArgs(id: unknown, name: unknown, description: unknown, what: string) {
    const checkedId = parseInput(idSchema, id, 'lineId');
    return {
      id: checkedId,
      name: name === undefined ? checkedId : parseInput(textSchema, name, `${what}.name`),
      description:
        description === undefined ? '' : parseInput(textSchema, description, `${what}.description`),
    };
  }

  /** The line, or undefined. */
  async getLine(id: string): Promise<RadialLine | undefined> {
    return this.#service.getLine(parseInput(idSchema, id, 'lineId'));
  }

  /** The line, or `NOT_FOUND` (field `lineId`). */
  async getLineOrThrow(id: string): Promise<RadialLine> {
    return this.#service.getLineOrThrow(parseInput(idSchema, id, 'lineId'));
  }

  /** Every line in creation order, with its node count and newest task. */
  async listLines(): Promise<RadialLine[]> {
    return this.#service.listLines();
  }

  // ---- commits ------------------------------------------------------------------------------

  /**
   * Records a completed task as position 1 of its line (older nodes move one position out;
   * nothing is rewritten). Input is checked before anything is written. Summaries at every
   * level are made from the whole task; if the summariser fails the task is still committed,
   * with `summariesState: 'pending'` until {@link fillPendingSummaries} runs.
   */
  async completeTask(task: CompleteTaskInput): Promise<RadialNode> {
    const checked = parseInput(completeTaskSchema, task, 'completeTask');
    return this.#service.commit(checked as TaskRecord, { extend: false });
  }

  /**
   * Checks a task as {@link completeTask} (or, with `extend`, {@link extendTask}) would, without
   * writing anything: `INVALID_INPUT` naming the field. Lets a caller that must create the line
   * first (the CLI's and MCP's commit) refuse bad input before that write.
   */
  async checkTask(
    task: CompleteTaskInput | ExtendTaskInput,
    options: { extend?: boolean } = {},
  ): Promise<void> {
    if (options.extend === true) parseInput(extendTaskSchema, task, 'extendTask');
    else parseInput(completeTaskSchema, task, 'completeTask');
  }

  /**
   * Records a continuation of the line's newest task: a new node (positions work as for
   * `completeTask`) that remembers which node it extends; the label defaults to that node's.
   */
  async extendTask(task: ExtendTaskInput): Promise<RadialNode> {
    const checked = parseInput(extendTaskSchema, task, 'extendTask');
    const label = checked.taskLabel ?? (await this.#service.getNode(checked.lineId, 1))?.taskLabel;
    if (label === undefined) {
      await this.#service.getLineOrThrow(checked.lineId);
      throw new HedgehopError(
        'INVALID_INPUT',
        `extendTask.taskLabel: line '${checked.lineId}' has no task to extend; give a taskLabel`,
        {
          field: 'extendTask.taskLabel',
        },
      );
    }
    return this.#service.commit({ ...checked, taskLabel: label } as TaskRecord, { extend: true });
  }

  /** Computes summaries left pending by a failed summariser (at most `limit` nodes per call). */
  async fillPendingSummaries(options: { limit?: number } = {}): Promise<FillReport> {
    const { limit } = parseInput(
      z.strictObject({ limit: z.number().int().min(1).max(100_000).default(100) }),
      options,
      'fillPendingSummaries',
    );
    return this.#service.fillPendingSummaries(limit);
  }

  // ---- navigation ---------------------------------------------------------------------------

  /**
   * Finds the node that best answers `query` (a question or keywords, any language) and opens
   * it at `initialLevel` (default 1, brief). Every node is ranked through the recall index; the
   * session lists the ranked `candidates`. When the best nodes fall short of {@link CONFIRM_BELOW},
   * the summariser's `verifyMatch` gives a second opinion on at most three of them (whatever the
   * threshold, so a node's confidence does not depend on it). `undefined`
   * when no node reaches `confidenceThreshold` (default {@link DEFAULT_CONFIDENCE_THRESHOLD}).
   * An unknown `lineId` is `NOT_FOUND`.
   */
  async navigate(query: string, options?: NavigateOptions): Promise<NavigationSession | undefined> {
    const checkedQuery = parseInput(querySchema, query, 'query');
    const checked = parseInput(navigateOptionsSchema, options, 'options');
    if (checked.lineId !== undefined) await this.#service.getLineOrThrow(checked.lineId);
    const candidates = await this.#service.rank(checkedQuery, {
      lineId: checked.lineId,
      limit: checked.limit,
      confirmBelow: CONFIRM_BELOW,
    });
    const best = candidates[0];
    if (!best || best.confidence < checked.confidenceThreshold) return undefined;
    return candidateSession(this.#service, candidates, 0, toLevel(checked.initialLevel), checkedQuery);
  }

  /**
   * A walk over candidate nodes, one `next()` at a time: the query's matches best first, then
   * every other node of the line (or of all lines) newest first. Unknown `lineId`: `NOT_FOUND`.
   */
  async navigateStepByStep(query: string, options?: { lineId?: string }): Promise<StepNavigator> {
    const checkedQuery = parseInput(stepQuerySchema, query, 'query');
    const { lineId } = parseInput(stepOptionsSchema, options, 'options');
    const lines =
      lineId === undefined ? await this.#service.listLines() : [await this.#service.getLineOrThrow(lineId)];
    const matches =
      checkedQuery.trim().length > 0 ? await this.#service.rank(checkedQuery, { lineId, limit: 50 }) : [];
    return new StepNavigator(this.#service, checkedQuery, lineId, matches, lines);
  }

  /**
   * Opens the node at `position` of a line as a session at `level` (default 2, summary), with
   * confidence 1. `NOT_FOUND` naming `lineId` or `position` when there is no such node.
   */
  async openNode(lineId: string, position: number, level: DetailLevelInput = 2): Promise<NavigationSession> {
    const checkedLine = parseInput(idSchema, lineId, 'lineId');
    const checkedPosition = parseInput(positionSchema, position, 'position');
    const checkedLevel = parseLevel(level, 'level');
    const node = await this.#service.getNodeOrThrow(checkedLine, checkedPosition);
    return NavigationSession.open(this.#service, {
      node,
      level: checkedLevel,
      confidence: undefined,
      candidates: [],
      candidateIndex: -1,
      query: undefined,
    });
  }

  // ---- reading ------------------------------------------------------------------------------

  /**
   * The nodes of a line newest first, each presented at the level its distance from position 1
   * earns: detailed at position 1, summary at 2, brief at 3–4, origin at 5–8, the label beyond.
   */
  async getLineHistory(lineId: string): Promise<LineHistoryEntry[]> {
    return this.#service.lineHistory(parseInput(idSchema, lineId, 'lineId'));
  }

  /** The node at `position` (1 = newest) of a line, or undefined (`NOT_FOUND` for an unknown line). */
  async getNode(lineId: string, position: number): Promise<RadialNode | undefined> {
    const checkedLine = parseInput(idSchema, lineId, 'lineId');
    const checkedPosition = parseInput(positionSchema, position, 'position');
    const node = await this.#service.getNode(checkedLine, checkedPosition);
    if (!node) await this.#service.getLineOrThrow(checkedLine);
    return node;
  }

  /** The node, or `NOT_FOUND` naming `lineId` or `position`. */
  async getNodeOrThrow(lineId: string, position: number): Promise<RadialNode> {
    const checkedLine = parseInput(idSchema, lineId, 'lineId');
    return this.#service.getNodeOrThrow(checkedLine, parseInput(positionSchema, position, 'position'));
  }

  /** A node by its id, or undefined. */
  async getNodeById(nodeId: string): Promise<RadialNode | undefined> {
    return this.#service.getNodeById(parseInput(idSchema, nodeId, 'nodeId'));
  }

  /** The context text of the node at `position` at `level` (default 2). `NOT_FOUND` for no such node. */
  async loadNodeContext(lineId: string, position: number, level: DetailLevelInput = 2): Promise<string> {
    return (await this.openNode(lineId, position, level)).context;
  }

  /** The committed full context of a node, byte for byte. */
  async loadFullState(nodeId: string): Promise<string> {
    return this.#service.fullContext(parseInput(idSchema, nodeId, 'nodeId'));
  }

  /** The origin: profile brief and one entry per line, within the file's origin token budget. */
  async getOriginContext(): Promise<string> {
    return this.#service.originText();
  }

  /**
   * Closes the file when this memory was opened with {@link RadialMemory.open}. A radial memory
   * obtained from an agent belongs to its `MemoryDB`; closing it here is a `CONFLICT`.
   */
  async close(): Promise<void> {
    if (!this.#owned) {
      throw new HedgehopError(
        'CONFLICT',
        'close: this radial memory belongs to a MemoryDB; close that instead',
      );
    }
    await this.#owned.close();
  }
}
