import { countTokens, tokensWithin } from '../core/tokens.js';
import { LEVEL_CAPS } from '../core/model/levels.js';
import { oneLine, truncateText } from '../core/text.js';
import type { ContextLevel } from '../core/model/recall.js';

/** Character budgets of the shortened levels (DESIGN.md §1). */
export const LEVEL_CHARS: Readonly<Record<Exclude<ContextLevel, 'full'>, number>> = LEVEL_CAPS;

/** One item offered to the context, best first. */
export interface ContextCandidate {
  /** When and where it came from, shown before its text (e.g. `[2023-05-08 13:56 · ops review · user]`). */
  readonly label: string;
  /** The label once an earlier item of the same `group` is in the context (it names the group once). */
  readonly repeatLabel?: string | undefined;
  /** Items of one group (a scene) share what the first one's label says. */
  readonly group?: string | undefined;
  /** The verbatim text. */
  readonly full: string;
  /** Stored shorter renderings, when the record has them (otherwise the text is cut). */
  readonly levels?:
    | { readonly brief?: string; readonly summary?: string; readonly detailed?: string }
    | undefined;
}

/** Which levels are tried, in order, for an item at a given rank. */
interface DetailPlan {
  /** Items ranked below this (0-based) are tried at `full` first. */
  readonly fullTop: number;
  /** Items ranked below this are tried at `summary` first; the rest start at `brief`. */
  readonly summaryTop: number;
}

const DEFAULT_DETAIL_PLAN: DetailPlan = { fullTop: 3, summaryTop: 10 };

/** The assembled context and which items it holds, at which level. */
interface AssembledContext {
  readonly context: string;
  readonly usedTokens: number;
  /** For each candidate index included: its level. */
  readonly included: ReadonlyMap<number, ContextLevel>;
}

const SEPARATOR = '\n\n';

function levelsFor(rank: number, plan: DetailPlan): ContextLevel[] {
  if (rank < plan.fullTop) return ['full', 'detailed', 'summary', 'brief'];
  if (rank < plan.summaryTop) return ['summary', 'brief'];
  return ['brief'];
}

function render(candidate: ContextCandidate, level: ContextLevel, label: string): string {
  const stored = level === 'full' ? undefined : candidate.levels?.[level];
  const text =
    level === 'full'
      ? candidate.full
      : (stored ??
        (candidate.full.length <= LEVEL_CHARS[level]
          ? candidate.full
          : truncateText(oneLine(candidate.full), LEVEL_CHARS[level])));
  return `${label}\n${text}`;
}

/**
 * Fills `budgetTokens` (counted with the real tokenizer) with the candidates in rank order: the
 * top ones at full detail, the next ones shortened, the rest brief; an item that does not fit
 * at its preferred level is tried shorter, and skipped when even its brief form does not fit.
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
  const named = new Set<string>();
  candidates.forEach((candidate, index) => {
    if (budgetTokens - used <= 0) return;
    const group = candidate.group;
    const label =
      group !== undefined && named.has(group) ? (candidate.repeatLabel ?? candidate.label) : candidate.label;
    for (const level of levelsFor(index, plan)) {
      const text = render(candidate, level, label);
      const separator = pieces.length > 0 ? separatorTokens : 0;
      const tokens = tokensWithin(text, budgetTokens - used - separator);
      if (tokens === undefined) continue;
      pieces.push({ index, level, text });
      if (group !== undefined) named.add(group);
      used += tokens + separator;
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
