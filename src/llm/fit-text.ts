/**
 * Cutting text to a character budget without breaking words, surrogate pairs or grapheme
 * clusters. Budgets are counted in code points, as everywhere in hedgehop.
 */
import { codePointLength, sliceCodePoints } from '../core/text.js';
import { graphemes, wordSegments } from '../core/text-analysis.js';

const ELLIPSIS = '…';
const LOOKAHEAD = 16;
const TRAILING_PUNCTUATION_RE = /[\s,;:，；：、(（[{-]+$/u;

/**
 * Returns `text` when it fits in `max` code points; otherwise its longest prefix that ends
 * before whitespace (so no token such as `cache:user:42` or `08:31:12` is cut), followed by
 * `…`, all within `max`. Text without whitespace in reach (CJK, one giant token) is cut at a
 * word boundary of the segmenter, else between grapheme clusters (never inside a surrogate pair).
 */
export function fitWords(text: string, max: number): string {
  if (max <= 0) return '';
  if (codePointLength(text) <= max) return text;
  const room = max - 1;
  // Only the head can be kept; segmenting just it (plus look-ahead for the boundary rules)
  // keeps this fast on huge texts.
  const head = sliceCodePoints(text, max + LOOKAHEAD);
  const window = sliceCodePoints(head, room + 1);
  const atSpace = lastSpaceCut(window, room);
  let best =
    atSpace !== undefined && atSpace.length >= window.length / 3 ? withoutTrailingLinks(atSpace) : '';
  if (best.length === 0) {
    let used = 0;
    for (const part of wordSegments(head)) {
      used += codePointLength(part.segment);
      if (used > room) break;
      const prefix = head.slice(0, part.index + part.segment.length).replace(TRAILING_PUNCTUATION_RE, '');
      if (prefix.length > 0) best = prefix;
    }
  }
  if (best.length === 0) best = fitGraphemes(head, room);
  return `${best}${ELLIPSIS}`;
}

// Words that only link what comes before to what was cut off: a cut that ends on one reads as a
// sentence broken off mid-phrase ("limited per IP with a…", "revoke every token of the…").
// Negations are not among them: "did not…" must not become "did…".
const LINK_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but of to in on at by for with from into onto per via as than that which who whose ' +
    'its their our your my his her this these those is are was were be been being has have had so if ' +
    'when while because then where'
  ).split(' '),
);
const LAST_WORD_RE = /\s+([^\s]+)$/u;

/**
 * `cut` without the link words it ends on (see {@link LINK_WORDS}), as long as at least half of
 * it is left; trailing punctuation dropped again.
 */
function withoutTrailingLinks(cut: string): string {
  let out = cut;
  for (;;) {
    const last = LAST_WORD_RE.exec(out);
    if (!last || !LINK_WORDS.has((last[1] as string).toLowerCase())) return out;
    const shorter = out.slice(0, last.index).replace(TRAILING_PUNCTUATION_RE, '');
    if (shorter.length * 2 < cut.length) return out;
    out = shorter;
  }
}

/** The prefix of `window` before its last whitespace within `room` code points, trailing punctuation dropped. */
function lastSpaceCut(window: string, room: number): string | undefined {
  // Without surrogates every UTF-16 unit is a code point: the same search without the array.
  if (!SURROGATE_RE.test(window)) {
    for (let i = Math.min(room, window.length - 1); i > 0; i--) {
      if (isWhiteSpace(window.charCodeAt(i))) {
        const prefix = window.slice(0, i).replace(TRAILING_PUNCTUATION_RE, '');
        if (prefix.length > 0) return prefix;
      }
    }
    return undefined;
  }
  const points = [...window];
  for (let i = Math.min(room, points.length - 1); i > 0; i--) {
    if (/\s/u.test(points[i] as string)) {
      const prefix = points.slice(0, i).join('').replace(TRAILING_PUNCTUATION_RE, '');
      if (prefix.length > 0) return prefix;
    }
  }
  return undefined;
}

// Without the `u` flag a class matches UTF-16 code units: any half of a surrogate pair.
const SURROGATE_RE = /[\ud800-\udfff]/;

/** True for the code units that `/\s/u` matches (white space and line terminators). */
function isWhiteSpace(code: number): boolean {
  if (code < 0x80) return code === 32 || (code >= 9 && code <= 13);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** The longest run of whole grapheme clusters from the start of `text` within `max` code points. */
function fitGraphemes(text: string, max: number): string {
  let used = 0;
  let end = 0;
  for (const part of graphemes(sliceCodePoints(text, max + LOOKAHEAD))) {
    const size = codePointLength(part.segment);
    if (used + size > max) break;
    used += size;
    end = part.index + part.segment.length;
  }
  return text.slice(0, end);
}
