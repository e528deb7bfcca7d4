import { countTokens } from '../../core/tokens.js';
import { oneLine, sliceCodePoints, truncateText } from '../../core/text.js';
import type { LineOverview } from '../../store/radial-repo.js';

/** What the origin shows. */
export interface OriginInput {
  readonly projectName: string;
  /** One line about the agent (from its profile), or undefined. */
  readonly profileBrief: string | undefined;
  /** Every line with its newest node, in creation order. */
  readonly lines: readonly LineOverview[];
  /** Most tokens the whole text may take (counted with {@link countTokens}). */
  readonly budgetTokens: number;
  /** A last line (e.g. what to do next), counted in the budget. */
  readonly footer?: string | undefined;
  /** The current scene's keywords, newest last (the conversation the agent is in). */
  readonly scene?: { readonly name: string; readonly keywords: readonly string[] } | undefined;
}

/** Share of the budget the profile line may take at most. */
const PROFILE_SHARE = 0.3;
/** Share of the budget the current scene's keywords may take at most. */
const SCENE_SHARE = 0.1;

/** `YYYY-MM-DD` of a ms timestamp (UTC). */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD HH:MM UTC` of a ms timestamp. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The origin's entry for one line: its newest node at the origin level, its size and age. */
export function originEntry(line: LineOverview): string {
  const id = oneLine(truncateText(line.id, 40));
  const name = oneLine(truncateText(line.name, 40));
  const head = name.length > 0 && name !== id ? `${id} [${name}]` : id;
  if (!line.latest) {
    const description = oneLine(truncateText(line.description, 80));
    return `- ${head}: no tasks yet${description.length > 0 ? ` — ${description}` : ''}`;
  }
  const gist = oneLine(line.latest.sOrigin ?? truncateText(line.latest.taskLabel, 80));
  const count = line.nodeCount === 1 ? '1 task' : `${line.nodeCount} tasks`;
  return `- ${head}: ${gist} (${count}, latest ${formatDate(line.latest.createdAt)})`;
}

function lastActivity(line: LineOverview): number {
  return line.latest?.createdAt ?? line.createdAt;
}

/** The longest prefix of `text` (cut at a word, with `…`) within `limit` tokens. */
export function fitTokens(text: string, limit: number): string {
  if (limit <= 0) return '';
  if (countTokens(text) <= limit) return text;
  const points = [...text];
  let low = 0;
  let high = points.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (countTokens(truncateText(text, mid)) <= limit) low = mid;
    else high = mid - 1;
  }
  return low === 0 ? '' : truncateText(text, low);
}

/**
 * The origin: the always-in-context overview of an agent's radial memory. One entry per line
 * (its newest node at the origin level; older nodes only counted: abstraction grows with
 * distance), the profile brief on top, and it always fits `budgetTokens`: when the lines do not
 * all fit, the least recently active ones are folded into one count line.
 */
export function buildOrigin(input: OriginInput): string {
  const nodes = input.lines.reduce((sum, line) => sum + line.nodeCount, 0);
  const project = oneLine(truncateText(input.projectName, 60));
  const header =
    input.lines.length === 0
      ? `Origin of project "${project}": no task lines yet; a committed task starts one.`
      : `Origin of project "${project}": ${plural(input.lines.length, 'task line')}, ${plural(nodes, 'task')}.`;
  const fixed: string[] = [header];
  if (input.profileBrief !== undefined && input.profileBrief.trim().length > 0) {
    const brief = fitTokens(
      `Agent: ${oneLine(input.profileBrief)}`,
      Math.floor(input.budgetTokens * PROFILE_SHARE),
    );
    if (brief.length > 0) fixed.push(brief);
  }
  const scene = sceneLine(input);
  if (scene.length > 0) fixed.push(scene);
  const footer = input.footer !== undefined && input.footer.length > 0 ? [input.footer] : [];
  const shown = chooseLines(input, [...fixed, ...footer]);
  const lines = [...fixed];
  if (shown.entries.length > 0) lines.push('Lines:', ...shown.entries);
  if (shown.folded.lines > 0) lines.push(foldLine(shown.folded));
  lines.push(...footer);
  return enforceBudget(lines.join('\n'), input.budgetTokens);
}

/**
 * The current scene's keywords, newest first (what the conversation is about now), cut to the
 * scene's share of the budget; empty when there is no scene or it has no keywords yet.
 */
function sceneLine(input: OriginInput): string {
  const keywords = input.scene?.keywords ?? [];
  if (input.scene === undefined || keywords.length === 0) return '';
  const name = oneLine(truncateText(input.scene.name, 40));
  const newestFirst = [...keywords].reverse().map((keyword) => oneLine(keyword));
  return fitTokens(
    `Current scene "${name}": ${newestFirst.join(', ')}`,
    Math.floor(input.budgetTokens * SCENE_SHARE),
  );
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}

function foldLine(folded: { lines: number; nodes: number }): string {
  return `- … ${plural(folded.lines, 'less recently active line')} folded (${plural(folded.nodes, 'task')}); listLines() shows every line.`;
}

/** Greedy: the most recently active lines first, while their entries fit; shown in creation order. */
function chooseLines(
  input: OriginInput,
  fixed: readonly string[],
): { entries: string[]; folded: { lines: number; nodes: number } } {
  const total = { lines: input.lines.length, nodes: input.lines.reduce((s, l) => s + l.nodeCount, 0) };
  let used = countTokens([...fixed, 'Lines:'].join('\n')) + 1;
  const reserve = countTokens(foldLine(total)) + 1;
  const byRecency = [...input.lines].sort((a, b) => lastActivity(b) - lastActivity(a) || b.ord - a.ord);
  const chosen: { line: LineOverview; entry: string; tokens: number }[] = [];
  for (const [i, line] of byRecency.entries()) {
    const entry = originEntry(line);
    const tokens = countTokens(entry) + 1;
    const last = i === byRecency.length - 1;
    if (used + tokens + (last ? 0 : reserve) > input.budgetTokens) break;
    chosen.push({ line, entry, tokens });
    used += tokens;
  }
  // Token counts of joined text can differ slightly from the sum of the parts: verify, and drop
  // the least recently active entry until the whole fits.
  for (;;) {
    const folded = foldedOf(
      input.lines,
      chosen.map((c) => c.line),
    );
    const text = [
      ...fixed,
      ...(chosen.length > 0 ? ['Lines:', ...chosen.map((c) => c.entry)] : []),
      ...(folded.lines > 0 ? [foldLine(folded)] : []),
    ].join('\n');
    if (chosen.length === 0 || countTokens(text) <= input.budgetTokens) {
      const entries = [...chosen].sort((a, b) => a.line.ord - b.line.ord).map((c) => c.entry);
      return { entries, folded };
    }
    chosen.pop();
  }
}

function foldedOf(
  all: readonly LineOverview[],
  shown: readonly LineOverview[],
): { lines: number; nodes: number } {
  const ids = new Set(shown.map((l) => l.id));
  const rest = all.filter((l) => !ids.has(l.id));
  return { lines: rest.length, nodes: rest.reduce((s, l) => s + l.nodeCount, 0) };
}

/** The last guard: whatever happened above, the text never exceeds the budget. */
function enforceBudget(text: string, budget: number): string {
  if (countTokens(text) <= budget) return text;
  return fitTokens(sliceCodePoints(text, budget * 8), budget);
}
