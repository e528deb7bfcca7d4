/**
 * Conversation memory's public model: profiles, scenes, turns (topics), archive records and plan
 * steps; the limits (MemHop's, in bytes of UTF-8) and the zod schemas that enforce them at every
 * public call. Over-limit input is refused with `INVALID_INPUT` naming the limit; nothing is
 * ever truncated.
 */
import { z } from 'zod';
import { timeInput } from '../time-input.js';

/** Every size limit of conversation memory. */
export const CONVERSATION_LIMITS = {
  /** An event's `eventType` plus `content` (MemHop: 4 KiB). */
  eventBytes: 4096,
  /** One utterance's content (MemHop: 64 KiB). */
  utteranceBytes: 65_536,
  /** Names: scene, topic, speaker, profile name, preference key. */
  nameBytes: 256,
  /** Profile role, personality and each preference value. */
  profileTextBytes: 4096,
  /** Preferences a profile may hold. */
  preferenceCount: 256,
  /** A plan step's title. */
  planTitleBytes: 4096,
  /** A plan step's summary. */
  planSummaryBytes: 65_536,
  /** Records in one `appendArchiveMany` call. */
  batchRecords: 10_000,
  /** Records one `searchArchive` may return. */
  searchLimit: 10_000,
} as const;

/** UTF-8 size of `text`. */
const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The message of an over-limit refusal. */
function overLimit(bytes: number, limit: number, what: string): string {
  return `${bytes} bytes is over the ${what} limit of ${limit} bytes (refused; hedgehop never truncates)`;
}

/** A string of at most `limit` UTF-8 bytes. */
function boundedString(limit: number, what: string): z.ZodString {
  return z.string().check((ctx) => {
    const bytes = byteLength(ctx.value);
    if (bytes > limit)
      ctx.issues.push({ code: 'custom', message: overLimit(bytes, limit, what), input: ctx.value });
  });
}

/** A name: trimmed, not empty, at most 256 bytes. */
export const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .check((ctx) => {
    const bytes = byteLength(ctx.value);
    if (bytes > CONVERSATION_LIMITS.nameBytes) {
      ctx.issues.push({
        code: 'custom',
        message: overLimit(bytes, CONVERSATION_LIMITS.nameBytes, 'name'),
        input: ctx.value,
      });
    }
  });

/** Seconds since the epoch fall in this band for dates 2001..5138; refused as a unit mistake. */
const SECONDS_BAND: readonly [number, number] = [1e9, 1e11];
/** Values above this are microseconds (or nanoseconds), not milliseconds. */
const MICROSECONDS_FROM = 1e14;

/**
 * A timestamp: milliseconds since the epoch (the seconds and microseconds bands are refused),
 * or an ISO 8601 string or a `Date`, converted to milliseconds.
 */
export const timestampSchema = timeInput(
  z
    .number({ error: 'must be milliseconds since the epoch or an ISO 8601 date-time string' })
    .int('must be a whole number of milliseconds since the epoch')
    .positive('must be a positive number of milliseconds since the epoch')
    .check((ctx) => {
      const value = ctx.value;
      if (value >= SECONDS_BAND[0] && value < SECONDS_BAND[1]) {
        ctx.issues.push({
          code: 'custom',
          message: `${value} looks like seconds since the epoch; timestamps are milliseconds (multiply by 1000)`,
          input: value,
        });
      } else if (value > MICROSECONDS_FROM) {
        ctx.issues.push({
          code: 'custom',
          message: `${value} looks like microseconds since the epoch; timestamps are milliseconds (divide by 1000)`,
          input: value,
        });
      }
    }),
);

/** An id hedgehop issued (scene, topic, knowledge graph). */
export const idSchema = z.string().min(1, 'must not be empty').max(128, 'is not an id (too long)');

/** A positive 32-bit ordinal (slots, plan steps). */
const ordinalSchema = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be 1 or more')
  .max(2 ** 31 - 1);

/**
 * The records of conversation memory as the repositories return them (plain, readonly data),
 * and the mapping from SQLite rows. Public types of the conversation API are these.
 */

/** Who said an utterance. `dream` is written only by hedgehop (fused-topic reconstructions). */
export type UtteranceRole = 'user' | 'agent' | 'system' | 'dream';

/** An archive record is dialogue (`utterance`) or something that happened (`event`). */
export type ArchiveKind = 'utterance' | 'event';

/** What an archive record's content is. */
export type ContentType = 'text' | 'image' | 'video' | 'document' | 'audio' | 'code' | 'other';

/** A plan step's state; `done` and `failed` are terminal. */
export type PlanStatus = 'in_progress' | 'done' | 'failed';

