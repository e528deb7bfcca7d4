/**
 * Supersession, the final step of recall's ordering: a memory often holds a value and, later,
 * the statement that changed it ("moved to 09:40", "we're 10 now", "raised the timeout from
 * 300 s to 900 s"). A question about that subject wants the revision even when it carries no
 * time cue word and the older statement matches more of its words. Narrower than recency: a
 * later unit (a turn, or a record outside any turn) is lifted just above an earlier, better
 * ranked one only when it is about the same subject (it holds at least half of the query words
 * that the earlier one holds, two at least), what someone said there names a change and a value
 * in a sentence holding a word of the query ("moved to 09:40"), the later unit holds the attribute
 * the question asks for when the earlier one does ("which services build on media-base?" is not
 * answered by "media-base now ships ffmpeg 6.1.1"), and the question asks for a state rather than
 * about an event ("what did we decide", "why", "what happened" keep the ranking).
 * Only the order (and the final scores) change: what is recalled is what the ranking found.
 */
import { sentences } from '../core/text-analysis.js';
import { isStopWord, queryCandidates, stem, stemLookup, tokenize } from './query.js';
import type { RankedItem } from './turn-units.js';
import { unitKey } from './turn-units.js';

/** Words that say a statement revises an earlier one (English). */
const REVISION_RE =
  /\b(?:now|changed|switched|moved|raised|lowered|increased|decreased|reduced|bumped|extended|rescheduled|postponed|instead|no longer)\b/iu;
/** A value a revision sets (a number, a time, a date, an amount). */
const VALUE_RE = /\p{N}/u;

/** Whether a sentence says that a value changed: a word of change and a value. */
export function revises(sentence: string): boolean {
  return REVISION_RE.test(sentence) && VALUE_RE.test(sentence);
}

// A question about an event ("what did we decide", "why was it slow", "what happened") asks
// what was said then, not for a value that may have changed since. "Why" counts at the start of
// any clause ("how many workers, and why not more?"): the reason was given with the value then.
const EVENT_QUESTION_RE =
  /(?:^|[,;:]|\band\b)\s*(?:why|how come)\b|\b(?:did|was|were|had|happened|decided|caused)\b/iu;

/** Question words that name the asked attribute right after them ("which services", "how many workers"). */
const ASKING = new Set(['what', 'which', 'many', 'much']);
/** Words between a question word and the attribute it asks for ("what is the", "what's my"). */
const BEFORE_ATTRIBUTE = new Set([
  'is',
  'are',
  'was',
  'were',
  's',
  'the',
  'a',
  'an',
  'our',
  'my',
  'your',
  'his',
  'her',
  'their',
  'its',
  'this',
  'that',
  'these',
  'those',
]);
/** Words of the asked attribute kept at most ("date range", "visibility timeout"). */
const ATTRIBUTE_WORDS = 2;

/**
 * The stems of the attribute a question asks for: the words right after a question word
 * ("which services build on X?" gives `servic`, "what is the visibility timeout …" gives
 * `visibl`, `timeout`), up to the next word that is not a content word. Empty when the question
 * names none ("what can't Mom eat?").
 */
export function askedAttribute(query: string): Set<string> {
  const tokens = tokenize(query);
  const out = new Set<string>();
  tokens.forEach((token, index) => {
    if (!ASKING.has(token)) return;
    let i = index + 1;
    while (i < tokens.length && BEFORE_ATTRIBUTE.has(tokens[i] as string)) i++;
    for (let taken = 0; taken < ATTRIBUTE_WORDS && i < tokens.length; taken++, i++) {
      const word = tokens[i] as string;
      if (isStopWord(word)) break;
      out.add(stem(word));
    }
  });
  return out;
}

/** Whether a question asks for a state (a value that a later statement may have revised). */
export function asksForState(query: string): boolean {
  return !EVENT_QUESTION_RE.test(query);
}

/** Tuning of {@link applySupersession}. */
export interface SupersessionWeights {
  /** A revision is lifted over an earlier unit only when it scores at least this share of it. */
  readonly minShare: number;
  /** Share of the earlier unit's query words the revision must hold too. */
  readonly subjectShare: number;
  /** Units (best first) looked at: a revision ranked below these is not lifted. */
  readonly window: number;
}

export const DEFAULT_SUPERSESSION_WEIGHTS: SupersessionWeights = {
  minShare: 0.5,
  subjectShare: 0.5,
  window: 12,
};

interface Unit<T> {
  readonly items: T[];
  readonly best: number;
  readonly words: Set<string>;
  createdAt: number;
  revision: boolean;
  lift: number;
}

