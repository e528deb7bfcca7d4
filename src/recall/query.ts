import { createRequire } from 'node:module';
import { eachStemFound, stem, stemLookup, tokenize, type StemLookup } from '../core/index-terms.js';

export { eachStemFound, stem, stemLookup, tokenize, type StemLookup };

// `stopword` ships CommonJS without type declarations; its English list is all we need.
const requireCjs = createRequire(import.meta.url);
const { eng: ENGLISH_STOP_WORDS } = requireCjs('stopword') as { eng: readonly string[] };

/**
 * Words that carry no retrieval signal in a question or a memory: the `stopword` package's
 * English list, plus auxiliaries, question words and contraction fragments that list leaves in
 * (a question's "what", "did", "kind" say what is asked, not what to look for).
 */
const STOP_WORDS: ReadonlySet<string> = new Set([
  ...ENGLISH_STOP_WORDS,
  ...[
    'does',
    'doing',
    'done',
    'having',
    'shall',
    'will',
    'can',
    'cannot',
    'whom',
    'whose',
    'why',
    'when',
    'what',
    'which',
    'who',
    'how',
    'where',
    'yes',
    'no',
    'not',
    'nor',
    'so',
    'just',
    'its',
    'itself',
    'ours',
    'yours',
    'hers',
    'theirs',
    'us',
    'she',
    'they',
    'them',
    'myself',
    'yourself',
    'herself',
    'themselves',
    'ourselves',
    'am',
    'isn',
    'aren',
    'wasn',
    'weren',
    'don',
    'didn',
    'doesn',
    'hasn',
    'haven',
    'hadn',
    'won',
    'wouldn',
    'couldn',
    'shouldn',
    'll',
    've',
    're',
    'd',
    's',
    't',
    'm',
    'o',
    'y',
    'also',
    'ever',
    'even',
    'kind',
    'kinds',
    'type',
    'types',
    'sort',
    'thing',
    'things',
    'something',
    'anything',
    'really',
    'oh',
    'ok',
    'okay',
    'yeah',
    'hey',
    'hi',
    'wow',
    'etc',
    'lot',
    'lots',
    'much',
    'many',
    'very',
    'quite',
    'pretty',
  ],
]);

/** True for a (lower-cased) word that carries no retrieval signal. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word);
}

/** One searchable word of a query. */
export interface QueryTerm {
  /** The word as it will be matched (tokenised, lower-cased, not stemmed: FTS5 stems it). */
  readonly word: string;
  /** Its Porter stem, for comparing with text in JavaScript. */
  readonly stem: string;
}

/** At most this many distinct words of a query are searched (long texts pasted as queries). */
const MAX_QUERY_TERMS = 64;

/** Distinct words of a query considered before the most informative {@link MAX_QUERY_TERMS} are kept. */
const MAX_QUERY_CANDIDATES = 1024;

/**
 * Characters of a query read for its words. A longer query (a pasted document) is read in
 * {@link QUERY_WINDOWS} evenly spaced windows that add up to this many characters, so that
 * its cost stays bounded (CJK segmentation costs a few microseconds per character) while its
 * words still come from all of it.
 */
const QUERY_SCAN_CHARS = 12_000;
const QUERY_WINDOWS = 12;

/**
 * The parts of a query that are read for words: all of it, or evenly spaced windows of a long
 * one. Anything that reads a query's words beside {@link queryTerms} (navigation's word pairs)
 * reads these ({@link scannedTokens}), so a 100,000-character query costs what a
 * 12,000-character one does.
 */
function scannedText(text: string): string {
  if (text.length <= QUERY_SCAN_CHARS) return text;
  const width = Math.floor(QUERY_SCAN_CHARS / QUERY_WINDOWS);
  const stride = (text.length - width) / (QUERY_WINDOWS - 1);
  const windows: string[] = [];
  for (let i = 0; i < QUERY_WINDOWS; i++) {
    let start = Math.floor(i * stride);
    let end = Math.min(text.length, start + width);
    // Never start or end inside a surrogate pair; a word cut at a window edge is a stray term at worst.
    if ((text.charCodeAt(start) & 0xfc00) === 0xdc00) start++;
    if (end < text.length && (text.charCodeAt(end) & 0xfc00) === 0xdc00) end--;
    windows.push(text.slice(start, end));
  }
  return windows.join(' ');
}

/**
 * The searchable words of a user's query: tokenised like the index, stop words dropped,
 * deduplicated by stem, at most {@link MAX_QUERY_TERMS}. When a query holds more distinct
 * words, the most informative are kept: given `frequency` (how many index rows hold a stem),
 * the rarest, else the first; either way in the query's order. When a query holds nothing but
 * stop words, they are kept, so "who is she" still searches something. Cost is linear in the
 * query's length and bounded (see {@link QUERY_SCAN_CHARS}).
 */
export function queryTerms(text: string, frequency?: (stem: string) => number): QueryTerm[] {
  return frequency
    ? mostInformativeTerms(queryCandidates(text), frequency)
    : distinctTerms(text, MAX_QUERY_TERMS);
}

/**
 * The distinct words of a query from which {@link mostInformativeTerms} picks (at most
 * 1,024): {@link queryTerms} in two steps, so a caller can read the words' index statistics in
 * one batch between them.
 */
export function queryCandidates(text: string): QueryTerm[] {
  return distinctTerms(text, MAX_QUERY_CANDIDATES);
}