export const UTTERANCE_ROLES = [
  'user',
  'agent',
  'system',
  'dream',
] as const satisfies readonly UtteranceRole[];

const CONTENT_TYPES: readonly ContentType[] = [
  'text',
  'image',
  'video',
  'document',
  'audio',
  'code',
  'other',
];

const PLAN_STATUSES: readonly PlanStatus[] = ['in_progress', 'done', 'failed'];

/** An emotion estimate: valence, arousal and dominance, each in 0..1 (0.5 is neutral valence). */
export interface ProfileEmotion {
  readonly valence: number;
  readonly arousal: number;
  readonly dominance: number;
}

/** MBTI axes in -1..1 (negative = I/N/T/J); `type` is derived from the axes, never stored apart. */
export interface MbtiAxes {
  readonly i_e: number;
  readonly n_s: number;
  readonly t_f: number;
  readonly j_p: number;
  readonly type: string;
}

/** An agent's profile: who it is (host-owned fields) and what Dream estimated (library-owned). */
export interface Profile {
  readonly name: string;
  readonly role: string;
  readonly personality: string;
  readonly preferences: Readonly<Record<string, string>>;
  /** Each in 0..1 (0.5 is neutral valence); all 0 until Dream has estimated them. */
  readonly emotion: ProfileEmotion;
  /** Axes in -1..1 (negative = I/N/T/J); `type` is derived from the axes on every read. */
  readonly mbti: MbtiAxes;
  readonly agentType: 'primary' | 'sub';
  /** 0 for a profile never written. */
  readonly updatedAt: number;
}

/** A scene: one conversation (session). */
export interface Scene {
  readonly id: string;
  readonly name: string;
  /** The knowledge graph this scene is anchored to, if any. */
  readonly knowledgeId: string | undefined;
  /** How many turns were opened in it (the last turn's number). */
  readonly turnSeq: number;
  readonly createdAt: number;
  readonly lastUsedAt: number;
}

/** The name a scene gets when its host names none (`session:<scene id>`). */
export function defaultSceneName(sceneId: string): string {
  return `session:${sceneId}`;
}

/** The scene's name as people should read it, or '' when its host named none. */
export function shownSceneName(scene: Pick<Scene, 'id' | 'name'>): string {
  return scene.name === defaultSceneName(scene.id) ? '' : scene.name;
}

/** A topic: one turn (open or closed), or a group Dream fused from adjacent turns. */
export interface Topic {
  readonly id: string;
  readonly sceneId: string;
  readonly kind: 'turn' | 'fused';
  readonly status: 'open' | 'closed';
  /** The turn's number in its scene (undefined for fused topics). */
  readonly turnSeq: number | undefined;
  readonly parentId: string | undefined;
  /** 1 = on the scene's surface; 2 = folded under a fused topic. */
  readonly depth: number;
  /** Host-given name (`renameTopic`); never derived. */
  readonly name: string | undefined;
  readonly keywords: readonly string[];
  /** True while the keywords still have to be distilled (a model failure, or not closed yet). */
  readonly keywordsPending: boolean;
  readonly outcome: string | undefined;
  /** Earliest utterance time of the turn (host clock), set when the turn closes. */
  readonly userTs: number | undefined;
  /** Latest utterance time of the turn (host clock), set when the turn closes. */
  readonly agentTs: number | undefined;
  readonly openedAt: number;
  readonly closedAt: number | undefined;
}

/** One verbatim archive record. */
export interface ArchiveRecord {
  /** Row id (the recall index's `ref` for layer `archive`). */
  readonly id: string;
  readonly topicId: string;
  readonly sceneId: string;
  /** Slot in the turn: 1 = input, 2 = output, 3.. = the rest. */
  readonly seq: number;
  readonly kind: ArchiveKind;
  /** Utterances only. */
  readonly role: UtteranceRole | undefined;
  /** Utterances only: who spoke, when the host named them (multi-speaker sessions). */
  readonly speaker: string | undefined;
  readonly contentType: ContentType;
  /** Events only. */
  readonly eventType: string | undefined;
  /** Events only: the plan step this event belongs to. */
  readonly planStep: number | undefined;
  readonly content: string;
  readonly createdAt: number;
}

/** One plan step as stored. */
export interface PlanNodeRow {
  readonly topicId: string;
  readonly seq: number;
  /** 0 = a root. */
  readonly parentSeq: number;
  readonly status: PlanStatus;
  readonly title: string;
  readonly summary: string;
  /** True when the summary was folded from the children by hedgehop (not written by the host). */
  readonly summaryFolded: boolean;
  readonly createdAt: number;
  readonly finishedAt: number | undefined;
  readonly updatedAt: number;
}

