import { stemmer } from 'stemmer';
import { segmentCjk } from './text.js';

/**
 * The words of a text as the recall index sees them, in one engine-neutral place: SQLite's
 * FTS5 tokenizer (`porter unicode61 remove_diacritics 2`, fed `segmentCjk` text) is mirrored
 * here for queries, and the PostgreSQL engine builds its `tsvector`s from exactly these
 * functions, so both engines split, fold and stem alike.
 */

// unicode61 keeps letters, numbers and private-use characters together and splits on the rest.
const TOKEN_RE = /[\p{L}\p{N}\p{Co}]+/gu;
const MARK_RE = /\p{M}+/gu;
/** Anything but printable ASCII, tab and line ends (such text takes the full folding path). */
const NON_ASCII_RE = /[^\t\n\r -~]/u;

/**
 * Splits text the way the index's FTS5 tokenizer (`unicode61 remove_diacritics 2`) does, after
 * the same CJK segmentation: lower-cased words without diacritics. Case and accents never
 * decide a match.
 */
export function tokenize(text: string): string[] {
  // ASCII text has no marks to strip and no CJK to segment (and NFD leaves it as it is).
  if (!NON_ASCII_RE.test(text)) return text.toLowerCase().match(TOKEN_RE) ?? [];
  const folded = segmentCjk(text).normalize('NFD').replace(MARK_RE, '').toLowerCase();
  return folded.match(TOKEN_RE) ?? [];
}

/** The Porter stem of a token (CJK and numbers are left alone), as the index stems words. */
export function stem(token: string): string {
  // The Porter stemmer is a chain of regular expressions; most words recur, so each is stemmed
  // once (tokens it leaves alone are remembered as themselves, so a known token costs one lookup).
  let stemmed = STEMS.get(token);
  if (stemmed === undefined) {
    if (STEMS.size >= STEM_CACHE_SIZE) STEMS.clear();
    stemmed = /^[a-z]+$/u.test(token) ? stemmer(token) : token;
    STEMS.set(token, stemmed);
  }
  return stemmed;
}

/**
 * Looks tokens up among a few stems: `(token) => stem(token)` when that stem is one of `stems`,
 * else `undefined`. Comparing a text with a query stems every word of the text; most words start
 * with a character that no query stem starts with, and are turned away without being stemmed: a
 * Porter stem keeps its token's first character (each rule rewrites an ending after at least one
 * kept character, and tokens it does not stem are kept whole).
 */
export function stemLookup(stems: Iterable<string>): StemLookup {
  const wanted = new Set(stems);
  const firsts = new Set<number>();
  for (const stemmed of wanted) firsts.add(stemmed.charCodeAt(0));
  const lookup = (token: string): string | undefined => {
    if (!firsts.has(token.charCodeAt(0))) return undefined;
    const stemmed = stem(token);
    return wanted.has(stemmed) ? stemmed : undefined;
  };
  return Object.assign(lookup, { firsts });
}

/** A {@link stemLookup}: a function, and the first characters (UTF-16 units) its stems start with. */
export type StemLookup = ((token: string) => string | undefined) & { readonly firsts: ReadonlySet<number> };

/** True for the UTF-16 unit of an ASCII letter or digit (the word characters of printable ASCII). */
function isAsciiWordUnit(unit: number): boolean {
  return (unit >= 97 && unit <= 122) || (unit >= 65 && unit <= 90) || (unit >= 48 && unit <= 57);
}

/**
 * Calls `found` with `lookup(token)` for each token of `text` (as {@link tokenize} splits it)
 * that `lookup` accepts, in order. ASCII text (most records) is scanned in place: only the words
 * that start with one of `lookup.firsts` are cut out and lower-cased, where `tokenize` would build
 * every word (comparing a record with a query needs the few that can match). Other text is
 * tokenised whole.
 */
export function eachStemFound(text: string, lookup: StemLookup, found: (stemmed: string) => void): void {
  if (NON_ASCII_RE.test(text)) {
    for (const token of tokenize(text)) {
      const stemmed = lookup(token);
      if (stemmed !== undefined) found(stemmed);
    }
    return;
  }
  const firsts = lookup.firsts;
  const end = text.length;
  let i = 0;
  while (i < end) {
    const unit = text.charCodeAt(i);
    if (!isAsciiWordUnit(unit)) {
      i++;
      continue;
    }
    const start = i;
    for (i++; i < end && isAsciiWordUnit(text.charCodeAt(i)); i++);
    // An upper-case first letter is compared lower-cased, as `tokenize` lower-cases the text.
    if (!firsts.has(unit <= 90 && unit >= 65 ? unit + 32 : unit)) continue;
    const stemmed = lookup(text.slice(start, i).toLowerCase());
    if (stemmed !== undefined) found(stemmed);
  }
}

/** Words whose stems are remembered (a bounded cache, emptied when full). */
const STEM_CACHE_SIZE = 50_000;
const STEMS = new Map<string, string>();
