/**
 * What the assembled context shows of the ranked records: one unit per turn (its question and
 * answer together, and a topic hit expanded to its turn's dialogue, never its keyword list) and
 * one per radial node, knowledge node or profile. A turn shows the records that hold a word of
 * the query whole and its other utterance shortened to its sentence nearest the query, so the
 * budget goes to what matched while the exchange stays readable.
 */
import type { SearchHit } from '../core/model/recall.js';
import type { ResolvedText } from '../store/recall-repo.js';
import type { StoreTx } from '../store/seam.js';
import { fitSpan, mostStemsHeld, speakerLabel, stemsHeld } from './text-fit.js';

/** One ranked record with its verbatim text. */
export interface RankedItem {
  readonly hit: SearchHit;
  readonly resolved: ResolvedText;
}

/** One record of a turn as the context may show it. */
export interface TurnLine {
  /** Who said it, shown before the text (`user: `, `[tool_result] `), or '' when the text names its speaker. */
  readonly who: string;
  /** The record's text. */
  readonly text: string;
  /** It holds a word of the query (or it is the turn's best-ranked record). */
  readonly matched: boolean;
  /** An utterance (input or output) rather than a tool event. */
  readonly utterance: boolean;
  /**
   * For an utterance of a user–agent dialogue: who said it by role (`user`, `agent`, …). Absent
   * for events and in a transcript whose utterances name their speakers (people talking to each
   * other: there the roles only say who spoke first).
   */
  readonly role?: string | undefined;
}

/** One unit of the context, ranked where its best record ranked. */
export interface RecallUnit {
  /** `turn:<topic id>` or `<layer>:<ref>`. */
  readonly key: string;
  /** The ranked records of this unit, best first. */
  readonly items: readonly RankedItem[];
  /** Its best record. */
  readonly first: RankedItem;
  /** For a turn: its records in order, utterances before events (absent for other layers). */
  readonly lines?: readonly TurnLine[];
}

/** Archive records of one turn read back at most (its two utterances and some events). */
const TURN_RECORDS = 16;

/** The unit a ranked record belongs to. */
export function unitKey(hit: SearchHit): string {
  if (hit.layer === 'archive' && hit.topicId !== null) return `turn:${hit.topicId}`;
  if (hit.layer === 'topic') return `turn:${hit.ref}`;
  return `${hit.layer}:${hit.ref}`;
}

/** Groups ranked records into units in rank order (a unit ranks where its best record ranked). */
export function groupUnits<T extends RankedItem>(items: readonly T[]): { key: string; items: T[] }[] {
  const byKey = new Map<string, T[]>();
  for (const item of items) {
    const key = unitKey(item.hit);
    const list = byKey.get(key);
    if (list) list.push(item);
    else byKey.set(key, [item]);
  }
  return [...byKey].map(([key, members]) => ({ key, items: members }));
}

/** The records of turns read back so far, by topic id (a turn with none has an empty list). */
export type TurnRecords = Map<string, readonly ResolvedText[]>;

/** The topic id of a turn unit's key (`turn:<topic id>`), else undefined. */
export function turnOf(key: string): string | undefined {
  return key.startsWith('turn:') ? key.slice('turn:'.length) : undefined;
}

/**
 * Reads back the records of the turns among `groups` that `into` does not hold yet (inside the
 * caller's read), all of them in one batched query and one resolve.
 */
export async function readTurns(
  tx: Pick<StoreTx, 'recall'>,
  groups: readonly { key: string }[],
  into: TurnRecords,
): Promise<void> {
  const wanted = groups.flatMap((g) => {
    const topic = turnOf(g.key);
    return topic === undefined || into.has(topic) ? [] : [topic];
  });
  if (wanted.length === 0) return;
  const docs = await tx.recall.topicsRecords(wanted, TURN_RECORDS);
  const texts = await tx.recall.resolve(docs);
  const byTopic = new Map<string, ResolvedText[]>(wanted.map((topic) => [topic, []]));
  for (const doc of docs) {
    const text = texts.get(doc.rowid);
    if (text !== undefined && doc.topicId !== null) byTopic.get(doc.topicId)?.push(text);
  }
  for (const [topic, records] of byTopic) into.set(topic, records);
}

/**
 * The units, each turn's lines worked out when first asked for: from its records read back
 * (`records`) for the first `expand` units, from what ranking found for the others. A turn
 * among the first `expand` whose records are not read yet calls `unread` and shows nothing
 * (the caller reads more and assembles again).
 */
