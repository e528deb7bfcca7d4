/**
 * The offline keyword extractor for turns: what someone would search to find this turn later.
 * At most {@link MAX_KEYWORDS} per turn, shown in order of first appearance and in the original
 * language: patterned facts (dates, times, amounts, versions, paths, URLs), identifiers and
 * hyphenated words kept whole (`cache:user:42`, `nut-free`), names (capitalised runs, acronyms),
 * short phrases of adjacent content words within one clause, and content words. Stop words,
 * fillers and bare one- or two-digit numbers are never keywords, and a single word is left out
 * when a kept phrase already holds it (`read replica`, not also `read` and `replica`). When a
 * turn offers more, the most salient are kept: patterned facts and identifiers first, then names
 * and phrases, then words, each weighed by how often the turn uses it.
 */
import {
  casingEvidence,
  factSpans,
  isStopWord,
  keepsCase,
  nameLike,
  nameSpans,
  overlaps,
  pairSpans,
  sentences,
  termOf,
  tokenize,
  type CasingEvidence,
  type SpanRules,
  type Token,
} from '../core/text-analysis.js';

/** Keywords kept per turn at most (issue 19: a turn's keywords are read, so few and good). */
export const MAX_KEYWORDS = 15;

// Words that carry no searchable content beyond what the `stopword` list (grammar words) drops:
// greetings, interjections, fillers, question words, quantifiers, generic verbs and adverbs.
const FILLERS: ReadonlySet<string> = new Set(
  (
    'hi hello hey bye goodbye thanks thank thx please ok okay yes yeah yep yup nope nah sure ' +
    'just really maybe perhaps why when whom whose will shall let lets going gonna wanna want ' +
    'wants wanted think thinks thought know knows knew um uh hmm hm oh ah ugh wow whoa oops ' +
    'yay lol haha hah meh huh yikes aw aww ooh phew alright anyway anyways btw fyi ' +
    'thing things something anything everything nothing stuff kind sort lot lots bit ' +
    'does done doing did get gets got getting go goes went gone make makes made making take ' +
    'takes took taken say says said tell tells told ask asks asked need needs needed use uses ' +
    'used using try tries tried see sees saw seen look looks looked looking give gives gave ' +
    'put puts keep keeps kept seem seems seemed come comes came mean means meant like likes ' +
    'liked feel feels felt happen happens happened guess guessed sound sounds ' +
    'during every not plus re per via vs etc also still even ever yet already again always ' +
    'often sometimes usually quite rather though although however until within without ' +
    'across along among around behind beside besides beyond toward towards upon instead ' +
    'less few many much more most several whatever whichever whoever one ones two three ' +
    'first second last next new old good great nice fine cool awesome right left back way ' +
    'well lot actually basically literally probably definitely totally pretty super ' +
    'today tomorrow yesterday tonight now soon later earlier able else enough far ' +
    'sorry glad happy welcome so no worry wherever set sets bought brought sent found wrote ' +
    'ran built paid sat met began told became mostly mainly only simply exactly likely ' +
    'nearly fully recently currently finally quickly directly especially clearly ' +
    // An agent's report words ("Noted: …", "Updated: …", "Quick one: …") and JSON literals.
    'noted updated added quick true false null undefined'
  ).split(' '),
);

// Words that are no keyword alone but may start or end a phrase (`Thursday morning`).
const WEAK_ALONE: ReadonlySet<string> = new Set(
  'morning afternoon evening night day days week weeks month year time times open help plan'.split(' '),
);

/** Characters that join the parts of one identifier or compound word (`nut-free`, `cache:user:42`). */
const JOINERS = new Set(['-', ':', '‐', '‑']);

/** Whether and how much a candidate is worth keeping. */
type Kind = 'fact' | 'id' | 'name' | 'phrase' | 'word';
const WEIGHT: Readonly<Record<Kind, number>> = { fact: 3, id: 3, name: 2.5, phrase: 2, word: 1 };
/** A bare number of three digits or more (`397`) is a weak keyword. */
const BARE_NUMBER_WEIGHT = 0.5;

interface Candidate {
  readonly text: string;
  readonly key: string;
  readonly index: number;
  readonly kind: Kind;
  /** Stemmed words of the candidate: a single word they contain is not kept beside it. */
  readonly words: readonly string[];
}

