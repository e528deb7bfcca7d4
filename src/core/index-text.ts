/**
 * The text each record is found by in the recall index: one builder per layer, used by every
 * write path, by `reindex` and by dump import, so a rebuilt index holds exactly the text the
 * write put there. Pure functions of the record's fields (no engine, no model).
 */
import { SummaryTier, type SummaryLevelName } from './model/levels.js';
import type { ArchiveKind, Profile, UtteranceRole } from './model/conversation.js';
import type { FileChange, TaskRecord } from './model/radial.js';
import { indexTerms } from './topic-terms.js';
import { parseJsonOr } from './json.js';

/** The text the recall index holds for an archive record: who spoke (or what happened), then the content. */
export function archiveIndexText(record: {
  readonly kind: ArchiveKind;
  readonly role: UtteranceRole | undefined;
  readonly speaker: string | undefined;
  readonly eventType: string | undefined;
  readonly content: string;
}): string {
  const label = record.kind === 'event' ? record.eventType : (record.speaker ?? record.role);
  return label ? `${label}: ${record.content}` : record.content;
}

const SPEAKER_RE = /^\s*([\p{L}\p{N}][\p{L}\p{N} .'_-]{0,39}):\s/u;

/** The speaker label of a transcript line (`Caroline: …` gives `Caroline`), if any. */
export function speakerOf(text: string): string | undefined {
  return SPEAKER_RE.exec(text)?.[1];
}

/**
 * Who an archive record names as its speaker, as the recall index keeps it beside the record's
 * row (so that ranking by a named speaker reads no record): its speaker field, else the
 * `Name:` label its content opens with; `''` when it names none.
 */
export function archiveIndexSpeaker(record: {
  readonly speaker: string | undefined;
  readonly content: string;
}): string {
  return record.speaker ?? speakerOf(record.content) ?? '';
}

/**
 * The text the recall index holds for a topic: its name, words and outcome. The words are the
 * turn's index terms (every word of its utterances a keyword could have been, see
 * {@link indexTerms}), so a question finds a turn by any word it holds, not only by the at most
 * 15 keywords it shows; without utterances (a fused topic, whose reconstruction is indexed as its
 * own record), its keywords. The shown keywords are not indexed beside the terms: offline they are
 * the turn's own words and would only weigh some twice (LoCoMo multi-hop R@10 49.6–49.8 with
 * them, 50.0 without); a model's keywords naming what the turn never says are the price.
 */
export function topicIndexText(topic: {
  readonly name: string | undefined;
  readonly keywords: readonly string[];
  readonly outcome: string | undefined;
  /** The turn's utterances, in slot order, Dream's reconstructions excepted. */
  readonly utterances?: readonly string[] | undefined;
}): string {
  const terms = topic.utterances === undefined ? [] : indexTerms(topic.utterances);
  const words = terms.length > 0 ? terms : topic.keywords;
  return [topic.name ?? '', words.join(', '), topic.outcome ?? '']
    .filter((part) => part.length > 0)
    .join(' — ');
}

/** The fields of a knowledge node its index text is made from. */
interface KnowledgeIndexFields {
  readonly type: string;
  readonly content: string;
  readonly keywords: readonly string[];
  readonly observations: readonly string[];
}

/**
 * The text a knowledge node is found by in the recall index: everything a person might
 * search it for, one field per line.
 */
export function knowledgeIndexText(title: string, fields: KnowledgeIndexFields): string {
  return [title, fields.type, fields.keywords.join(', '), fields.content, ...fields.observations]
    .filter((part) => part.length > 0)
    .join('\n');
}

/** The profile's text in the recall index. */
export function profileIndexText(
  profile: Pick<Profile, 'name' | 'role' | 'personality' | 'preferences'>,
): string {
  const preferences = Object.entries(profile.preferences)
    .map(([key, value]) => `${key}: ${value}`)
    .join('; ');
  return [profile.name, profile.role, profile.personality, preferences]
    .filter((s) => s.length > 0)
    .join('. ');
}

/** Files listed in the summary source (the rest are counted). */
const SOURCE_FILES_MAX = 40;

/** Lines describing the files a task touched, as summaries and views show them. */
export function fileLines(files: readonly FileChange[], max = SOURCE_FILES_MAX): string[] {
  const lines = files
    .slice(0, max)
    .map((f) => `[${f.changeType}] ${f.path}${f.diffSummary.length > 0 ? `: ${f.diffSummary}` : ''}`);
  if (files.length > max) lines.push(`… and ${files.length - max} more files`);
  return lines;
}

/** One recall-index text of a node (`label`, `conversation`, `summary` or `full`). */
export interface NodeIndexText {
  readonly part: string;
  readonly text: string;
}

/** The `summary` index text: what the recall index resolves that part to (the most detailed level). */
export function summaryIndexText(summaries: Partial<Record<SummaryLevelName, string>>): string | undefined {
  return summaries.detailed ?? summaries.summary ?? summaries.brief ?? summaries.origin;
}

/**
 * The recall-index texts of a node: its label, its conversation summary with files and todos,
 * its summary and its verbatim full context. `summaries` is given only for summaries that may
 * hold words of their own (a model's or the caller's): the offline summariser's are extracts of
 * text already indexed, and indexing them again would only cost commit time.
 */
export function nodeIndexTexts(
  task: Omit<TaskRecord, 'lineId' | 'envSnapshot' | 'summaries'>,
  summaries: Partial<Record<SummaryLevelName, string>> | undefined,
): NodeIndexText[] {
  const conversation = [
    task.conversationSummary,
    ...fileLines(task.fileChanges),
    ...(task.todos.length > 0 ? [`TODOs: ${task.todos.join('; ')}`] : []),
  ]
    .filter((part) => part.trim().length > 0)
    .join('\n');
  const out: NodeIndexText[] = [
    { part: 'label', text: task.taskLabel },
    { part: 'conversation', text: conversation },
  ];
  const summary = summaries && summaryIndexText(summaries);
  if (summary !== undefined) out.push({ part: 'summary', text: summary });
  out.push({ part: 'full', text: task.fullContext });
  return out;
}

/** A node as stored (JSON columns as text), the fields its index texts are made from. */
export interface StoredNodeText {
  readonly taskLabel: string;
  readonly conversationSummary: string;
  readonly fullContext: string;
  /** `nodes.file_changes`, JSON. */
  readonly fileChanges: string;
  /** `nodes.todos`, JSON. */
  readonly todos: string;
  readonly summariesReady: boolean;
  readonly summariesTier: number;
  readonly summaries: Partial<Record<SummaryLevelName, string | undefined>>;
}

/**
 * The recall-index texts of a stored node, the same {@link nodeIndexTexts} its commit would
 * write: its summary counts once complete, unless the offline summariser wrote it (it only
 * repeats words the other parts hold). Used by `reindex` and by the index catch-up of nodes
 * committed before their index rows.
 */
export function storedNodeIndexTexts(node: StoredNodeText): NodeIndexText[] {
  const present: Partial<Record<SummaryLevelName, string>> = {};
  for (const [level, text] of Object.entries(node.summaries) as [SummaryLevelName, string | undefined][])
    if (text !== undefined) present[level] = text;
  return nodeIndexTexts(
    {
      taskLabel: node.taskLabel,
      fullContext: node.fullContext,
      conversationSummary: node.conversationSummary,
      fileChanges: parseJsonOr<FileChange[]>(node.fileChanges, []),
      todos: parseJsonOr<string[]>(node.todos, []),
    },
    node.summariesReady && node.summariesTier !== SummaryTier.offline && Object.keys(present).length > 0
      ? present
      : undefined,
  );
}
