/**
 * The text each record is found by in the recall index: one builder per layer, used by every
 * write path, by `reindex` and by dump import, so a rebuilt index holds exactly the text the
 * write put there. Pure functions of the record's fields (no engine, no model).
 */
import type { SummaryLevelName } from './model/levels.js';
import type { ArchiveKind, Profile, UtteranceRole } from './model/conversation.js';
import type { FileChange, TaskRecord } from './model/radial.js';

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

/** The text the recall index holds for a topic: its name, keywords and outcome. */
export function topicIndexText(topic: {
  readonly name: string | undefined;
  readonly keywords: readonly string[];
  readonly outcome: string | undefined;
}): string {
  return [topic.name ?? '', topic.keywords.join(', '), topic.outcome ?? '']
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