/**
 * At most {@link MAX_KEYWORDS} keywords and short phrases of the given texts, distinct, in order
 * of first appearance.
 *
 * @example
 * ```ts
 * extractKeywords(['Alice moved the billing DB to Postgres 16 on 2024-05-01.']);
 * // ['Alice', 'billing DB', 'Postgres 16', '2024-05-01']
 * ```
 */
export function extractKeywords(texts: readonly string[]): string[] {
  const text = texts
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
    .join('\n');
  if (text.length === 0) return [];
  const covered: [number, number][] = [];
  const candidates = [...patternCandidates(text, covered)];
  const split = sentences(text).map((sentence) =>
    joinCompounds(
      text,
      tokenize(sentence.text).map((t) => ({ ...t, index: t.index + sentence.index })),
    ),
  );
  const casing = casingEvidence(split);
  for (const tokens of split) candidates.push(...tokenCandidates(text, tokens, covered, casing));
  return select(candidates, MAX_KEYWORDS);
}

function patternCandidates(text: string, covered: [number, number][]): Candidate[] {
  return factSpans(text, covered).map((fact) => ({
    text: fact.text,
    key: fact.text.toLowerCase(),
    index: fact.index,
    kind: 'fact',
    words: tokenize(fact.text).map((t) => t.term),
  }));
}

type Positioned = Token & { readonly index: number; readonly compound?: boolean };

/**
 * Joins words written without a space across a hyphen or colon into one token, so that an
 * identifier or a hyphenated word is never split (`nut-free`, `stats-rollup`, `cache:user:42`).
 * A leading sign or a trailing joiner is not part of the word (`-1` stays `1`).
 */
function joinCompounds(text: string, tokens: readonly Positioned[]): Positioned[] {
  const out: Positioned[] = [];
  for (const token of tokens) {
    const previous = out[out.length - 1];
    const gap = previous ? text.slice(previous.index + previous.surface.length, token.index) : '';
    if (previous && !previous.cjk && !token.cjk && gap.length === 1 && JOINERS.has(gap)) {
      const surface = text.slice(previous.index, token.index + token.surface.length);
      out[out.length - 1] = {
        surface,
        term: surface.normalize('NFKC').toLowerCase(),
        index: previous.index,
        stop: false,
        cjk: false,
        compound: true,
      };
    } else out.push(token);
  }
  return out;
}

function tokenCandidates(
  text: string,
  tokens: readonly Positioned[],
  covered: [number, number][],
  casing: CasingEvidence,
): Candidate[] {
  const free = tokens.filter((t) => !overlaps(covered, t.index, t.index + t.surface.length));
  const out: Candidate[] = [];
  out.push(...names(text, free, tokens[0]));
  for (const token of free) {
    if (!isContent(token)) continue;
    if (token.cjk && [...token.surface].length < 2) continue;
    const sentenceStart = token === tokens[0];
    const surface = keepsCase(token, sentenceStart, casing) ? token.surface : token.surface.toLowerCase();
    if (WEAK_ALONE.has(token.surface.toLowerCase())) continue;
    const kind: Kind = identifierLike(token) ? 'id' : nameLike(token, sentenceStart) ? 'name' : 'word';
    out.push({ text: surface, key: `w:${token.term}`, index: token.index, kind, words: [token.term] });
  }
  out.push(...pairs(text, free));
  return out;
}

/**
 * A word with content: not a stop word, filler, lone sign or bare one- or two-digit number. A
 * word that is not a compound is judged by its spelling alone (its term and stop flag follow
 * from it), so that judgement is remembered.
 */
function isContent(token: Token): boolean {
  if ((token as Positioned).compound === true) return judgeContent(token);
  let content = CONTENT.get(token.surface);
  if (content === undefined) {
    if (CONTENT.size >= CONTENT_CACHE_SIZE) CONTENT.clear();
    content = judgeContent(token);
    CONTENT.set(token.surface, content);
  }
  return content;
}

/** Words whose {@link isContent} judgement is remembered (a bounded cache, emptied when full). */
const CONTENT_CACHE_SIZE = 50_000;
const CONTENT = new Map<string, boolean>();