/** The at most {@link MAX_QUERY_TERMS} rarest of `candidates` (see {@link queryTerms}). */
export function mostInformativeTerms(
  candidates: readonly QueryTerm[],
  frequency: (stem: string) => number,
): QueryTerm[] {
  return mostInformative(candidates, frequency, MAX_QUERY_TERMS);
}

/** The last query read by {@link scannedTokens}, and its tokens. */
let lastScanned: { readonly text: string; readonly tokens: readonly string[] } | undefined;

/**
 * The tokens of {@link scannedText}: the words of a query as read for its terms. The last
 * query's are kept, since one navigation or recall reads the same query's words twice (its
 * terms, then its word pairs) and segmenting CJK text is the dearest step of a long query.
 */
export function scannedTokens(text: string): readonly string[] {
  if (lastScanned?.text !== text) lastScanned = { text, tokens: tokenize(scannedText(text)) };
  return lastScanned.tokens;
}

function distinctTerms(text: string, most: number): QueryTerm[] {
  const tokens = scannedTokens(text);
  const kept = tokens.filter(
    (token) => !isStopWord(token) && (token.length > 1 || /\p{N}|\p{Lo}/u.test(token)),
  );
  const chosen = kept.length > 0 ? kept : tokens;
  const seen = new Set<string>();
  const terms: QueryTerm[] = [];
  for (const word of chosen) {
    const stemmed = stem(word);
    if (seen.has(stemmed)) continue;
    seen.add(stemmed);
    terms.push({ word, stem: stemmed });
    if (terms.length >= most) break;
  }
  return terms;
}

/**
 * The `max` terms held by the fewest index rows, in query order. Words no row holds come last:
 * they find nothing.
 */
function mostInformative(
  terms: readonly QueryTerm[],
  frequency: (stem: string) => number,
  max: number,
): QueryTerm[] {
  if (terms.length <= max) return [...terms];
  const ranked = terms
    .map((term, index) => {
      const count = frequency(term.stem);
      return { index, count: count > 0 ? count : Number.MAX_SAFE_INTEGER };
    })
    .sort((a, b) => a.count - b.count || a.index - b.index)
    .slice(0, max)
    .map((entry) => entry.index)
    .sort((a, b) => a - b);
  return ranked.map((index) => terms[index] as QueryTerm);
}

/** An FTS5 string literal: the word in double quotes, any quote doubled. */
function quote(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/**
 * The FTS5 `MATCH` expression for the given words: each one quoted (so nothing a user types is
 * ever read as FTS5 syntax: not `NEAR`, `*`, `-`, `^`, `body:` nor brackets), joined with `OR`
 * so BM25 ranks documents by how many and how rare the words they hold are. `undefined` when
 * there is nothing to search.
 */
export function matchExpression(words: readonly string[]): string | undefined {
  const safe = words.filter((word) => word.length > 0);
  if (safe.length === 0) return undefined;
  return safe.map(quote).join(' OR ');
}

/**
 * Query words that name something: a word written with a capital inside a sentence ("Mom",
 * "Porto", "CDN"), or one shaped like an identifier (inner capitals, digits beside letters, `_`
 * or `/`: "TranscodeQueueBacklog", "test_long_episode_transcode", "castwell/media-base",
 * "45-minute"). Lower-cased, tokenised like the index; stop words are left out. A question's
 * first word (and the first after `.`, `?`, `!` or `:`) counts only when shaped like an identifier.
 */
export function namedWords(query: string): Set<string> {
  const out = new Set<string>();
  let sentenceStart = true;
  for (const chunk of scannedText(query).split(/\s+/u)) {
    const word = chunk.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word.length > 0 && (identifierShaped(word) || (!sentenceStart && /^\p{Lu}/u.test(word)))) {
      for (const token of tokenize(word)) if (!isStopWord(token)) out.add(token);
    }
    if (chunk.length > 0) sentenceStart = /[.?!:]$/u.test(chunk);
  }
  return out;
}

function identifierShaped(word: string): boolean {
  return /\p{Lu}/u.test(word.slice(1)) || /[_/]/u.test(word) || (/\p{N}/u.test(word) && /\p{L}/u.test(word));
}

/** How many times a named query word is searched, against {@link WORD_REPEATS} for any other. */
const NAME_REPEATS = 3;
const WORD_REPEATS = 2;
/** Queries of more terms than this (a pasted text rather than a question) are searched unweighted. */
const MAX_WEIGHTED_TERMS = 16;

/**
 * The words to search for `terms`, a name counting one and a half times any other word: FTS5's
 * BM25 (and the PostgreSQL engine's) sums over the phrases of the expression, so a word given
 * three times against two weighs 1.5 times as much. A name or an identifier pins what a question
 * is about, where BM25 alone weighs it by rarity only; in a focused memory a common word ("eat",
 * "alert") can be as rare as the name ("Mom", "TranscodeQueueBacklog") and win on its own. Each
 * word is given once when the query names nothing (or is long).
 */
export function weightedWords(terms: readonly QueryTerm[], named: ReadonlySet<string>): string[] {
  if (terms.length > MAX_WEIGHTED_TERMS || !terms.some((term) => named.has(term.word)))
    return terms.map((term) => term.word);
  return terms.flatMap((term) =>
    Array.from({ length: named.has(term.word) ? NAME_REPEATS : WORD_REPEATS }, () => term.word),
  );
}
