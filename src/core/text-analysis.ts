/**
 * Language analysis shared by the offline summariser: word and sentence segmentation with
 * `Intl.Segmenter`, Porter stemming (`stemmer`) and stop-word lists (`stopword`). Internal.
 */
import { createRequire } from 'node:module';
import { stemmer } from 'stemmer';
import type * as Stopword from 'stopword';

// `stopword` ships a CommonJS build of all its 62 lists; requiring it on first use costs a
// fraction of importing it as ESM at start-up, which every CLI call would pay.
let stopWords: ReadonlySet<string> | undefined;
function stopWordSet(): ReadonlySet<string> {
  if (!stopWords) {
    const lists = createRequire(import.meta.url)('stopword') as typeof Stopword;
    stopWords = new Set([...lists.eng, ...lists.zho, ...lists.jpn, ...lists.kor]);
  }
  return stopWords;
}

const LATIN_RE = /^[\p{Script=Latin}\d_'’.-]+$/u;
const CJK_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const LETTER_OR_DIGIT_RE = /[\p{L}\p{N}]/u;
const DIGIT_RE = /\p{N}/u;

/** One word of a text. */
export interface Token {
  /** The word as written. */
  readonly surface: string;
  /** Lower-cased, NFKC-normalised and (for Latin script) stemmed: what matching compares. */
  readonly term: string;
  /** UTF-16 offset of the word in the analysed text. */
  readonly index: number;
  /** True for stop words and one-letter Latin words (no content of their own). */
  readonly stop: boolean;
  readonly cjk: boolean;
}

const segmenters = new Map<string, Intl.Segmenter>();
function segmenter(granularity: 'word' | 'sentence' | 'grapheme', locale = 'en'): Intl.Segmenter {
  const key = `${granularity}:${locale}`;
  let found = segmenters.get(key);
  if (!found) {
    found = new Intl.Segmenter(locale, { granularity });
    segmenters.set(key, found);
  }
  return found;
}

/** True when the text holds Chinese, Japanese or Korean script. */
export function isCjk(text: string): boolean {
  return CJK_RE.test(text);
}

/** Words whose term and stop-word test are remembered (a bounded cache, emptied when full). */
const WORD_CACHE_SIZE = 50_000;
const TERMS = new Map<string, string>();
const STOPS = new Map<string, boolean>();

/** `compute(word)`, remembered in `cache`: most words of a text recur, within it and across calls. */
function remembered<T>(cache: Map<string, T>, word: string, compute: (word: string) => T): T {
  let value = cache.get(word);
  if (value === undefined) {
    if (cache.size >= WORD_CACHE_SIZE) cache.clear();
    value = compute(word);
    cache.set(word, value);
  }
  return value;
}

/** Normalises a word for comparison: NFKC, lower case, Porter stem for Latin words. */
export function termOf(word: string): string {
  return remembered(TERMS, word, computeTerm);
}

function computeTerm(word: string): string {
  const lower = word
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[’']s$/u, '');
  if (LATIN_RE.test(lower) && /\p{L}/u.test(lower) && lower.length > 2) return stemmer(lower);
  return lower;
}

/** True for stop words (any of the English, Chinese, Japanese and Korean lists). */
export function isStopWord(word: string): boolean {
  return remembered(STOPS, word, (w) => stopWordSet().has(w.normalize('NFKC').toLowerCase()));
}

// A word: letters, marks, digits and underscores, joined by inner apostrophes or dots
// (`it's`, `3.14`, `v2.1`). Scripts written without spaces go to ICU's dictionary segmenter.
const WORD_RE = /[\p{L}\p{M}\p{N}_]+(?:['’.][\p{L}\p{M}\p{N}_]+)*/gu;
const UNSPACED_RE =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/**
 * The words of `text`, in order. Words are found with a regular expression, twenty times
 * faster than V8's `Intl.Segmenter`; runs of CJK (and Thai, Lao, Khmer, Myanmar) text are split
 * into words by the segmenter's dictionary.
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(WORD_RE)) {
    if (!UNSPACED_RE.test(match[0])) {
      tokens.push(makeToken(match[0], match.index));
      continue;
    }
    for (const [offset, piece] of pieces(match[0], WORD_PIECE, SPACE_END_RE)) {
      for (const part of segmenter('word').segment(piece)) {
        if (part.isWordLike && LETTER_OR_DIGIT_RE.test(part.segment)) {
          tokens.push(makeToken(part.segment, match.index + offset + part.index));
        }
      }
    }
  }
  return tokens;
}

function makeToken(surface: string, index: number): Token {
  const cjk = isCjk(surface);
  const short = !cjk && !DIGIT_RE.test(surface) && [...surface].length < 2;
  return { surface, term: termOf(surface), index, stop: short || isStopWord(surface), cjk };
}

/**
 * V8's segmenters get slower per step as the string grows (stepping word by word through 80 000
 * characters takes over a second), so long texts are segmented in pieces: about `size` UTF-16
 * units each, cut after the last `boundary` match in the second half of the window (else after
 * whitespace, else anywhere but inside a surrogate pair).
 */
function* pieces(text: string, size: number, boundary: RegExp): Generator<[number, string]> {
  let start = 0;
  while (text.length - start > size) {
    const window = text.slice(start, start + size);
    const half = Math.floor(size / 2);
    let cut = lastMatchEnd(window, boundary, half) ?? lastMatchEnd(window, SPACE_END_RE, half) ?? size;
    if (cut === size && (window.charCodeAt(size - 1) & 0xfc00) === 0xd800) cut--;
    yield [start, window.slice(0, cut)];
    start += cut;
  }
  if (start < text.length) yield [start, text.slice(start)];
}

function lastMatchEnd(window: string, re: RegExp, from: number): number | undefined {
  const at = window.slice(from).search(re);
  return at < 0 ? undefined : from + at + 1;
}

const WORD_PIECE = 512;
const SENTENCE_PIECE = 2048;
const SPACE_END_RE = /\s\S*$/u;
const SENTENCE_END_RE = /[.!?。！？\n][^.!?。！？\n]*$/u;

/** Distinct content terms of `text` (stop words removed, stemmed). */
export function contentTerms(text: string): Set<string> {
  const terms = new Set<string>();
  for (const token of tokenize(text)) if (!token.stop) terms.add(token.term);
  return terms;
}

/** One sentence (or line) of a text, with its offset. */
interface Sentence {
  readonly text: string;
  readonly index: number;
  /** True when a line break separates it from the sentence before. */
  readonly newLine: boolean;
}

// ICU only ends a sentence before a capital; chat text often goes on in lower case. A full
// stop after a word of four letters or more (not an abbreviation such as "e.g."), or any
// "!" or "?", followed by a lower-case word, ends a sentence too.
const LOWER_CASE_BREAK_RE = /(?:(?<=\p{L}{4})\.|[!?])\s+(?=\p{Ll})/gu;

/** Splits `text` into trimmed sentences; ICU also breaks at every line end. */
export function sentences(text: string): Sentence[] {
  const out: Sentence[] = [];
  let newLine = false;
  for (const [offset, piece] of pieces(text, SENTENCE_PIECE, SENTENCE_END_RE)) {
    for (const part of segmenter('sentence').segment(piece)) {
      const at = offset + part.index;
      let start = 0;
      for (const end of [...part.segment.matchAll(LOWER_CASE_BREAK_RE)].map((m) => m.index + 1)) {
        newLine = pushSentence(out, part.segment.slice(start, end), at + start, newLine);
        start = end;
      }
      newLine = pushSentence(out, part.segment.slice(start), at + start, newLine);
    }
  }
  return out;
}

/** Adds a trimmed sentence; returns whether the next one starts on a new line. */
function pushSentence(out: Sentence[], segment: string, index: number, newLine: boolean): boolean {
  const trimmed = segment.trim();
  if (trimmed.length > 0) {
    out.push({ text: trimmed, index: index + segment.indexOf(trimmed), newLine });
    newLine = false;
  }
  return newLine || /[\n\r\u2028\u2029]/u.test(segment);
}

/** Splits a long sentence into clauses at `; : ,` (and their full-width forms), keeping the marks. */
export function clauses(sentence: Sentence): Sentence[] {
  const out: Sentence[] = [];
  const re = /[^;:,，；：、]+[;:,，；：、]*/gu;
  for (const match of sentence.text.matchAll(re)) {
    const trimmed = match[0].trim();
    if (trimmed.length === 0) continue;
    const index = sentence.index + match.index + match[0].indexOf(trimmed);
    out.push({ text: trimmed, index, newLine: out.length === 0 ? sentence.newLine : false });
  }
  return out.length > 0 ? out : [sentence];
}

/** Grapheme clusters of `text` (so an emoji sequence or a surrogate pair is never split). */
export function graphemes(text: string): Iterable<Intl.SegmentData> {
  return segmenter('grapheme').segment(text);
}

/** Word segments (word-like or not) of `text`, for cutting at word boundaries. Keep `text` short (see `pieces`). */
export function wordSegments(text: string): Iterable<Intl.SegmentData> {
  return segmenter('word').segment(text);
}

/** True when `[start, end)` overlaps one of the `covered` spans. */
export function overlaps(covered: readonly [number, number][], start: number, end: number): boolean {
  return covered.some(([a, b]) => start < b && end > a);
}

export interface CasingEvidence {
  /** Words written with a capital somewhere other than at a sentence start: names. */
  readonly capitalised: ReadonlySet<string>;
  /** Words also written in lower case: a capital at a sentence start is only grammar. */
  readonly lower: ReadonlySet<string>;
}

/** Which words of some texts are written as names (see {@link keepsCase}). */
export function casingEvidence(split: readonly (readonly Token[])[]): CasingEvidence {
  const capitalised = new Set<string>();
  const lower = new Set<string>();
  for (const tokens of split) {
    for (const [i, token] of tokens.entries()) {
      if (i > 0 && nameLike(token, false)) capitalised.add(token.surface);
      if (token.surface === token.surface.toLowerCase()) lower.add(token.surface);
    }
  }
  return { capitalised, lower };
}

/**
 * A word keeps its capitals when it looks like a name, or when nothing shows it is an ordinary
 * word: written in lower case elsewhere, or opening a sentence with the ending of an abstract
 * noun that names rarely have (`Migration`, `Deployment`, `Readiness`).
 */
export function keepsCase(token: Token, sentenceStart: boolean, casing: CasingEvidence): boolean {
  if (nameLike(token, sentenceStart) || casing.capitalised.has(token.surface)) return true;
  return (
    sentenceStart && !casing.lower.has(token.surface.toLowerCase()) && !NOUN_ENDING_RE.test(token.surface)
  );
}

/** A capitalised word with the ending of an abstract noun: `-tion`, `-sion`, `-ment`, `-ness`, `-ism`. */
const NOUN_ENDING_RE = /^\p{Lu}\p{Ll}{2,}(?:tion|sion|ment|ness|ism)s?$/u;

/** Capitalised mid-sentence, all capitals, mixed case (`PostgreSQL`) or with digits (`S3`). */
export function nameLike(token: Token, sentenceStart: boolean): boolean {
  if (token.cjk) return false;
  const shape = remembered(NAME_SHAPES, token.surface, nameShape);
  return shape === NameShape.always || (shape === NameShape.midSentence && !sentenceStart);
}

/** How a word's spelling marks it as a name: never, always, or when it does not open a sentence. */
const NameShape = { never: 0, always: 1, midSentence: 2 } as const;
type NameShape = (typeof NameShape)[keyof typeof NameShape];
const NAME_SHAPES = new Map<string, NameShape>();

function nameShape(s: string): NameShape {
  if (!/\p{L}/u.test(s)) return NameShape.never;
  if (/\p{N}/u.test(s) || /^\p{Lu}{2,}$/u.test(s) || /\p{Ll}\p{Lu}/u.test(s)) return NameShape.always;
  return /^\p{Lu}/u.test(s) ? NameShape.midSentence : NameShape.never;
}

const MONTH =
  '(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)';
const UNIT =
  '(?:ms|s|sec|seconds?|min|minutes?|h|hours?|days?|weeks?|months?|years?|kb|mb|gb|tb|km|kg|g|m|cm|mm|mi|lbs?|usd|eur|gbp|k|x|lu|db|rps|qps)';
/**
 * Patterned facts kept whole as one term (URLs, e-mail addresses, dates, times, amounts,
 * percentages, versions, quantities with units, paths and file names, `#123` references): the
 * keyword extractor and the topic index terms find them the same way.
 */
export const FACT_PATTERNS: readonly RegExp[] = [
  /\bhttps?:\/\/[^\s<>"')\]]+/giu,
  /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/gu,
  /\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b/gu,
  /\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/gu,
  new RegExp(`\\b${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:,?\\s+\\d{4})?\\b`, 'giu'),
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}(?:\\s+\\d{4})?\\b`, 'giu'),
  new RegExp(`\\b${MONTH}\\s+\\d{4}\\b`, 'giu'),
  /\d{2,4}年\d{1,2}月(?:\d{1,2}[日号])?|\d{1,2}月\d{1,2}[日号]/gu,
  /\b\d{1,2}:\d{2}(?:\s?[ap]\.?m\.?)?(?=\W|$)|\b\d{1,2}\s?[ap]m\b/giu,
  /[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|bn|million|billion)\b)?/giu,
  /\b\d+(?:\.\d+)?\s?%/gu,
  /\bv?\d+(?:\.\d+){1,3}\b/gu,
  new RegExp(`\\b\\d+(?:[.,]\\d+)?\\s?${UNIT}\\b`, 'giu'),
  /(?:\.{0,2}\/)?\b[\w-]+(?:\/[\w.-]+)+|\b[\w-]+\.(?:ts|js|tsx|jsx|py|go|rs|java|json|md|yml|yaml|toml|sql|sh|css|html|txt|csv|wav|mp3|mp4|png|jpg|pdf|log)\b/gu,
  // References such as `PR #733`, `issue #12`, `#881`.
  /(?:\b(?:\p{Lu}{2,5}|[Ii]ssues?|[Tt]ickets?|[Bb]ugs?|[Pp]ull requests?)\s)?#\d+\b/gu,
];

/**
 * The patterned facts of `text` ({@link FACT_PATTERNS}, trailing `.,;:` left out) that hold a
 * letter or digit and overlap no span in `covered`; each one found is added to `covered`, so a
 * later pattern and the words inside it skip it.
 */
export function factSpans(text: string, covered: [number, number][]): { text: string; index: number }[] {
  const out: { text: string; index: number }[] = [];
  for (const pattern of FACT_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const value = match[0].replace(/[.,;:]+$/u, '');
      const end = start + value.length;
      if (!LETTER_OR_DIGIT_RE.test(value) || overlaps(covered, start, end)) continue;
      covered.push([start, end]);
      out.push({ text: value, index: start });
    }
  }
  return out;
}

/** What a reader of candidate spans ({@link nameSpans}, {@link pairSpans}) counts as a word of one. */
export interface SpanRules<T extends Token> {
  /** A word with content of its own. */
  readonly isContent: (token: T) => boolean;
  /** Two words of one clause written next to each other (`text` is what the tokens index). */
  readonly adjacent: (text: string, a: T, b: T) => boolean;
  /** A capitalised word that may be part of a name (`first`: it opens its sentence). */
  readonly nameWord: (token: T, first: boolean) => boolean;
  /** Two adjacent words that make a phrase of one script (CJK words a compound). */
  readonly pairable: (a: T, b: T) => boolean;
}

/** A candidate keyword made of adjacent words: its text as written and the words it holds. */
export interface WordSpan<T extends Token> {
  readonly text: string;
  readonly index: number;
  readonly tokens: readonly T[];
}

/**
 * Runs of two or more adjacent name-like words (`New York`, `Alice Smith`): capitalised words
 * that the rules take as name words and that are names by their shape ({@link nameLike}), or
 * open the sentence (`first`).
 */
export function nameSpans<T extends Token>(
  text: string,
  tokens: readonly T[],
  first: T | undefined,
  rules: SpanRules<T>,
): WordSpan<T>[] {
  const out: WordSpan<T>[] = [];
  let run: T[] = [];
  const flush = (): void => {
    if (run.length > 1) {
      const start = run[0]!.index;
      const last = run[run.length - 1]!;
      out.push({ text: text.slice(start, last.index + last.surface.length), index: start, tokens: run });
    }
    run = [];
  };
  for (const token of tokens) {
    const opens = token === first;
    const capital = /^\p{Lu}/u.test(token.surface) && rules.nameWord(token, opens);
    const previous = run[run.length - 1];
    if (capital && (opens || nameLike(token, false))) {
      if (previous && !rules.adjacent(text, previous, token)) flush();
      run.push(token);
    } else flush();
  }
  flush();
  return out;
}

/**
 * Adjacent word pairs that make a phrase (`token refresh`), in text order, and in their place
 * for CJK words the whole compound of up to four adjacent content words (`数据库迁移`), once, from
 * its first word.
 */
export function pairSpans<T extends Token>(
  text: string,
  tokens: readonly T[],
  rules: SpanRules<T>,
): WordSpan<T>[] {
  const out: WordSpan<T>[] = [];
  for (let i = 0; i + 1 < tokens.length; i++) {
    const a = tokens[i]!;
    const b = tokens[i + 1]!;
    if (!rules.adjacent(text, a, b) || !rules.pairable(a, b)) continue;
    if (a.cjk) {
      const compound = cjkCompound(text, tokens, i, rules);
      if (compound) out.push(compound);
      continue;
    }
    out.push({ text: text.slice(a.index, b.index + b.surface.length), index: a.index, tokens: [a, b] });
  }
  return out;
}

function cjkCompound<T extends Token>(
  text: string,
  tokens: readonly T[],
  start: number,
  rules: SpanRules<T>,
): WordSpan<T> | undefined {
  if (start > 0) {
    const before = tokens[start - 1]!;
    if (before.cjk && rules.isContent(before) && rules.adjacent(text, before, tokens[start]!))
      return undefined;
  }
  let end = start;
  while (end + 1 < tokens.length && end - start < 3) {
    const next = tokens[end + 1]!;
    if (!next.cjk || !rules.isContent(next) || !rules.adjacent(text, tokens[end]!, next)) break;
    end++;
  }
  const last = tokens[end]!;
  const value = text.slice(tokens[start]!.index, last.index + last.surface.length);
  return isCjk(value)
    ? { text: value, index: tokens[start]!.index, tokens: tokens.slice(start, end + 1) }
    : undefined;
}