export function turnUnits(
  groups: readonly { key: string; items: readonly RankedItem[] }[],
  expand: number,
  records: TurnRecords,
  shownWhole: (item: RankedItem) => boolean,
  unread: () => void,
  stems: ReadonlySet<string>,
): RecallUnit[] {
  return groups.map((group, index) => {
    const first = group.items[0] as RankedItem;
    const topic = turnOf(group.key);
    if (topic === undefined) return { key: group.key, items: group.items, first };
    let lines: readonly TurnLine[] | undefined;
    return {
      key: group.key,
      items: group.items,
      first,
      get lines(): readonly TurnLine[] {
        if (lines !== undefined) return lines;
        const read = index < expand ? records.get(topic) : memberRecords(group.items);
        if (read === undefined) {
          unread();
          return [];
        }
        lines = turnLines(read, group.items, shownWhole, stems);
        return lines;
      },
    };
  });
}

/** The archive records among a turn's ranked members, in the order they were written. */
function memberRecords(items: readonly RankedItem[]): ResolvedText[] {
  return items
    .filter((item) => item.hit.layer === 'archive')
    .map((item) => item.resolved)
    .sort((a, b) => a.rowid - b.rowid);
}

/**
 * A turn's lines: its utterances in the order spoken, then the tool events that were ranked
 * and hold a word of the query (the others are left out). An utterance is matched (shown whole)
 * when the ranking placed it where the budget can hold it (`shownWhole`); when none was, the
 * turn's best-ranked utterance holding a query word counts, else the utterance that holds most
 * of the query's words (the first on a tie).
 */
function turnLines(
  records: readonly ResolvedText[],
  members: readonly RankedItem[],
  shownWhole: (item: RankedItem) => boolean,
  stems: ReadonlySet<string>,
): TurnLine[] {
  const archive = members.filter((m) => m.hit.layer === 'archive');
  const ranked = new Map(archive.map((m) => [m.resolved.rowid, m.hit.confidence]));
  const whole = new Set(archive.filter(shownWhole).map((m) => m.resolved.rowid));
  const utterances: TurnLine[] = [];
  const events: TurnLine[] = [];
  // A transcript whose every utterance opens with its speaker's name (`Caroline: …`) needs no role.
  const spoken = records.filter((r) => r.eventType === undefined);
  const named = spoken.length > 0 && spoken.every((r) => speakerLabel(r.text.trim()) !== undefined);
  // A record repeating an earlier one of the turn word for word (an utterance appended while the
  // turn ran and passed again when it closed) is shown once, matched when either copy is.
  const seen = new Map<string, { list: TurnLine[]; at: number }>();
  for (const record of records) {
    const utterance = record.eventType === undefined;
    // Only the tool events that were ranked and hold a word of the query are shown.
    if (!utterance && !((ranked.get(record.rowid) ?? 0) > 0)) continue;
    const line: TurnLine = {
      ...lineOf(record, named),
      matched: utterance ? whole.has(record.rowid) : true,
      utterance,
      role: utterance && !named ? record.role : undefined,
    };
    const key = recordKey(record);
    const earlier = seen.get(key);
    if (earlier) {
      const held = earlier.list[earlier.at] as TurnLine;
      if (line.matched && !held.matched) earlier.list[earlier.at] = { ...held, matched: true };
      continue;
    }
    const list = line.utterance ? utterances : events;
    seen.set(key, { list, at: list.length });
    list.push(line);
  }
  if (!utterances.some((u) => u.matched) && events.length === 0) {
    // Its best-ranked utterance that holds a query word, else (a turn found by its topic row,
    // or an utterance ranked only as a neighbour) the one that holds most of the query's words:
    // the line that made the turn a hit, not an opening such as "Do it."
    const best = archive.find((m) => m.resolved.eventType === undefined && m.hit.confidence > 0);
    const found = best === undefined ? -1 : utterances.findIndex((u) => u.text === best.resolved.text.trim());
    const at =
      found >= 0
        ? found
        : mostStemsHeld(
            utterances.map((u) => u.text),
            stems,
          );
    if (utterances[at]) utterances[at] = { ...utterances[at], matched: true };
  }
  return [...utterances, ...events];
}

/**
 * What makes two records of a turn the same record for a reader: who wrote it (role, speaker or
 * event type) and its text, trimmed.
 */
