/**
 * The offline summariser's algorithm: pick the most informative sentences of the whole text
 * within a character budget and keep them in their original order.
 *
 * Scoring is IDF-like inside the one text: a sentence is worth the sum of its distinct terms'
 * weights, and a term weighs more the fewer sentences hold it (on LoCoMo sessions this kept
 * more answer terms than also rewarding frequent terms), with a bonus for terms of the hint
 * (the task label), for sentences with numbers and names, and a small lead bias. Selection is
 * greedy with a redundancy discount, so the second sentence chosen says something the first
 * did not.
 */
import { codePointLength, oneLine } from '../core/text.js';
import { fitWords } from './fit-text.js';
import { clauses, contentTerms, sentences, tokenize, type Sentence, type Token } from './text-analysis.js';
import { isOneLineLevel, LEVEL_CAPS, SUMMARY_LEVELS, type DetailLevelName } from '../core/model/levels.js';

interface Unit {
  readonly order: number;
  readonly text: string;
  readonly size: number;
  readonly newLine: boolean;
  readonly terms: ReadonlySet<string>;
  readonly bonus: number;
}

/** Options for {@link extractiveSummary}. */
export interface ExtractiveOptions {
  readonly hint?: string | undefined;
  readonly level?: DetailLevelName | undefined;
}

const HINT_BOOST = 2.5;
const NAME_BOOST = 1.3;
const REDUNDANCY = 0.3;
const LEAD_BONUS = 1.15;
// A clause chosen on its own may end in the comma that joined it to the next one.
const DANGLING_RE = /\s*[,;:，；：、]+$/u;

/** A usable budget: whole code points, `Infinity` for no limit, 0 for nonsense (NaN, negative). */
export function budgetOf(maxChars: number): number {
  return Number.isNaN(maxChars) ? 0 : Math.max(0, Math.floor(maxChars));
}

/** The level a budget stands for, when the caller did not say. */
export function levelForBudget(maxChars: number): DetailLevelName {
  return SUMMARY_LEVELS.find((level) => maxChars <= LEVEL_CAPS[level]) ?? 'detailed';
}

/**
 * An extractive summary of `text` in at most `maxChars` code points (see the module comment).
 * Text that already fits is returned trimmed (on one line for origin/brief levels).
 */
export function extractiveSummary(text: string, maxChars: number, options: ExtractiveOptions = {}): string {
  const max = budgetOf(maxChars);
  const oneLineMode = isOneLineLevel(options.level ?? levelForBudget(max));
  const trimmed = oneLineMode ? oneLine(text) : text.trim();
  if (trimmed.length === 0) return fitWords(oneLine(options.hint ?? ''), max);
  if (codePointLength(trimmed) <= max) return trimmed;
  const units = buildUnits(trimmed, max, oneLineMode);
  const weights = termWeights(units, contentTerms(options.hint ?? ''));
  const chosen = choose(units, weights, max);
  const result = chosen.length > 0 ? join(chosen, oneLineMode) : compact(best(units, weights), max);
  return fitWords(result.replace(DANGLING_RE, ''), max);
}

function buildUnits(text: string, max: number, oneLineMode: boolean): Unit[] {
  const pieces: Sentence[] = [];
  for (const sentence of sentences(text)) {
    if (codePointLength(sentence.text) > max) pieces.push(...clauses(sentence));
    else pieces.push(sentence);
  }
  const tokensOf = tokensByPiece(text, pieces);
  return pieces.map((piece, order) => {
    const body = oneLineMode ? oneLine(piece.text) : piece.text;
    const tokens = tokensOf[order] ?? [];
    const names = tokens.filter((t, i) => !t.stop && (/\d/u.test(t.surface) || (i > 0 && isName(t.surface))));
    return {
      order,
      text: body,
      size: codePointLength(body),
      newLine: piece.newLine,
      terms: new Set(tokens.filter((t) => !t.stop).map((t) => t.term)),
      bonus: (order === 0 ? LEAD_BONUS : 1) * (names.length > 0 ? NAME_BOOST : 1),
    };
  });
}