/** Where a record was written. */
export interface ArchiveSlot {
  /** Row id of the record. */
  readonly id: string;
  /** The turn (topic) it belongs to. */
  readonly topicId: string;
  readonly seq: number;
}

/** What `deleteScene` / `deleteTopic` removed. */
export interface DeleteReport {
  readonly sceneIds: readonly string[];
  readonly topicIds: readonly string[];
  readonly archiveRecords: number;
  readonly planNodes: number;
  readonly indexRows: number;
  readonly engramNodes: number;
  /** True when the agent's open turn was among what went (there is no open turn now). */
  readonly openTurnDeleted: boolean;
}

/** What `mergeScenes` did. */
export interface MergeReport {
  readonly sceneId: string;
  readonly mergedSceneIds: readonly string[];
  readonly topicsMoved: number;
  readonly indexRowsMoved: number;
  readonly engramNodesRemoved: number;
  /** The anchor the merged scene has now. */
  readonly knowledgeId: string | undefined;
  /** True when the open turn was in a merged scene; it stays open, now in the kept scene. */
  readonly openTurnMoved: boolean;
}

/** One plan step with its children, as `planState` shows it. */
export interface PlanNode {
  readonly seq: number;
  /** 0 for a root. */
  readonly parentSeq: number;
  /** The step's title, or its seq number as text when it has none. */
  readonly title: string;
  readonly status: PlanStatus;
  readonly summary: string;
  /** True when hedgehop folded the summary from the children (the host never wrote it). */
  readonly summaryFolded: boolean;
  readonly createdAt: number;
  readonly finishedAt: number | undefined;
  readonly updatedAt: number;
  readonly children: readonly PlanNode[];
}

const contentTypeSchema = z.enum(CONTENT_TYPES, {
  error: `must be one of ${CONTENT_TYPES.join(', ')}`,
});

const writableRole = z
  .enum(UTTERANCE_ROLES, { error: 'must be user, agent or system' })
  .refine((role) => role !== 'dream', 'dream is written only by hedgehop (Dream); use user, agent or system');

/**
 * One archive record for the open turn. Utterances (`role` defaults to `user`; `speaker` names
 * who spoke in a multi-speaker session) hold at most 64 KiB; an event needs an `eventType`,
 * may name the `planStep` it belongs to, and holds at most 4 KiB (type and content together).
 * `seq` names a slot to write (rewriting what it held); left out, the next free slot from 3 is
 * taken (1 and 2 are the turn's input and output, written by `update`).
 */
export const archiveInputSchema = z
  .strictObject({
    kind: z.enum(['utterance', 'event'], { error: 'must be utterance or event' }),
    role: writableRole.optional(),
    speaker: nameSchema.optional(),
    contentType: contentTypeSchema.default('text'),
    eventType: z.string().trim().min(1, 'must not be empty').optional(),
    planStep: ordinalSchema.optional(),
    content: z.string().min(1, 'must not be empty'),
    /** Default: now, by the memory's clock. */
    createdAt: timestampSchema.optional(),
    seq: ordinalSchema.optional(),
  })
  .check((ctx) => {
    const record = ctx.value;
    const issue = (path: string, message: string): void => {
      ctx.issues.push({ code: 'custom', path: [path], message, input: record });
    };
    if (record.kind === 'utterance') {
      if (record.eventType !== undefined) issue('eventType', 'only events have an eventType');
      if (record.planStep !== undefined) issue('planStep', 'only events belong to a plan step');
      const bytes = byteLength(record.content);
      if (bytes > CONVERSATION_LIMITS.utteranceBytes)
        issue('content', overLimit(bytes, CONVERSATION_LIMITS.utteranceBytes, 'utterance (64 KiB)'));
      return;
    }
    if (record.eventType === undefined) issue('eventType', 'an event needs an eventType (e.g. tool_call)');
    if (record.role !== undefined) issue('role', 'events carry no role (only utterances do)');
    if (record.speaker !== undefined) issue('speaker', 'events carry no speaker (only utterances do)');
    const bytes = byteLength(record.eventType ?? '') + byteLength(record.content);
    if (bytes > CONVERSATION_LIMITS.eventBytes)
      issue(
        'content',
        overLimit(bytes, CONVERSATION_LIMITS.eventBytes, 'event (4 KiB, eventType + content)'),
      );
  });

/** What `appendArchive` takes. */
export type ArchiveInput = z.input<typeof archiveInputSchema>;

/** How many records `searchArchive` returns when no `limit` is given (the newest, or the best). */
const DEFAULT_ARCHIVE_LIMIT = 100;

