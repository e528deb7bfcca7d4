import { countTokens } from '../../core/tokens.js';
import { oneLine, sliceCodePoints, truncateText } from '../../core/text.js';
import type { LineOverview } from '../../store/radial-repo.js';
import { keptValueLength, MIN_CUT_VALUE } from '../profile/profile-brief.js';

/** What the origin shows. */
interface OriginInput {
  readonly projectName: string;
  /**
   * Who the agent is (from its profile), one field per line (`role: …`), or undefined. The
   * origin shows the fields on one line, whole, in order, while they fit the profile's share.
   */
  readonly profileBrief: string | undefined;
  /** Every line with its newest node, in creation order. */
  readonly lines: readonly LineOverview[];
  /** Most tokens the whole text may take (counted with {@link countTokens}). */
  readonly budgetTokens: number;
  /** A last line (e.g. what to do next), counted in the budget. */
  readonly footer?: string | undefined;
  /** The current scene's keywords, most used (then most recent) first: the conversation the agent is in. */
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

/**
 * How much of a line an origin entry shows, richest first. What a line is about (its newest
 * task's label) is worth more to the agent than the date, so the date goes before the label.
 */
type EntryForm = 'full' | 'label' | 'undated' | 'bare' | 'short' | 'count';
const FORMS: readonly EntryForm[] = ['full', 'label', 'undated', 'bare', 'short', 'count'];

/** Most code points of the newest task's label an entry shows, by form. */
const LABEL_MAX: Readonly<Record<Exclude<EntryForm, 'full' | 'count'>, number>> = {
  label: 40,
  undated: 40,
  bare: 40,
  short: 24,
};

/**
 * The origin's entry for one line: its id, its newest task at the origin level (`full`: the
 * line's name, the task's label and gist; `label`, `undated` and `bare`: the label; `short`:
 * the label cut short; `count`: nothing), how many tasks it holds (left out by `bare` and
 * `short`, which spend their tokens on the label) and, in the two richest forms, the date of the
 * newest.
 */
export function originEntry(line: LineOverview, form: EntryForm = 'full'): string {
  const id = oneLine(truncateText(line.id, 40));
  const name = oneLine(truncateText(line.name, 40));
  const head = form === 'full' && name.length > 0 && name !== id ? `${id} [${name}]` : id;
  if (!line.latest) {
    const description = form === 'full' ? oneLine(truncateText(line.description, 60)) : '';
    return `- ${head}: no tasks yet${description.length > 0 ? ` — ${description}` : ''}`;
  }
  const count = line.nodeCount === 1 ? '1 task' : `${line.nodeCount} tasks`;
  if (form === 'count') return `- ${id}: ${count}`;
  const gist =
    form === 'full'
      ? oneLine(line.latest.sOrigin ?? truncateText(line.latest.taskLabel, 80))
      : truncateText(oneLine(line.latest.taskLabel), LABEL_MAX[form]);
  if (form === 'bare' || form === 'short') return `- ${head}: ${gist}`;
  const tail = form === 'full' || form === 'label' ? `${count}, ${formatDate(line.latest.createdAt)}` : count;
  return `- ${head}: ${gist} (${tail})`;
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
    const brief = profileLine(input.profileBrief, Math.floor(input.budgetTokens * PROFILE_SHARE));
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
 * `Agent: field; field; …` within `limit` tokens: fields are added whole, in order; the first
 * that does not fit is cut only when the cut keeps some of its value (a field is never shown
 * as a bare label such as `emotions:…`), and the rest are left out.
 */
function profileLine(brief: string, limit: number): string {
  const fields = brief
    .split('\n')
    .map((field) => oneLine(field))
    .filter((field) => field.length > 0);
  const head = 'Agent:';
  let text = head;
  for (const field of fields) {
    const prefix = `${text}${text === head ? ' ' : '; '}`;
    const next = `${prefix}${field}`;
    if (countTokens(next) <= limit) {
      text = next;
      continue;
    }
    const cut = fitTokens(next, limit);
    if (cut.startsWith(prefix) && keptValueLength(field, cut.slice(prefix.length)) >= MIN_CUT_VALUE)
      text = cut;
    break;
  }
  return text === head ? '' : text;
}

/** Most code points of the scene name the origin shows. */
const SCENE_NAME_MAX = 24;

/**
 * The current scene's keywords in the order given (most used first), cut to the scene's share
 * of the budget; empty when there is no scene or it has no keywords yet.
 */
function sceneLine(input: OriginInput): string {
  const keywords = input.scene?.keywords ?? [];
  if (input.scene === undefined || keywords.length === 0) return '';
  const name = oneLine(truncateText(oneLine(input.scene.name), SCENE_NAME_MAX));
  const limit = Math.floor(input.budgetTokens * SCENE_SHARE);
  let text = `Current scene "${name}":`;
  for (const keyword of keywords) {
    const next = `${text}${text.endsWith(':') ? ' ' : ', '}${oneLine(keyword)}`;
    if (countTokens(next) > limit) break;
    text = next;
  }
  return text.endsWith(':') ? '' : text;
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}

function foldLine(folded: { lines: number; nodes: number }): string {
  return `- … ${plural(folded.lines, 'less recently active line')} folded (${plural(folded.nodes, 'task')}); the line list shows them all.`;
}

/**
 * Every line is shown if it can be: entries start in their richest form, and while the whole
 * does not fit, entries are shortened round by round (the gist goes, then the date, the count,
 * half the label, and last the label, leaving the count), the least recently active first in each
 * round. Only when every entry is compact and still too many are the least recently active lines
 * folded into one count line. Shown in creation order.
 */
function chooseLines(
  input: OriginInput,
  fixed: readonly string[],
): { entries: string[]; folded: { lines: number; nodes: number } } {
  const byRecency = [...input.lines].sort((a, b) => lastActivity(b) - lastActivity(a) || b.ord - a.ord);
  const shown = byRecency.map((line) => ({
    line,
    form: 0,
    tokens: countTokens(originEntry(line, 'full')) + 1,
  }));
  const base = countTokens([...fixed, 'Lines:'].join('\n')) + 1;
  let sum = shown.reduce((total, s) => total + s.tokens, 0);
  const foldTokens = (): number =>
    shown.length < input.lines.length
      ? countTokens(
          foldLine(
            foldedOf(
              input.lines,
              shown.map((s) => s.line),
            ),
          ),
        ) + 1
      : 0;
  // Round by round (gist, date, long label, label dropped), the least recently active first.
  rounds: for (let form = 0; form < FORMS.length - 1; form++) {
    for (let i = shown.length - 1; i >= 0; i--) {
      if (base + sum <= input.budgetTokens) break rounds;
      const entry = shown[i] as (typeof shown)[number];
      if (entry.form !== form) continue;
      entry.form++;
      const tokens = countTokens(originEntry(entry.line, FORMS[entry.form])) + 1;
      sum += tokens - entry.tokens;
      entry.tokens = tokens;
    }
  }
  // Then the least recently active lines are folded, until the whole text (counted as joined) fits.
  while (shown.length > 0 && base + sum + foldTokens() > input.budgetTokens) sum -= shown.pop()?.tokens ?? 0;
  while (shown.length > 0 && countTokens(render(fixed, shown, input.lines).join('\n')) > input.budgetTokens)
    sum -= shown.pop()?.tokens ?? 0;
  const folded = foldedOf(
    input.lines,
    shown.map((s) => s.line),
  );
  const entries = [...shown]
    .sort((a, b) => a.line.ord - b.line.ord)
    .map((s) => originEntry(s.line, FORMS[s.form]));
  return { entries, folded };
}

function render(
  fixed: readonly string[],
  shown: readonly { line: LineOverview; form: number }[],
  all: readonly LineOverview[],
): string[] {
  const folded = foldedOf(
    all,
    shown.map((s) => s.line),
  );
  const entries = [...shown]
    .sort((a, b) => a.line.ord - b.line.ord)
    .map((s) => originEntry(s.line, FORMS[s.form]));
  return [
    ...fixed,
    ...(entries.length > 0 ? ['Lines:', ...entries] : []),
    ...(folded.lines > 0 ? [foldLine(folded)] : []),
  ];
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