/**
 * The words of each piece. The whole text is segmented once and the words dealt out by offset:
 * segmenting each sentence on its own costs a segmenter set-up per sentence.
 */
function tokensByPiece(text: string, pieces: readonly Sentence[]): Token[][] {
  const out: Token[][] = pieces.map(() => []);
  let at = 0;
  for (const token of tokenize(text)) {
    while (at < pieces.length && token.index >= pieces[at]!.index + pieces[at]!.text.length) at++;
    if (at < pieces.length && token.index >= pieces[at]!.index) out[at]!.push(token);
  }
  return out;
}

function isName(word: string): boolean {
  return /^\p{Lu}/u.test(word);
}

function termWeights(units: readonly Unit[], hintTerms: ReadonlySet<string>): Map<string, number> {
  const frequency = new Map<string, number>();
  for (const unit of units)
    for (const term of unit.terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  const weights = new Map<string, number>();
  const count = units.length;
  for (const [term, df] of frequency) {
    const base = Math.log(1 + count / df);
    weights.set(term, hintTerms.has(term) ? base * HINT_BOOST : base);
  }
  return weights;
}

function score(unit: Unit, weights: ReadonlyMap<string, number>): number {
  if (unit.terms.size === 0) return 0;
  let sum = 0;
  for (const term of unit.terms) sum += weights.get(term) ?? 0;
  // Dividing by the root of the term count favours dense sentences without starving long ones.
  return (sum / Math.sqrt(unit.terms.size)) * unit.bonus;
}

function choose(units: readonly Unit[], initial: ReadonlyMap<string, number>, max: number): Unit[] {
  const weights = new Map(initial);
  const chosen: Unit[] = [];
  const left = new Set(units);
  let used = 0;
  for (;;) {
    let pick: Unit | undefined;
    let pickScore = 0;
    for (const unit of left) {
      const cost = unit.size + (chosen.length > 0 ? 1 : 0);
      if (used + cost > max) continue;
      const value = score(unit, weights);
      if (value > pickScore) [pick, pickScore] = [unit, value];
    }
    if (!pick) break;
    used += pick.size + (chosen.length > 0 ? 1 : 0);
    chosen.push(pick);
    left.delete(pick);
    for (const term of pick.terms) weights.set(term, (weights.get(term) ?? 0) * REDUNDANCY);
  }
  return chosen.sort((a, b) => a.order - b.order);
}

function join(units: readonly Unit[], oneLineMode: boolean): string {
  let out = '';
  for (const unit of units) {
    if (out.length > 0) out += !oneLineMode && unit.newLine ? '\n' : ' ';
    out += unit.text;
  }
  return out;
}

function best(units: readonly Unit[], weights: ReadonlyMap<string, number>): Unit | undefined {
  let top: Unit | undefined;
  let topScore = -1;
  for (const unit of units) {
    const value = score(unit, weights);
    if (value > topScore) [top, topScore] = [unit, value];
  }
  return top;
}

/**
 * A sentence too long for the budget, made into a compact phrase: its content words in order
 * (stop words and repeats dropped), cut at a word boundary if still too long.
 */
function compact(unit: Unit | undefined, max: number): string {
  if (!unit) return '';
  const text = oneLine(unit.text);
  const seen = new Set<string>();
  const words: string[] = [];
  let cjkOnly = true;
  for (const token of tokenize(text)) {
    if (token.stop || seen.has(token.term)) continue;
    seen.add(token.term);
    words.push(token.surface);
    if (!token.cjk) cjkOnly = false;
  }
  if (words.length === 0 || cjkOnly) return fitWords(text, max);
  const phrase = words.join(' ');
  return fitWords(codePointLength(text) <= max ? text : phrase, max);
}
