import { countTokens } from '../core/tokens.js';
import { LEVEL_CAPS } from '../core/model/levels.js';
import { codePointLength } from '../core/text.js';
import type { ContextLevel } from '../core/model/recall.js';
import { sentences } from '../llm/text-analysis.js';

/** Character budgets of the shortened levels (DESIGN.md §1). */
export const LEVEL_CHARS: Readonly<Record<Exclude<ContextLevel, 'full'>, number>> = LEVEL_CAPS;

/** One item offered to the context, best first. */
export interface ContextCandidate {
  /** Where it came from, shown before its text (e.g. `[archive #12 · 2023-05-08 13:56]`). */
  readonly label: string;
  /**
   * The verbatim text. Its lines are kept or left out whole: a shortened level keeps the first
   * sentences of each line that fit, ending in `…`, never a cut word or line.
   */
  readonly full: string;
  /** Stored shorter renderings, when the record has them (otherwise the text is cut). */
  readonly levels?:
    | { readonly brief?: string; readonly summary?: string; readonly detailed?: string }
    | undefined;
}

/** Which levels are tried, in order, for an item at a given rank. */
export interface DetailPlan {
  /** Items ranked below this (0-based) are tried at `full` first. */
  readonly fullTop: number;
  /** Items ranked below this are tried at `summary` first; the rest start at `brief`. */
  readonly summaryTop: number;
}

export const DEFAULT_DETAIL_PLAN: DetailPlan = { fullTop: 3, summaryTop: 10 };

/** The assembled context and which items it holds, at which level. */
export interface AssembledContext {
  readonly context: string;
  readonly usedTokens: number;
  /** For each candidate index included: its level. */
  readonly included: ReadonlyMap<number, ContextLevel>;
}

const SEPARATOR = '\n\n';

/** An item whose verbatim text is this short is shown in full at any rank: shortening it saves little. */
const SHORT_ITEM_CHARS = LEVEL_CHARS.summary;

function levelsFor(rank: number, plan: DetailPlan, candidate: ContextCandidate): ContextLevel[] {
  if (rank < plan.fullTop) return ['full', 'detailed', 'summary', 'brief'];
  const short = codePointLength(candidate.full) <= SHORT_ITEM_CHARS;
  if (rank < plan.summaryTop) return short ? ['full', 'summary', 'brief'] : ['summary', 'brief'];
  return short ? ['full', 'brief'] : ['brief'];
}

function render(candidate: ContextCandidate, level: ContextLevel): string | undefined {
  const stored = level === 'full' ? undefined : candidate.levels?.[level];
  const text =
    level === 'full' ? candidate.full : (stored ?? shortenBySentences(candidate.full, LEVEL_CHARS[level]));
  return text === undefined ? undefined : `${candidate.label}\n${text}`;
}

/**
 * The text within `maxChars` code points without cutting a line mid-sentence: each line is kept
 * whole when it fits, else its first sentences that fit followed by `…`; a line whose first
 * sentence does not fit, and every line after it, is left out. `undefined` when not even the
 * first sentence of the first line fits.
 */
export function shortenBySentences(text: string, maxChars: number): string | undefined {
  if (codePointLength(text) <= maxChars) return text;
  const out: string[] = [];
  let used = 0;
  for (const line of text.split('\n')) {
    const room = maxChars - used - (out.length > 0 ? 1 : 0);
    if (room <= 0) break;
    const kept = codePointLength(line) <= room ? line : firstSentences(line, room);
    if (kept === undefined) break;
    out.push(kept);
    used += codePointLength(kept) + (out.length > 1 ? 1 : 0);
    if (kept !== line) break;
  }
  return out.length > 0 ? out.join('\n') : undefined;
}

/** The leading whole sentences of `line` that fit in `room` code points with a closing `…`. */
function firstSentences(line: string, room: number): string | undefined {
  let end = 0;
  for (const sentence of sentences(line)) {
    const stop = sentence.index + sentence.text.length;
    if (codePointLength(line.slice(0, stop)) + 2 > room) break;
    end = stop;
  }
  return end === 0 ? undefined : `${line.slice(0, end)} …`;
}

/**
 * Fills `budgetTokens` (counted with the real tokenizer) with the candidates in rank order: the
 * top ones at full detail, the next ones shortened (short items stay whole), the rest brief; an
 * item that does not fit at its preferred level is tried shorter, and skipped when even its brief
 * form does not fit. Shortened texts end at a sentence, never inside a word or a line.
 * The result never exceeds the budget: the whole string is counted again at the end.
 */
export function assembleContext(
  candidates: readonly ContextCandidate[],
  budgetTokens: number,
  plan: DetailPlan = DEFAULT_DETAIL_PLAN,
): AssembledContext {
  const pieces: { index: number; level: ContextLevel; text: string }[] = [];
  const separatorTokens = countTokens(SEPARATOR);
  let used = 0;
  candidates.forEach((candidate, index) => {
    if (budgetTokens - used <= 0) return;
    for (const level of levelsFor(index, plan, candidate)) {
      const text = render(candidate, level);
      if (text === undefined) continue;
      const cost = countTokens(text) + (pieces.length > 0 ? separatorTokens : 0);
      if (used + cost > budgetTokens) continue;
      pieces.push({ index, level, text });
      used += cost;
      return;
    }
  });
  // BPE tokens are not strictly additive across a join: recount, and drop from the end if needed.
  let context = pieces.map((p) => p.text).join(SEPARATOR);
  let total = countTokens(context);
  while (total > budgetTokens && pieces.length > 0) {
    pieces.pop();
    context = pieces.map((p) => p.text).join(SEPARATOR);
    total = countTokens(context);
  }
  return { context, usedTokens: total, included: new Map(pieces.map((p) => [p.index, p.level])) };
}