/**
 * Conditions of `searchArchive`; all optional, all combinable (they AND together). `planStep`
 * needs `topicId` and selects that step and every step under it.
 */
export const archiveQuerySchema = z
  .strictObject({
    text: boundedString(4096, 'query text').optional(),
    contains: z.string().min(1, 'must not be empty').max(4096, 'at most 4096 characters').optional(),
    ids: z
      .array(z.string().regex(/^[1-9]\d{0,15}$/u, 'is not an archive record id (a record\'s id, e.g. "42")'))
      .min(1, 'must name at least one record (leave ids out for all)')
      .max(CONVERSATION_LIMITS.searchLimit, `at most ${CONVERSATION_LIMITS.searchLimit} ids`)
      .optional(),
    from: timestampSchema.optional(),
    to: timestampSchema.optional(),
    topicId: idSchema.optional(),
    sceneId: idSchema.optional(),
    kind: z.enum(['utterance', 'event'], { error: 'must be utterance or event' }).optional(),
    planStep: ordinalSchema.optional(),
    contentType: contentTypeSchema.optional(),
    role: z.enum(UTTERANCE_ROLES, { error: 'must be user, agent, system or dream' }).optional(),
    speaker: nameSchema.optional(),
    limit: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be 1 or more')
      .max(CONVERSATION_LIMITS.searchLimit, `at most ${CONVERSATION_LIMITS.searchLimit}`)
      .default(DEFAULT_ARCHIVE_LIMIT),
  })
  .check((ctx) => {
    const query = ctx.value;
    const issue = (path: string, message: string): void => {
      ctx.issues.push({ code: 'custom', path: [path], message, input: query });
    };
    if (query.planStep !== undefined && query.topicId === undefined)
      issue('planStep', 'needs topicId (a step number means something only inside its turn)');
    if (query.from !== undefined && query.to !== undefined && query.from > query.to)
      issue('to', 'must not be before from');
  });

/** What `searchArchive` takes. */
export type ArchiveQuery = z.input<typeof archiveQuerySchema>;

export const planTitleSchema = boundedString(CONVERSATION_LIMITS.planTitleBytes, 'plan title');

/** What `planNodeUpdate` takes: the step, its status (every time), and optionally a new title or summary. */
export const planStepSchema = z.strictObject({
  seq: ordinalSchema,
  status: z.enum(PLAN_STATUSES, { error: `must be one of ${PLAN_STATUSES.join(', ')}` }),
  title: planTitleSchema.optional(),
  summary: boundedString(CONVERSATION_LIMITS.planSummaryBytes, 'plan summary').optional(),
});

/** A plan step change. */
export type PlanStepUpdate = z.input<typeof planStepSchema>;

/** The open turn's plan. */
export interface PlanState {
  readonly turnId: string;
  readonly roots: readonly PlanNode[];
  /** Steps whose status is `done` (all steps, not only roots). */
  readonly doneCount: number;
  readonly totalCount: number;
}

/**
 * What `search` takes. With nothing, it continues the agent's current scene (after a reopen:
 * the one used last), creating one when the agent has none. `newScene: true` starts a new scene
 * (optionally named and anchored to a knowledge graph); `sceneId` continues that scene.
 */
export const searchQuerySchema = z
  .strictObject({
    sceneId: idSchema.optional(),
    newScene: z.boolean().default(false),
    knowledgeId: idSchema.optional(),
    sceneName: nameSchema.optional(),
  })
  .check((ctx) => {
    if (ctx.value.newScene && ctx.value.sceneId !== undefined) {
      ctx.issues.push({
        code: 'custom',
        path: ['newScene'],
        message: 'cannot be combined with sceneId (a new scene has no id yet)',
        input: ctx.value,
      });
    }
  });

/** What `search` takes. */
export type SearchQuery = z.input<typeof searchQuerySchema>;

/** What `search` returns: who the agent is, where the conversation stands, and the turn it opened. */
export interface SearchResult {
  /** The open turn's id (the id its topic keeps once closed). */
  readonly turnId: string;
  /**
   * True when the turn was already open (a `search` before the last turn's `update`, e.g. after
   * a crash): the same turn is returned and nothing is written.
   */
  readonly resumed: boolean;
  readonly scene: Scene;
  readonly sceneCreated: boolean;
  readonly profile: Profile;
  /** {@link renderProfileBrief} of the profile. */
  readonly profileBrief: string;
  /** The scene's surface: closed depth-1 topics, oldest first (newest last). */
  readonly topics: readonly Topic[];
}

/** The event type of the record `update` writes for a turn's outcome. */
export const OUTCOME_EVENT = 'turn_outcome';