/**
 * The items (best first, with their final scores) after supersession: a unit within the first
 * `window` that revises an earlier unit ranked above it (same subject, later in time, said to
 * change) moves just above the best such unit, its items keeping their order within it.
 */
export function applySupersession<T extends RankedItem & { readonly score: number }>(
  items: readonly T[],
  query: string,
  weights: SupersessionWeights = DEFAULT_SUPERSESSION_WEIGHTS,
): T[] {
  if (items.length < 2 || !asksForState(query) || !mayRevise(items, weights.window)) return [...items];
  const queryStems = new Set(queryCandidates(query).map((term) => term.stem));
  if (queryStems.size === 0) return [...items];
  const lookup = stemLookup(queryStems);
  const units = new Map<string, Unit<T>>();
  for (const item of items) {
    const key = unitKey(item.hit);
    let unit = units.get(key);
    if (unit === undefined) {
      if (units.size >= weights.window) continue;
      unit = { items: [], best: item.score, createdAt: 0, words: new Set(), revision: false, lift: 0 };
      units.set(key, unit);
    }
    unit.items.push(item);
    // Only what someone said revises: not a topic's keyword list, nor a tool's output.
    const said = item.hit.layer === 'archive' && item.resolved.eventType === undefined;
    for (const sentence of sentences(item.resolved.text)) {
      let matched = false;
      for (const word of tokenize(sentence.text)) {
        const s = lookup(word);
        if (s === undefined) continue;
        unit.words.add(s);
        matched = true;
      }
      unit.revision ||= said && matched && revises(sentence.text);
    }
    unit.createdAt = Math.max(unit.createdAt, item.hit.createdAt);
  }
  const ranked = [...units.values()];
  const asked = askedAttribute(query);
  let moved = false;
  ranked.forEach((later, index) => {
    if (!later.revision) return;
    const superseded = ranked
      .slice(0, index)
      .filter(
        (earlier) =>
          earlier.createdAt < later.createdAt &&
          later.best >= weights.minShare * earlier.best &&
          sameSubject(earlier.words, later.words, weights.subjectShare) &&
          sameAttribute(earlier.words, later.words, asked),
      );
    if (superseded.length === 0) return;
    const target = Math.max(...superseded.map((earlier) => earlier.best + earlier.lift));
    if (target <= later.best) return;
    later.lift = target - later.best + liftEpsilon(target);
    moved = true;
  });
  if (!moved) return [...items];
  const liftOf = new Map<T, number>();
  for (const unit of ranked) for (const item of unit.items) liftOf.set(item, unit.lift);
  return items
    .map((item, order) => ({ item, order, score: item.score + (liftOf.get(item) ?? 0) }))
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .map(({ item, score }) => (score === item.score ? item : { ...item, score }));
}

/**
 * Whether any record within the first `window` units could revise: something said (not a tool
 * event, nor another layer's text) whose text holds a word of change and a value. A sentence that
 * {@link revises} is part of its record's text, so when no whole text passes, no unit is a
 * revision and nothing moves: the words of every record need not be read (most recalls).
 */
function mayRevise(items: readonly RankedItem[], window: number): boolean {
  const units = new Set<string>();
  for (const item of items) {
    const key = unitKey(item.hit);
    if (!units.has(key)) {
      if (units.size >= window) continue;
      units.add(key);
    }
    const said = item.hit.layer === 'archive' && item.resolved.eventType === undefined;
    if (said && revises(item.resolved.text)) return true;
  }
  return false;
}

/** The later unit holds at least `share` of the earlier one's query words (and two, or all when it holds one). */
function sameSubject(earlier: ReadonlySet<string>, later: ReadonlySet<string>, share: number): boolean {
  let shared = 0;
  for (const word of earlier) if (later.has(word)) shared++;
  return shared >= Math.min(2, earlier.size) && shared >= share * earlier.size;
}

/**
 * When the question names the attribute it asks for, the later unit holds each of its words that
 * the earlier one holds: "media-base now ships ffmpeg 6.1.1" revises media-base, but not which
 * services build on it.
 */
function sameAttribute(
  earlier: ReadonlySet<string>,
  later: ReadonlySet<string>,
  asked: ReadonlySet<string>,
): boolean {
  for (const word of asked) if (earlier.has(word) && !later.has(word)) return false;
  return true;
}

/** How far above the superseded unit a revision lands (a hair: it must not pass anything else). */
function liftEpsilon(score: number): number {
  return Math.max(1e-9, Math.abs(score) * 1e-6);
}
