import { countTokens, tokensWithin } from '../core/tokens.js';
import { LEVEL_CAPS } from '../core/model/levels.js';
import type { ContextLevel } from '../core/model/recall.js';
import { fitSpan } from './text-fit.js';
import { withoutLeadingLabel } from '../core/text.js';

/** Character budgets of the shortened levels (DESIGN.md §1). */
export const LEVEL_CHARS: Readonly<Record<Exclude<ContextLevel, 'full'>, number>> = LEVEL_CAPS;

/** One rendering of an item: its lines, each complete (never cut inside a sentence). */
export interface ContextForm {
  readonly level: ContextLevel;
  readonly lines: readonly string[];
}

/** One item offered to the context, best first. */
export interface ContextCandidate {
  /** When and where it came from, shown before its text (e.g. `[2023-05-08 13:56 · ops review · user]`). */
  readonly label: string;
  /** The label once an earlier item of the same `group` is in the context (it names the group once). */
  readonly repeatLabel?: string | undefined;
  /** Items of one group (a scene) share what the first one's label says. */
  readonly group?: string | undefined;
  /** Its renderings, richest first; the first that fits is shown. */
  readonly forms: readonly ContextForm[];
}

/** Which levels are tried, in order, for a record at a given rank. */
export interface DetailPlan {
  /** Items ranked below this (0-based) are tried at `full` first. */
  readonly fullTop: number;
  /** Items ranked below this are tried at `summary` first; the rest start at `brief`. */
  readonly summaryTop: number;
}

export const DEFAULT_DETAIL_PLAN: DetailPlan = { fullTop: 3, summaryTop: 10 };

/** The assembled context and which items it holds, at which level. */
interface AssembledContext {
  readonly context: string;
  readonly usedTokens: number;
  /** For each candidate index included: its level. */
  readonly included: ReadonlyMap<number, ContextLevel>;
}

const SEPARATOR = '\n\n';

/**
 * Items in a row that did not fit after which the context is taken as full: what is left of
 * the budget is smaller than what the items ranked next need, and working out their
 * renderings would cost more than the few tokens they might still fill.
 */
const MAX_MISSES = 12;

/** The levels a record at `rank` is tried at, richest first. */
export function levelsFor(rank: number, plan: DetailPlan = DEFAULT_DETAIL_PLAN): ContextLevel[] {
  if (rank < plan.fullTop) return ['full', 'detailed', 'summary', 'brief'];
  if (rank < plan.summaryTop) return ['summary', 'brief'];
  return ['brief'];
}

/** The most characters a record's text keeps at a level (`full`: no limit). */
export function levelChars(level: ContextLevel): number {
  return level === 'full' ? Number.POSITIVE_INFINITY : LEVEL_CHARS[level];
}

/**
 * The renderings of one record at `rank`: its full text, its stored shorter levels, or its
 * sentences nearest the query within each level's characters (never a cut sentence or line).
 * A text that a stored level holds whole (a task found by its label, whose levels start with
 * that label) is no rendering of its own: the stored level says it and more.
 */
export function recordForms(
  full: string,
  levels: { readonly brief?: string; readonly summary?: string; readonly detailed?: string } | undefined,
  rank: number,
  stems: ReadonlySet<string>,
  plan: DetailPlan = DEFAULT_DETAIL_PLAN,
  title?: string,
): ContextForm[] {
  const forms: ContextForm[] = [];
  for (const level of levelsFor(rank, plan)) {
    const stored = level === 'full' ? undefined : levels?.[level];
    // A stored level opens with the task's label, which the item's own label (`title`) already shows.
    const shown =
      stored !== undefined && title !== undefined ? withoutLeadingLabel(stored, title) || stored : stored;
    const text = level === 'full' ? full : (shown ?? fitSpan(full, levelChars(level), stems));
    if (text === undefined || text.length === 0) continue;
    if (forms.some((f) => f.lines.join('\n') === text)) continue;
    if (stored === undefined && heldByStoredLevel(text, levels)) continue;
    forms.push({ level, lines: [text] });
  }
  return forms;
}

function heldByStoredLevel(
  text: string,
  levels: { readonly brief?: string; readonly summary?: string; readonly detailed?: string } | undefined,
): boolean {
  if (levels === undefined) return false;
  return [levels.detailed, levels.summary, levels.brief].some(
    (level) => level !== undefined && level.length > text.length && level.includes(text),
  );
}

/** One chosen item: its text without and with its label. */
interface Piece {
  readonly index: number;
  readonly level: ContextLevel;
  readonly text: string;
}

/**
 * Fills `budgetTokens` (counted with the real tokenizer) with the candidates in rank order, each
 * at the first of its forms that fits; an item none of whose forms fits is skipped. Items of one
 * group (a scene) are shown together under the group's label, groups in the order of their best
 * item and items in rank order within it; a later item carries its short repeat label only when
 * that says something new (another time). A line already in the context is not shown again (an
 * item left with nothing new is skipped). The result never exceeds the budget: the whole string
 * is counted again at the end.
 */
export function assembleContext(
  candidates: readonly ContextCandidate[],
  budgetTokens: number,
): AssembledContext {
  const separatorTokens = countTokens(SEPARATOR);
  const groups = new Map<string, { pieces: Piece[]; said: string }>();
  const chosen: { key: string; piece: Piece }[] = [];
  const shown = new Set<string>();
  let used = 0;
  let misses = 0;
  candidates.forEach((candidate, index) => {
    if (budgetTokens - used <= 0 || misses >= MAX_MISSES) return;
    const key = candidate.group === undefined ? `\u0000${index}` : candidate.group;
    const group = groups.get(key);
    const said = candidate.repeatLabel ?? candidate.label;
    const label = group === undefined ? candidate.label : group.said === said ? '' : said;
    const separator = chosen.length > 0 ? separatorTokens : 0;
    // A piece is its label, a line break and at least one token of text: when the label alone
    // leaves no room, none of the item's renderings can fit (and they need not be worked out).
    if (label.length > 0 && tokensWithin(label, budgetTokens - used - separator - 1) === undefined) {
      misses++;
      return;
    }
    misses++;
    for (const form of candidate.forms) {
      const lines = form.lines.filter((line) => !shown.has(line));
      if (lines.length === 0) return;
      const body = lines.join('\n');
      const text = label.length > 0 ? `${label}\n${body}` : body;
      const tokens = tokensWithin(text, budgetTokens - used - separator);
      if (tokens === undefined) continue;
      const piece = { index, level: form.level, text };
      if (group === undefined) groups.set(key, { pieces: [piece], said });
      else {
        group.pieces.push(piece);
        group.said = said;
      }
      chosen.push({ key, piece });
      for (const line of lines) shown.add(line);
      used += tokens + separator;
      misses = 0;
      return;
    }
  });
  const render = (): string =>
    [...groups.values()].flatMap((g) => g.pieces.map((p) => p.text)).join(SEPARATOR);
  // BPE tokens are not strictly additive across a join: recount, and drop the last chosen if needed.
  let context = render();
  let total = countTokens(context);
  while (total > budgetTokens && chosen.length > 0) {
    const last = chosen.pop() as { key: string; piece: Piece };
    const group = groups.get(last.key);
    group?.pieces.pop();
    if (group?.pieces.length === 0) groups.delete(last.key);
    context = render();
    total = countTokens(context);
  }
  return {
    context,
    usedTokens: total,
    included: new Map(chosen.map(({ piece }) => [piece.index, piece.level])),
  };
}
