/** Text helpers that respect Unicode: nothing here cuts a surrogate pair or a word in half. */

const CJK_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const CJK_RUN_RE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー々〆]+/gu;

// Without the `u` flag a class matches UTF-16 code units: any half of a surrogate pair.
const SURROGATE_RE = /[\ud800-\udfff]/;

/** Number of Unicode code points (what "characters" means in our level budgets). */
export function codePointLength(text: string): number {
  // Most text has no surrogate pair: then its length is the count (a native scan, no loop).
  if (!SURROGATE_RE.test(text)) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The first `max` code points of `text`. */
export function sliceCodePoints(text: string, max: number): string {
  if (max <= 0) return '';
  let count = 0;
  let i = 0;
  while (i < text.length && count < max) {
    const c = text.charCodeAt(i);
    const pair =
      c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    i += pair ? 2 : 1;
    count++;
  }
  return text.slice(0, i);
}

/** True when the text holds Chinese, Japanese or Korean script. */
function hasCjk(text: string): boolean {
  return CJK_RE.test(text);
}

const wordSegmenters = new Map<string, Intl.Segmenter>();
function wordSegmenter(locale: string): Intl.Segmenter {
  let segmenter = wordSegmenters.get(locale);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: 'word' });
    wordSegmenters.set(locale, segmenter);
  }
  return segmenter;
}

function cjkLocale(run: string): string {
  if (/[\p{Script=Hangul}]/u.test(run)) return 'ko';
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(run)) return 'ja';
  return 'zh';
}

/**
 * Puts spaces between the words of every CJK run (segmented with `Intl.Segmenter`), leaving
 * other text as it is, so that a whitespace tokenizer such as FTS5's unicode61 sees words.
 */
export function segmentCjk(text: string): string {
  if (!hasCjk(text)) return text;
  return text.replace(CJK_RUN_RE, (run) => {
    const segmenter = wordSegmenter(cjkLocale(run));
    const words: string[] = [];
    for (const piece of cjkPieces(run)) {
      for (const part of segmenter.segment(piece)) {
        if (part.segment.trim().length > 0) words.push(part.segment);
      }
    }
    return ` ${words.join(' ')} `;
  });
}

/**
 * Code units of a CJK run segmented in one call. ICU's dictionary segmentation of one run
 * costs more than linear time in its length (a 60,000-character run took 3.1 s, the same text
 * in pieces of 256 took 0.12 s), so longer runs (text without punctuation) are cut into pieces;
 * at most a word is split at each cut.
 */
const CJK_PIECE = 256;

/** A CJK run in pieces of at most {@link CJK_PIECE} code units, never splitting a surrogate pair. */
function cjkPieces(run: string): string[] {
  if (run.length <= CJK_PIECE) return [run];
  const pieces: string[] = [];
  for (let start = 0; start < run.length; ) {
    let end = Math.min(run.length, start + CJK_PIECE);
    if (end < run.length && (run.charCodeAt(end) & 0xfc00) === 0xdc00) end--;
    pieces.push(run.slice(start, end));
    start = end;
  }
  return pieces;
}

/**
 * Cuts `text` to at most `max` code points at a word boundary (or, for text without spaces
 * such as CJK, at a code point boundary), appending `…` when something was cut. The ellipsis
 * counts toward `max`.
 */
export function truncateText(text: string, max: number): string {
  if (codePointLength(text) <= max) return text;
  if (max <= 1) return sliceCodePoints(text, max);
  const head = sliceCodePoints(text, max - 1);
  const lastSpace = head.search(/\s\S*$/u);
  const cut = lastSpace > head.length * 0.5 ? head.slice(0, lastSpace) : head;
  return `${cut.trimEnd()}…`;
}

// Whitespace that {@link oneLine} would change: any but a plain space, two spaces in a row, or a
// space at either end.
const NOT_ONE_LINE_RE = /[^\S ]| {2}|^ | $/;

/** Collapses runs of whitespace (including newlines) to single spaces and trims. */
export function oneLine(text: string): string {
  // Text already on one line comes back as is (no new string: levels and labels usually are).
  return NOT_ONE_LINE_RE.test(text) ? text.replace(/\s+/gu, ' ').trim() : text;
}

/**
 * `text` without a leading copy of `label` (and the punctuation after it): the label whole, or
 * its opening cut with `…` as a one-line level shortens a long label (`Investigate the nightly
 * eval drop on the… — Root cause: …`). For views that print the label beside the level.
 */
export function withoutLeadingLabel(text: string, label: string): string {
  const trimmedLabel = oneLine(label);
  if (trimmedLabel.length === 0) return text.trim();
  let head = text.startsWith(trimmedLabel) ? trimmedLabel.length : 0;
  if (head === 0) {
    // An opening of the label, cut at a word or clause mark and ended with `…`.
    const cut = text.indexOf('…');
    const opening = cut > 0 ? text.slice(0, cut).trimEnd() : '';
    const next = trimmedLabel.charAt(opening.length);
    // Cut between words, never inside one: `Fix cra…` is not an opening of `Fix crash`.
    if (opening.length >= 16 && trimmedLabel.startsWith(opening) && !/[\p{L}\p{N}]/u.test(next))
      head = cut + 1;
  }
  if (head === 0) return text.trim();
  return text
    .slice(head)
    .replace(/^[\s.:;,!?。—-]+/u, '')
    .trim();
}