export function recordKey(record: ResolvedText): string {
  return `${record.eventType ?? ''}\u0000${record.role ?? ''}\u0000${record.speaker ?? ''}\u0000${record.text.trim()}`;
}

/**
 * `who: text` for an utterance (its speaker, else its role; nothing when `named`, the texts
 * opening with their speakers' names, or for a Dream reconstruction), `[event type] text` for
 * an event.
 */
export function lineOf(resolved: ResolvedText, named: boolean): { who: string; text: string } {
  const text = resolved.text.trim();
  if (resolved.eventType !== undefined) return { who: `[${resolved.eventType}] `, text };
  if (resolved.speaker !== undefined) return { who: `${resolved.speaker}: `, text };
  if (named || resolved.role === undefined || resolved.role === 'dream') return { who: '', text };
  return { who: `${resolved.role}: `, text };
}

/** One rendering of a turn: its lines, and whether each of them is shown whole. */
export interface TurnForm {
  readonly lines: readonly string[];
  readonly whole: boolean;
}

/**
 * Renderings of a turn, richest first: its matched lines within `maxChars` and its other
 * utterance within `partnerChars` (each a run of whole sentences nearest the query), then
 * without the events, then the matched lines alone, then those within a brief's characters.
 */
export function turnForms(
  lines: readonly TurnLine[],
  stems: ReadonlySet<string>,
  maxChars: number,
  partnerChars: number,
  answerChars = partnerChars,
): TurnForm[] {
  const forms: TurnForm[] = [];
  // A turn whose shown utterance asks something, or is the user's request that the agent
  // answered, keeps its answer's sentences nearest the query.
  const answered = lines.some((line) => line.utterance && line.role === 'agent');
  const asked = lines.some(
    (line) =>
      line.matched && line.utterance && (line.text.includes('?') || (answered && line.role === 'user')),
  );
  const add = (
    chosen: readonly TurnLine[],
    matchedChars: number,
    otherChars: number,
    answer = false,
  ): void => {
    const shown = chosen.map((line) => ({
      line,
      text: line.matched
        ? fitSpan(line.text, matchedChars, stems)
        : answer && line.utterance
          ? fitSpan(line.text, Math.min(matchedChars, otherChars), stems)
          : partnerText(line.text, Math.min(matchedChars, otherChars), stems, asked),
    }));
    const kept = shown.filter(
      (s): s is { line: TurnLine; text: string } => s.text !== undefined && s.text.length > 0,
    );
    // A rendering shows what matched: one holding only the other utterance (a turn found by a
    // tool event that no longer fits) would print a line the query never reached.
    if (!kept.some((k) => k.line.matched)) return;
    const texts = kept.map((s) => `${s.line.who}${s.text}`);
    if (forms.some((f) => f.lines.join('\n') === texts.join('\n'))) return;
    const whole = kept.length === lines.length && kept.every((s) => s.text === s.line.text);
    forms.push({ lines: texts, whole });
  };
  // The answer to a question is what the reader came for, even when it repeats no word of the
  // query: its sentences nearest the query, else its opening, within `answerChars`.
  if (asked && answerChars > partnerChars) {
    add(lines, maxChars, answerChars, true);
    add(
      lines.filter((line) => line.utterance),
      maxChars,
      answerChars,
      true,
    );
  }
  add(lines, maxChars, partnerChars);
  add(
    lines.filter((line) => line.utterance),
    maxChars,
    partnerChars,
  );
  const matched = lines.filter((line) => line.matched);
  add(matched, maxChars, partnerChars);
  add(matched, Math.min(maxChars, BRIEF_LINE_CHARS), partnerChars);
  return forms;
}

/**
 * The other utterance of a turn: whole when it fits `maxChars`; else, when the shown one asks
 * a question (`asked`), its sentences nearest the query (the answer) if they hold a word of the
 * query; else nothing: a fragment of a reply that shares nothing with the question says little
 * the reader needs, and its tokens go to another record.
 */
function partnerText(
  text: string,
  maxChars: number,
  stems: ReadonlySet<string>,
  asked: boolean,
): string | undefined {
  const fitted = fitSpan(text, maxChars, stems);
  if (fitted === text) return fitted;
  if (!asked || fitted === undefined) return undefined;
  return stemsHeld(fitted, stems) > 0 ? fitted : undefined;
}

/** Code points of a matched line in a turn's last-resort rendering. */
const BRIEF_LINE_CHARS = 200;
