import type { IndexLayer } from '../core/model/recall.js';

/**
 * Rows of the recall index and of the verbatim records behind its hits, as both engines read
 * them, and the plain functions that turn them into {@link DocRow}s and {@link ResolvedText}s.
 * No SQL here; numbers arrive as numbers (the PostgreSQL repository converts them first).
 */

/** One row of `search_docs`: where an indexed text came from. */
export interface DocRow {
  readonly rowid: number;
  readonly agentId: number | null;
  readonly layer: IndexLayer;
  readonly ref: string;
  readonly part: string;
  readonly lineId: string | null;
  readonly sceneId: string | null;
  readonly topicId: string | null;
  readonly createdAt: number;
  /**
   * For an archive row, when the engine keeps it in the index: the speaker its record names
   * (`''` for none; see `archiveIndexSpeaker`). `undefined`: not kept, read with the record.
   */
  readonly speaker?: string | undefined;
}

/** The verbatim text behind an index row, and where it sits. */
export interface ResolvedText {
  readonly rowid: number;
  /** The indexed text of this row, read back from the verbatim table. */
  readonly text: string;
  /** For archive rows: `user`, `agent`, `system`, `dream`; for others undefined. */
  readonly role?: string | undefined;
  /** For archive utterances: who spoke, when named. */
  readonly speaker?: string | undefined;
  /** For archive events: the event type. */
  readonly eventType?: string | undefined;
  /** For radial nodes: the node's position on its line (1 = newest). */
  readonly position?: number | undefined;
  /** For radial nodes: the task label; for knowledge nodes: the title; for topics: the name. */
  readonly title?: string | undefined;
  /** Shorter renderings of the record, when it has stored ones (radial summaries). */
  readonly levels?:
    | { readonly brief?: string; readonly summary?: string; readonly detailed?: string }
    | undefined;
}

/** A `search_docs` row. */
export interface RawDoc {
  rowid: number;
  agent_id: number | null;
  layer: IndexLayer;
  ref: string;
  part: string;
  line_id: string | null;
  scene_id: string | null;
  topic_id: string | null;
  created_at: number;
  bm25?: number;
}

export const toDoc = (row: RawDoc): DocRow => ({
  rowid: row.rowid,
  agentId: row.agent_id,
  layer: row.layer,
  ref: row.ref,
  part: row.part,
  lineId: row.line_id,
  sceneId: row.scene_id,
  topicId: row.topic_id,
  createdAt: row.created_at,
});

/** The columns of an archive record that recall shows. */
export interface ArchiveRow {
  content: string;
  role: string | null;
  speaker: string | null;
  kind: string;
  event_type: string | null;
}

export function toArchiveText(doc: DocRow, row: ArchiveRow | undefined): ResolvedText | undefined {
  if (!row) return undefined;
  return {
    rowid: doc.rowid,
    text: row.content,
    role: row.role ?? undefined,
    speaker: row.speaker ?? undefined,
    eventType: row.event_type ?? undefined,
  };
}

/** The columns of a radial node (and its position) that recall shows. */
export interface NodeTextRow {
  task_label: string;
  conversation_summary: string;
  full_context: string;
  s_origin: string | null;
  s_brief: string | null;
  s_summary: string | null;
  s_detailed: string | null;
  position: number;
}

/** A node's text for the index row's part (`label`, `full`, `conversation`, else its best summary). */
export function nodeText(doc: DocRow, row: NodeTextRow): ResolvedText {
  const summary = row.s_detailed ?? row.s_summary ?? row.s_brief ?? row.s_origin ?? row.conversation_summary;
  const text =
    doc.part === 'label'
      ? row.task_label
      : doc.part === 'full'
        ? row.full_context
        : doc.part === 'conversation'
          ? row.conversation_summary
          : summary;
  const levels: { brief?: string; summary?: string; detailed?: string } = {};
  if (row.s_brief !== null) levels.brief = row.s_brief;
  if (row.s_summary !== null) levels.summary = row.s_summary;
  if (row.s_detailed !== null) levels.detailed = row.s_detailed;
  return { rowid: doc.rowid, text, position: row.position, title: row.task_label, levels };
}

/** The columns of a topic that recall shows. */
export interface TopicTextRow {
  name: string | null;
  keywords: string;
  outcome: string | null;
}

export function topicText(doc: DocRow, row: TopicTextRow): ResolvedText {
  const keywords = parseStringArray(row.keywords);
  const text = [row.name ?? '', keywords.join(', '), row.outcome ?? '']
    .filter((s) => s.length > 0)
    .join(' — ');
  return { rowid: doc.rowid, text, title: row.name ?? undefined };
}

/** The columns of a knowledge node (and its graph's label) that recall shows. */
export interface KnowledgeTextRow {
  title: string;
  type: string;
  content: string;
  observations: string;
  graph: string;
}

export function knowledgeText(doc: DocRow, row: KnowledgeTextRow): ResolvedText {
  const text = knowledgeHitText(row.title, row.content, parseStringArray(row.observations));
  return { rowid: doc.rowid, text, title: `${row.graph} / ${row.title}` };
}

/** The text a knowledge node's hit shows (and is compared with the query): its title, then its content and observations. */
export function knowledgeHitText(title: string, content: string, observations: readonly string[]): string {
  const body = [content, ...observations].filter((s) => s.length > 0).join('\n');
  return body.length > 0 ? `${title}: ${body}` : title;
}

/** The columns of a profile that recall shows. */
export interface ProfileTextRow {
  name: string;
  role: string;
  personality: string;
  preferences: string;
}

export function profileText(doc: DocRow, row: ProfileTextRow): ResolvedText {
  const preferences = Object.entries(parseStringRecord(row.preferences))
    .map(([key, value]) => `${key}: ${value}`)
    .join('; ');
  const fields: Record<string, string> = {
    name: row.name,
    role: row.role,
    personality: row.personality,
    preferences,
  };
  const text =
    doc.part in fields
      ? (fields[doc.part] ?? '')
      : [row.name, row.role, row.personality, preferences].filter((s) => s.length > 0).join('. ');
  return { rowid: doc.rowid, text, title: row.name };
}

function parseStringArray(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function parseStringRecord(json: string): Record<string, string> {
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    );
  } catch {
    return {};
  }
}