const utteranceText = boundedString(CONVERSATION_LIMITS.utteranceBytes, 'utterance (64 KiB)');

/**
 * What `update` takes: the turn's input (slot 1, role user) and output (slot 2, role agent),
 * its outcome (an event), all at `createdAt`. At least one of the three; empty ones are skipped.
 */
export const turnEndSchema = z
  .strictObject({
    input: utteranceText.optional(),
    output: utteranceText.optional(),
    outcome: z.string().optional(),
    /** Default: now, by the memory's clock. */
    createdAt: timestampSchema.optional(),
  })
  .check((ctx) => {
    const end = ctx.value;
    if (!end.input && !end.output && !end.outcome) {
      ctx.issues.push({
        code: 'custom',
        path: [],
        message: 'a turn closes with an input, an output or an outcome (all were empty)',
        input: end,
      });
    }
    const outcomeBytes = byteLength(OUTCOME_EVENT) + byteLength(end.outcome ?? '');
    if (outcomeBytes > CONVERSATION_LIMITS.eventBytes) {
      ctx.issues.push({
        code: 'custom',
        path: ['outcome'],
        message: overLimit(
          outcomeBytes,
          CONVERSATION_LIMITS.eventBytes,
          'event (4 KiB, eventType + content)',
        ),
        input: end,
      });
    }
  });

/** What `update` takes. */
export type TurnEnd = z.input<typeof turnEndSchema>;

/** What `update` returns. */
export interface TurnResult {
  /** The closed turn's topic. */
  readonly topic: Topic;
  /**
   * True when keyword distillation failed: the records and the topic are stored, the keywords
   * are pending and `fillPendingKeywords` (or Dream) fills them later.
   */
  readonly keywordsPending: boolean;
  /** Why distillation failed, when it did. */
  readonly keywordsError: string | undefined;
}

const profileText = boundedString(CONVERSATION_LIMITS.profileTextBytes, 'profile text');

/**
 * What `updateProfile` takes. Every field is optional and a field left out keeps its stored
 * value (MemHop overwrote the whole record, so a partial update lost the rest). An empty string
 * clears `role` or `personality`; a preference set to `null` is removed, the others are merged
 * key by key.
 */
export const profilePatchSchema = z.strictObject({
  name: nameSchema.optional(),
  role: profileText.optional(),
  personality: profileText.optional(),
  preferences: z
    .record(nameSchema, z.union([profileText, z.null()]))
    .check((ctx) => {
      const count = Object.keys(ctx.value).length;
      if (count > CONVERSATION_LIMITS.preferenceCount) {
        ctx.issues.push({
          code: 'custom',
          message: `${count} preferences is over the limit of ${CONVERSATION_LIMITS.preferenceCount} (refused)`,
          input: ctx.value,
        });
      }
    })
    .optional(),
});

/** A profile change: host-owned fields only; left-out fields keep their value. */
export type ProfileUpdate = z.input<typeof profilePatchSchema>;

/** A scene as `listScenes` shows it. */
export interface ListedScene extends Scene {
  /** True for the scene `search` continues. */
  readonly current: boolean;
}

/** One row of a scene's transcript. */
export interface SceneContextTopic extends Topic {
  /** The topic's utterances in slot order (a fused topic's own message is its `dream` reconstruction). */
  readonly messages: TopicMessages['messages'];
  /** Children among the listed rows (folded turns under a fused topic). */
  readonly childCount: number;
}

/** What `sceneContext` returns; a domain with no scene gives `scene: undefined` and no topics. */
export interface SceneContext {
  readonly scene: Scene | undefined;
  /** The open turn, when it is in this scene (it is not listed among `topics` until closed). */
  readonly openTurnId: string | undefined;
  readonly topics: readonly SceneContextTopic[];
}

export const scenePatchSchema = z
  .strictObject({
    name: nameSchema.optional(),
    knowledgeId: z.union([idSchema, z.null()]).optional(),
    force: z.boolean().optional(),
  })
  .refine((patch) => patch.name !== undefined || patch.knowledgeId !== undefined, {
    message: 'give a name or a knowledgeId (null clears the anchor)',
  });

/** What `updateScene` takes. `knowledgeId: null` clears the anchor; replacing one needs `force`. */
export type SceneUpdate = z.input<typeof scenePatchSchema>;

/** A topic with its utterances, for `sceneContext`. */
export interface TopicMessages {
  readonly topic: Topic;
  readonly messages: readonly {
    readonly seq: number;
    readonly role: UtteranceRole;
    readonly speaker: string | undefined;
    readonly contentType: string;
    readonly content: string;
    readonly createdAt: number;
  }[];
}
