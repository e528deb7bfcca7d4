import { createHash } from 'node:crypto';
import { HedgehopError } from '../../core/errors.js';
import { stem, tokenize } from '../../core/index-terms.js';

/**
 * Full-text search on PostgreSQL, made to rank as SQLite's FTS5 does.
 *
 * PostgreSQL's own parsers and dictionaries split, stem and drop stop words differently from
 * FTS5's `porter unicode61 remove_diacritics 2`, so texts are never handed to `to_tsvector`:
 * each is tokenized and stemmed in TypeScript by the same functions the query side uses
 * (`tokenize`, which applies `segmentCjk` first, and `stem`, from src/core/index-terms.ts), and
 * the resulting lexemes are stored as a `tsvector` (GIN-indexed, for candidate rows) with each
 * lexeme's term frequency as its positions `1..tf`. The positions are not word positions:
 * nothing here searches phrases, and ranking needs only how often a word occurs. BM25 is then
 * computed in SQL with FTS5's formula and constants (see {@link BM25_SQL}).
 *
 * Differences from FTS5, all at the edges:
 * - a `tsvector` keeps at most 256 positions per lexeme; higher term frequencies go to the
 *   `heavy` JSON column, so scores stay exact;
 * - a lexeme is at most 2047 bytes: a longer one (a base64 blob, say) is stored as its first
 *   1900 bytes plus a hash of the whole, on both the index and the query side, so it still
 *   matches itself only;
 * - a `tsvector` holds at most 1 MiB of distinct lexeme text: beyond that (hundreds of
 *   thousands of distinct words in one record) the rarest words of that record are left out of
 *   its vector (its token count, used for length normalisation, still counts them);
 * - a quoted FTS5 phrase of several tokens is matched as all of its tokens anywhere in the row,
 *   scored by the least frequent of them (the query builder never makes such phrases).
 */

/** PostgreSQL's limit on one lexeme (bytes, exclusive: MAXSTRLEN is 2047). */
const MAX_LEXEME_BYTES = 2046;
/** Bytes kept of an over-long lexeme before its hash. */
const LONG_LEXEME_PREFIX = 1900;
/** PostgreSQL's limit on the distinct lexeme text of one tsvector (MAXSTRPOS, 1 MiB), with margin. */
const MAX_VECTOR_BYTES = (1 << 20) - 4096;
/** Positions a tsvector keeps per lexeme. */
const MAX_POSITIONS = 256;

/** A stemmed token made storable: itself, or a prefix and a hash when it is too long. */
export function fitLexeme(stemmed: string): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: a lexeme this short needs no byte count.
  if (stemmed.length * 3 <= MAX_LEXEME_BYTES) return stemmed;
  const bytes = Buffer.byteLength(stemmed, 'utf8');
  if (bytes <= MAX_LEXEME_BYTES) return stemmed;
  const buffer = Buffer.from(stemmed, 'utf8');
  let end = LONG_LEXEME_PREFIX;
  while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end--; // never cut a UTF-8 sequence
  const digest = createHash('sha256').update(buffer).digest('hex');
  return `${buffer.subarray(0, end).toString('utf8')}#${digest}`;
}

/** The lexeme a token is indexed and searched under. */
export function lexemeOf(token: string): string {
  return fitLexeme(stem(token));
}

/** A text ready for `search_docs`: its vector literal, its token count and large term frequencies. */
export interface IndexedText {
  /** `tsvector` input text (`'lexeme':1,2 …`). */
  readonly vector: string;
  /** Number of tokens (FTS5's column size, for BM25's length normalisation). */
  readonly length: number;
  /** JSON object of the lexemes that occur more than 256 times, with their counts; null when none. */
  readonly heavy: string | null;
}

