/**
 * The words a turn's topic row holds in the recall index, beside the at most 15 keywords the turn
 * shows: every content word, every pair of adjacent content words (`charity race`), names
 * (capitalised runs, acronyms, identifiers) and patterned facts (dates, times, amounts,
 * versions, paths), distinct, in order of first appearance. A question then finds a turn by any
 * word it holds, phrases weighing a little more, whatever the shown keywords kept (a question
 * that joins facts across turns often names words the 15 did not keep). Offline and
 * deterministic: the index can always be rebuilt from the verbatim turn.
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
} from './text-analysis.js';

/** Terms beyond this are cut, keeping the most salient, so one huge turn stays indexable. */
const MAX_INDEX_TERMS = 200;

// Conversational words that carry no searchable content. The `stopword` list covers grammar
// words; these are the greetings, fillers, question words and generic verbs the keyword
// contract (MemHop §5.1) also asks us to drop.
const FILLERS: ReadonlySet<string> = new Set(
  (
    'hi hello hey bye thanks thank please ok okay yes yeah yep nope sure just really maybe ' +
    'why when whom whose will shall let lets going gonna wanna want think know um uh hmm oh ah ' +
    'thing things something anything stuff kind lot lots does done doing'
  ).split(' '),
);

interface Candidate {
  readonly text: string;
  readonly key: string;
  readonly index: number;
  /** Higher is kept first when there are more than {@link MAX_INDEX_TERMS}. */
  readonly salience: number;
}

/**
 * The index terms of a turn's texts (see the module comment), at most {@link MAX_INDEX_TERMS}.
 *
 * @example
 * ```ts
 * indexTerms(['Alice moved the billing DB to Postgres 16 on 2024-05-01.']);
 * // ['Alice', 'moved', 'billing', 'billing DB', 'DB', 'Postgres 16', …, '2024-05-01']
 * ```
 */
export function indexTerms(texts: readonly string[]): string[] {
  const text = texts
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
    .join('\n');
  if (text.length === 0) return [];
  const covered: [number, number][] = [];
  const candidates = [...patternCandidates(text, covered)];
  const split = sentences(text).map((sentence) =>
    tokenize(sentence.text).map((t) => ({ ...t, index: t.index + sentence.index })),
  );
  const casing = casingEvidence(split);
  for (const tokens of split) candidates.push(...tokenCandidates(text, tokens, covered, casing));
  return select(candidates);
}

function patternCandidates(text: string, covered: [number, number][]): Candidate[] {
  return factSpans(text, covered).map((fact) => ({
    text: fact.text,
    key: fact.text.toLowerCase(),
    index: fact.index,
    salience: 3,
  }));
}

type Positioned = Token & { readonly index: number };

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
    const surface = keepsCase(token, token === tokens[0], casing)
      ? token.surface
      : token.surface.toLowerCase();
    if (token.cjk && [...token.surface].length < 2) continue;
    out.push({ text: surface, key: `w:${token.term}`, index: token.index, salience: 1 });
  }
  out.push(...pairs(text, free));
  return out;
}

function isContent(token: Token): boolean {
  return !token.stop && !FILLERS.has(token.surface.toLowerCase()) && !isStopWord(token.term);
}

/** What counts as a word of a name, a phrase or a compound in the index terms. */
const SPAN_RULES: SpanRules<Positioned> = {
  isContent,
  adjacent: (text, a, b) => {
    const between = text.slice(a.index + a.surface.length, b.index);
    return between.length === 0 || /^[ \t-]$/u.test(between);
  },
  nameWord: (token) => !token.stop && !FILLERS.has(token.surface.toLowerCase()),
  pairable: (a, b) =>
    isContent(a) &&
    isContent(b) &&
    a.cjk === b.cjk &&
    !(/^\p{N}+$/u.test(a.surface) && /^\p{N}+$/u.test(b.surface)),
};

/** Runs of adjacent name-like words, e.g. `New York`, `Alice Smith`. */
function names(text: string, tokens: readonly Positioned[], first: Positioned | undefined): Candidate[] {
  return nameSpans(text, tokens, first, SPAN_RULES).map((span) => ({
    text: span.text,
    key: span.text.toLowerCase(),
    index: span.index,
    salience: 2,
  }));
}

/** Adjacent content-word pairs (`token refresh`), and whole CJK compounds (`数据库迁移`). */
function pairs(text: string, tokens: readonly Positioned[]): Candidate[] {
  return pairSpans(text, tokens, SPAN_RULES).map((span) => {
    if (span.tokens[0]!.cjk) return { text: span.text, key: span.text, index: span.index, salience: 2 };
    const [a, b] = span.tokens as [Positioned, Positioned];
    const shown = nameLike(a, false) || nameLike(b, false) ? span.text : span.text.toLowerCase();
    return {
      text: shown,
      key: `p:${termOf(a.surface)} ${termOf(b.surface)}`,
      index: span.index,
      salience: 1.5,
    };
  });
}

function select(candidates: Candidate[]): string[] {
  const firstByKey = new Map<string, Candidate>();
  const seenText = new Set<string>();
  const ordered = [...candidates].sort((a, b) => a.index - b.index || b.salience - a.salience);
  for (const candidate of ordered) {
    const lower = candidate.text.toLowerCase();
    if (firstByKey.has(candidate.key) || seenText.has(lower)) continue;
    firstByKey.set(candidate.key, candidate);
    seenText.add(lower);
  }
  let kept = [...firstByKey.values()];
  if (kept.length > MAX_INDEX_TERMS) {
    const top = new Set(
      [...kept].sort((a, b) => b.salience - a.salience || a.index - b.index).slice(0, MAX_INDEX_TERMS),
    );
    kept = kept.filter((c) => top.has(c));
  }
  return kept.map((c) => c.text);
}
