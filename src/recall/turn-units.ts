/**
 * What the assembled context shows of the ranked records: one unit per turn (its question and
 * answer together, whichever of them matched, and a topic hit expanded to its turn's dialogue,
 * never its keyword list), one per radial node, knowledge node or profile; each under a compact
 * label (`[2024-03-14 14:25 · scene name · user]`).
 */
import { oneLine, truncateText } from '../core/text.js';
import type { ResolvedText } from '../store/recall-repo.js';
import type { Store } from '../store/store.js';
import type { SearchHit } from '../core/model/recall.js';

/** One ranked record with its verbatim text. */
export interface RankedItem {
  readonly hit: SearchHit;
  readonly resolved: ResolvedText;
}

/** One unit of the context: a turn, or a record that stands alone. */
export interface RecallUnit {
  /** `turn:<topic id>` or `<layer>:<ref>`. */
  readonly key: string;
  /** The ranked records of this unit, best first (the first one's score is the unit's). */
  readonly items: readonly RankedItem[];
  readonly score: number;
  /** The best `confidence` among its records: how much of the query the unit holds. */
  readonly confidence: number;
  readonly createdAt: number;
  readonly label: string;
  /** The unit's text, one line per utterance (`Speaker: text`). */
  readonly text: string;
  readonly levels?: ResolvedText['levels'];
}

/** Archive records of one turn read back at most (its utterances and a few events). */
const TURN_RECORDS = 12;
/** Code points of a scene name shown in a label. */
const SCENE_NAME_CHARS = 40;

/**
 * Groups ranked records into units in rank order (a unit ranks where its best record ranked).
 * Must run inside a read.
 */
export function toUnits(store: Store, agentId: number, items: readonly RankedItem[]): RecallUnit[] {
  const byKey = new Map<string, RankedItem[]>();
  for (const item of items) {
    const key = unitKey(item.hit);
    const list = byKey.get(key);
    if (list) list.push(item);
    else byKey.set(key, [item]);
  }
  const sceneNames = new Map<string, string>();
  const sceneName = (sceneId: string | null): string | undefined => {
    if (sceneId === null) return undefined;
    if (!sceneNames.has(sceneId)) {
      const name = store.conversation.scenes.getScene(agentId, sceneId)?.name ?? '';
      // A scene the host did not name is called after its id: no name worth a label.
      sceneNames.set(sceneId, name === `session:${sceneId}` ? '' : name);
    }
    return sceneNames.get(sceneId) || undefined;
  };
  return [...byKey.entries()].map(([key, members]) =>
    key.startsWith('turn:')
      ? turnUnit(store, key, members, sceneName(members[0]!.hit.sceneId))
      : recordUnit(key, members),
  );
}

function unitKey(hit: SearchHit): string {
  if ((hit.layer === 'archive' || hit.layer === 'topic') && hit.topicId !== null)
    return `turn:${hit.topicId}`;
  if (hit.layer === 'topic') return `turn:${hit.ref}`;
  return `${hit.layer}:${hit.ref}`;
}

const confidenceOf = (members: readonly RankedItem[]): number =>
  Math.max(...members.map((m) => m.hit.confidence));

/** A turn: its utterances in slot order (a fused topic: its reconstruction), then any matched events. */
function turnUnit(
  store: Store,
  key: string,
  members: readonly RankedItem[],
  sceneName: string | undefined,
): RecallUnit {
  const topicId = key.slice('turn:'.length);
  const matchedEvents = new Set(
    members
      .filter((m) => m.hit.layer === 'archive' && m.resolved.eventType !== undefined)
      .map((m) => m.hit.ref),
  );
  const docs = store.recall.topicRecords(topicId, TURN_RECORDS);
  const texts = store.recall.resolve(docs);
  const lines: string[] = [];
  const roles = new Set<string>();
  // The dialogue first (question, then answer), then the tool events that matched: shortened,
  // the unit keeps its question and answer and loses events first.
  const events: string[] = [];
  for (const doc of docs) {
    const resolved = texts.get(doc.rowid);
    if (!resolved) continue;
    if (resolved.eventType !== undefined) {
      if (matchedEvents.has(doc.ref)) events.push(recordLine(resolved));
      continue;
    }
    lines.push(recordLine(resolved));
    if (resolved.role !== undefined) roles.add(resolved.role);
  }
  lines.push(...events);
  // A turn whose records could not be read back shows what matched.
  if (lines.length === 0)
    for (const m of members) if (m.hit.layer === 'archive') lines.push(recordLine(m.resolved));
  const first = members[0]!;
  const createdAt = Math.max(...members.map((m) => m.hit.createdAt));
  const where: string[] = [formatTime(createdAt)];
  if (sceneName) where.push(truncateText(oneLine(sceneName), SCENE_NAME_CHARS));
  // One speaker only (a record without its answer yet): say who.
  if (roles.size === 1 && lines.length === 1 && !members.some((m) => m.resolved.speaker))
    where.push([...roles][0]!);
  return {
    key,
    items: members,
    score: first.hit.score,
    confidence: confidenceOf(members),
    createdAt,
    label: `[${where.join(' · ')}]`,
    text: lines.join('\n'),
  };
}

/**
 * `who: text` for an utterance (the speaker's name, else the role; nothing when the text already
 * opens with that name, or for a Dream reconstruction), `[event] text` for an event.
 */
function recordLine(resolved: ResolvedText): string {
  const text = resolved.text.trim();
  if (resolved.eventType !== undefined) return `[${resolved.eventType}] ${oneLine(text)}`;
  const who = resolved.speaker ?? (resolved.role === 'dream' ? undefined : resolved.role);
  if (who === undefined || text.startsWith(`${who}:`)) return text;
  return `${who}: ${text}`;
}

function recordUnit(key: string, members: readonly RankedItem[]): RecallUnit {
  const { hit, resolved } = members[0]!;
  return {
    key,
    items: members,
    score: hit.score,
    confidence: confidenceOf(members),
    createdAt: hit.createdAt,
    label: recordLabel(hit, resolved),
    text: hit.layer === 'archive' ? recordLine(resolved) : resolved.text,
    levels: resolved.levels,
  };
}

function formatTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** The label of a record that stands alone: when, and where it lives. */
export function recordLabel(hit: SearchHit, resolved: ResolvedText): string {
  const where: string[] = [];
  switch (hit.layer) {
    case 'radial':
      where.push(formatTime(hit.createdAt), `line ${hit.lineId ?? '?'} #${resolved.position ?? '?'}`);
      if (resolved.title) where.push(truncateText(oneLine(resolved.title), 80));
      break;
    case 'knowledge':
      where.push(`knowledge · ${truncateText(oneLine(resolved.title ?? hit.ref), 80)}`);
      break;
    case 'profile':
      where.push('profile');
      break;
    default:
      where.push(formatTime(hit.createdAt));
      if (resolved.role !== undefined && resolved.speaker === undefined) where.push(resolved.role);
  }
  return `[${where.join(' · ')}]`;
}