function judgeContent(token: Token): boolean {
  if (token.stop || /^\p{N}{1,2}$/u.test(token.surface)) return false;
  if (!/[\p{L}\p{N}]/u.test(token.surface)) return false;
  const lower = token.surface.toLowerCase();
  if (FILLERS.has(lower) || isStopWord(token.term)) return false;
  // Contractions of grammar words (`I'll`, `we've`, `When's`) carry nothing either.
  const base = lower.split(/['’]/u)[0] ?? lower;
  if (base !== lower && (base.length < 2 || FILLERS.has(base) || isStopWord(base))) return false;
  // A compound of fillers only (`so-so`, `well-known`'s kin) is no better than its parts.
  const compound = (token as Positioned).compound === true;
  return (
    !compound ||
    !lower.split(/[-:‐‑]/u).every((part) => part.length < 2 || FILLERS.has(part) || isStopWord(part))
  );
}

/** Identifiers: a compound with a digit, underscore or colon, or a word mixing letters and digits. */
function identifierLike(token: Positioned): boolean {
  const s = token.surface;
  if (token.cjk) return false;
  if (token.compound) return /[\p{N}_:]/u.test(s) || /\p{Lu}/u.test(s);
  return s.includes('_') || (/\p{L}/u.test(s) && /\p{N}/u.test(s));
}

/** What counts as a word of a name, a phrase or a compound among keywords. */
const SPAN_RULES: SpanRules<Positioned> = {
  isContent,
  // Two words of one clause with nothing but a space between them.
  adjacent: (text, a, b) => {
    const between = text.slice(a.index + a.surface.length, b.index);
    return between.length === 0 || /^[ \t]$/u.test(between);
  },
  // A capital mid-sentence marks a name even on a word that is filler alone (`New York`).
  nameWord: (token, first) => (first ? isContent(token) : !token.stop && !isStopWord(token.term)),
  pairable,
};

/** Runs of adjacent name-like words, e.g. `New York`, `Alice Smith`. */
function names(text: string, tokens: readonly Positioned[], first: Positioned | undefined): Candidate[] {
  return nameSpans(text, tokens, first, SPAN_RULES).map((span) => ({
    text: span.text,
    key: span.text.toLowerCase(),
    index: span.index,
    kind: 'name',
    words: span.tokens.map((t) => t.term),
  }));
}

/** Adjacent content-word pairs (`token refresh`), and whole CJK compounds (`数据库迁移`). */
function pairs(text: string, tokens: readonly Positioned[]): Candidate[] {
  return pairSpans(text, tokens, SPAN_RULES).map((span): Candidate => {
    const words = span.tokens.map((t) => t.term);
    if (span.tokens[0]!.cjk)
      return { text: span.text, key: span.text, index: span.index, kind: 'phrase', words };
    const [a, b] = span.tokens as [Positioned, Positioned];
    const shown =
      nameLike(a, false) || nameLike(b, false) || a.compound || b.compound
        ? span.text
        : span.text.toLowerCase();
    return { text: shown, key: `p:${a.term} ${b.term}`, index: span.index, kind: 'phrase', words };
  });
}

/**
 * Whether two adjacent words make a phrase: both content words of one script, not two numbers,
 * no identifier (it is a keyword of its own), no `-ed` verb (`test timed`), and not a lower-case
 * word before a capitalised name, mostly a verb and its object (`chose Redis`). A name may take
 * a number (`Postgres 16`, `EW 7850`).
 */
function pairable(a: Positioned, b: Positioned): boolean {
  if (!isContent(a) || a.cjk !== b.cjk) return false;
  if (a.cjk) return isContent(b);
  if (/^\p{N}+$/u.test(b.surface)) return nameLike(a, false) && !/^\p{N}+$/u.test(a.surface);
  if (!isContent(b) || identifierLike(a) || identifierLike(b)) return false;
  if (pastTense(a) || pastTense(b)) return false;
  return !(/^\p{Ll}/u.test(a.surface) && /^\p{Lu}\p{Ll}/u.test(b.surface) && !a.compound);
}

/** A lower-case `-ed` word: mostly a verb in chat text, which makes a phrase a clause (`test timed`). */
function pastTense(token: Positioned): boolean {
  return !token.compound && /^\p{Ll}{3,}ed$/u.test(token.surface);
}

interface Scored {
  readonly candidate: Candidate;
  readonly score: number;
}

/**
 * The `limit` best distinct candidates, in order of first appearance. A candidate is worth its
 * kind's weight, more for each repetition in the turn (a phrase also for repetitions of its
 * words); a single word that a kept phrase holds is dropped (its slot goes to the next best).
 */
function select(candidates: readonly Candidate[], limit: number): string[] {
  const first = new Map<string, { candidate: Candidate; count: number }>();
  const termCount = new Map<string, number>();
  for (const candidate of [...candidates].sort((a, b) => a.index - b.index)) {
    const entry = first.get(candidate.key);
    if (entry) entry.count++;
    else first.set(candidate.key, { candidate, count: 1 });
    if (candidate.kind !== 'phrase')
      for (const w of candidate.words) termCount.set(w, (termCount.get(w) ?? 0) + 1);
  }
  const scored: Scored[] = [...first.values()].map(({ candidate, count }) => {
    const support =
      candidate.kind === 'phrase'
        ? candidate.words.reduce((sum, w) => sum + Math.log2(termCount.get(w) ?? 1), 0) / 2
        : 0;
    const weight = /^\p{N}+$/u.test(candidate.text) ? BARE_NUMBER_WEIGHT : WEIGHT[candidate.kind];
    return { candidate, score: weight * (1 + Math.log2(count)) + support };
  });
  scored.sort((a, b) => b.score - a.score || a.candidate.index - b.candidate.index);
  const kept: Candidate[] = [];
  const seenText = new Set<string>();
  for (const { candidate } of scored) {
    if (kept.length >= limit) break;
    const lower = candidate.text.toLowerCase();
    if (seenText.has(lower) || kept.some((k) => subsumes(k, candidate))) continue;
    // A phrase (or fact) takes the place of the single words it holds.
    for (let i = kept.length - 1; i >= 0; i--) if (subsumes(candidate, kept[i]!)) kept.splice(i, 1);
    kept.push(candidate);
    seenText.add(lower);
  }
  return kept.sort((a, b) => a.index - b.index).map((c) => c.text);
}

/**
 * True when `outer` holds every word of `inner` and says more: a longer phrase (`read replica`
 * over `replica`), or a fact over the bare word it is written around (`#902` over `902`).
 */
function subsumes(outer: Candidate, inner: Candidate): boolean {
  if (outer === inner || inner.words.length === 0) return false;
  // An identifier or number inside a longer identifier (`pg-1.internal` and `5432` in `pg-1.internal:5432`).
  if (
    isIdentifier(outer) &&
    (isIdentifier(inner) || /^\p{N}+$/u.test(inner.text)) &&
    holdsWhole(outer.text, inner.text)
  )
    return true;
  if (!inner.words.every((w) => outer.words.includes(w))) return false;
  if (outer.words.length > inner.words.length) return inner.words.length === 1 || inner.kind !== 'name';
  return inner.kind === 'word' && outer.kind !== 'word';
}

const isIdentifier = (c: Candidate): boolean => c.kind === 'fact' || c.kind === 'id';

/** Whether `outer` holds `inner` (case aside) with no letter or digit right before or after it. */
function holdsWhole(outer: string, inner: string): boolean {
  if (inner.length >= outer.length) return false;
  const lower = outer.toLowerCase();
  const part = inner.toLowerCase();
  for (let at = lower.indexOf(part); at >= 0; at = lower.indexOf(part, at + 1)) {
    const before = lower.slice(Math.max(0, at - 1), at);
    const after = lower.slice(at + part.length, at + part.length + 1);
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}

/**
 * A keyword list cleaned by the same rules as {@link extractKeywords}, for keywords that come
 * from elsewhere (older files, a model, the union of a scene's turns in the engram): no stop
 * words, fillers or bare one- or two-digit numbers, no single word that a phrase of the list
 * holds, distinct (case-insensitive), the first `limit` kept.
 */
export function cleanKeywords(keywords: readonly string[], limit: number = MAX_KEYWORDS): string[] {
  const phrases = keywords
    .map((k) => k.trim())
    .filter((k) => /\s/u.test(k))
    .map((k) => new Set(tokenize(k).map((t) => t.term)));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of keywords) {
    const keyword = raw.trim();
    const lower = keyword.toLowerCase();
    if (keyword.length === 0 || seen.has(lower) || !keywordHasContent(keyword)) continue;
    if (!/\s/u.test(keyword)) {
      const term = termOf(keyword);
      if (phrases.some((words) => words.has(term))) continue;
    }
    seen.add(lower);
    out.push(keyword);
    if (out.length >= limit) break;
  }
  return out;
}

/** False for a keyword made only of stop words, fillers, signs or a bare one- or two-digit number. */
function keywordHasContent(keyword: string): boolean {
  if (/^[+-]?\p{N}{1,2}$/u.test(keyword)) return false;
  const tokens = tokenize(keyword);
  if (tokens.some((t) => isContent(t))) return true;
  // Patterned facts such as `14:30`, `$1,200`, `99.9%` or `2024`: digits with a shape of their own.
  return /\p{N}/u.test(keyword) && [...keyword].length >= 3;
}