/** A quote or a backslash: what `tsvector`/`tsquery` input escapes (tokens never hold one). */
const NEEDS_ESCAPE = /['\\]/u;

/** Quotes a lexeme for `tsvector`/`tsquery` input. */
function quoteLexeme(lexeme: string): string {
  if (!NEEDS_ESCAPE.test(lexeme)) return `'${lexeme}'`;
  return `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/** `1`, `1,2`, … `1,…,256`: a lexeme's positions by its term frequency (index 0 unused). */
const POSITIONS: readonly string[] = Array.from({ length: MAX_POSITIONS + 1 }, (_, count) =>
  Array.from({ length: count }, (_, i) => i + 1).join(','),
);

/**
 * Tokenizes, stems and counts a text, the way both engines' indexes see it. Lexemes come in the
 * order of their first occurrence (`stem` remembers each word's stem, so a repeated word costs a
 * lookup).
 */
export function indexText(text: string): IndexedText {
  const tokens = tokenize(text);
  const counts = new Map<string, number>();
  let units = 0;
  for (const token of tokens) {
    const lexeme = lexemeOf(token);
    const count = counts.get(lexeme);
    if (count === undefined) {
      counts.set(lexeme, 1);
      units += lexeme.length;
    } else counts.set(lexeme, count + 1);
  }
  let entries: Iterable<[string, number]> = counts;
  // A code unit is at most 3 UTF-8 bytes: only a vector this large needs its bytes counted.
  if (units * 3 > MAX_VECTOR_BYTES) {
    let bytes = 0;
    for (const lexeme of counts.keys()) bytes += Buffer.byteLength(lexeme, 'utf8');
    if (bytes > MAX_VECTOR_BYTES) entries = keepMostFrequent([...counts]);
  }
  let heavy: Record<string, number> | undefined;
  const parts: string[] = [];
  for (const [lexeme, count] of entries) {
    if (count > MAX_POSITIONS) (heavy ??= {})[lexeme] = count;
    parts.push(`${quoteLexeme(lexeme)}:${POSITIONS[Math.min(count, MAX_POSITIONS)] as string}`);
  }
  return { vector: parts.join(' '), length: tokens.length, heavy: heavy ? JSON.stringify(heavy) : null };
}

function keepMostFrequent(entries: [string, number][]): [string, number][] {
  const sorted = [...entries].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const kept: [string, number][] = [];
  let bytes = 0;
  for (const entry of sorted) {
    const size = Buffer.byteLength(entry[0], 'utf8');
    if (bytes + size > MAX_VECTOR_BYTES) continue;
    bytes += size;
    kept.push(entry);
  }
  return kept;
}

/** One phrase of a match expression: the lexemes it must hold (usually one). */
export type Phrase = readonly string[];

/**
 * Reads the FTS5 expression built by `matchExpression` (src/recall/query.ts): double-quoted
 * phrases, a doubled quote inside one, joined by `OR`. Each phrase is tokenized and stemmed
 * like index text. Anything else is refused with `INVALID_INPUT` (FTS5 would refuse it too,
 * with a syntax error). Phrases that hold no token match nothing and are left out.
 */
export function parseMatch(expression: string): Phrase[] {
  const phrases: Phrase[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < expression.length && /\s/u.test(expression[i] as string)) i++;
  };
  skipSpace();
  for (;;) {
    if (expression[i] !== '"') throw badMatch(expression);
    let j = i + 1;
    let text = '';
    for (;;) {
      const close = expression.indexOf('"', j);
      if (close < 0) throw badMatch(expression);
      text += expression.slice(j, close);
      if (expression[close + 1] === '"') {
        text += '"';
        j = close + 2;
        continue;
      }
      i = close + 1;
      break;
    }
    const lexemes = tokenize(text).map(lexemeOf);
    if (lexemes.length > 0) phrases.push(lexemes);
    skipSpace();
    if (i >= expression.length) return phrases;
    if (!expression.startsWith('OR', i)) throw badMatch(expression);
    i += 2;
    skipSpace();
  }
}

function badMatch(expression: string): HedgehopError {
  return new HedgehopError(
    'INVALID_INPUT',
    `match: not a match expression of quoted words joined by OR: ${JSON.stringify(expression.slice(0, 80))}`,
    { field: 'match' },
  );
}

/** `tsquery` input text matching a single lexeme. */
export function lexemeQuery(lexeme: string): string {
  return quoteLexeme(lexeme);
}

/** `tsquery` input text matching rows that hold any of the phrases (all lexemes of one). */
export function phrasesQuery(phrases: readonly Phrase[]): string {
  return phrases
    .map((lexemes) =>
      lexemes.length === 1 ? quoteLexeme(lexemes[0] as string) : `(${lexemes.map(quoteLexeme).join(' & ')})`,
    )
    .join(' | ');
}

/** FTS5's BM25 constants (fts5_aux.c). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** FTS5's inverse document frequency of a phrase held by `hits` of `rows` rows. */
export function bm25Idf(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}
