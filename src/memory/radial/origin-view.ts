import { countTokens } from '../../core/tokens.js';
import { tokenize } from '../../core/index-terms.js';
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
  /** The current scene: its name as shown ('' when its host named none) and its keywords, most used (then most recent) first. */
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
 * How an origin entry shows its line. Parts go, least useful first, so that every line fits:
 * the line's name and the task's gist, then the date, then the count; the newest task's label is
 * what the agent needs most, so it is only ever shortened, to the same length for every line.
 */
export interface EntryShape {
  /** The line's name beside its id, and the newest task's origin-level gist instead of its label. */
  readonly rich: boolean;
  /** How many tasks the line holds. */
  readonly count: boolean;
  /** The day of the newest task. */
  readonly date: boolean;
  /** Most code points of the label or gist (cut at a word, with `…`). */
  readonly labelLength: number;
}

/** Most code points of a label or gist (the origin level's cap). */
const LABEL_MAX = 80;

const WHOLE: EntryShape = { rich: true, count: true, date: true, labelLength: LABEL_MAX };

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `Mar 12` (UTC) of a ms timestamp, with the year when it is not `year` (`Mar 12 2023`): the
 * origin's header states the newest task's full date once, and entries need only the day.
 */
export function shortDate(ms: number, year: number): string {
  const date = new Date(ms);
  const day = `${MONTHS[date.getUTCMonth()] ?? ''} ${date.getUTCDate()}`;
  return date.getUTCFullYear() === year ? day : `${day} ${date.getUTCFullYear()}`;
}

/** The text an entry shows for its newest task, before any cut. */
function entryText(line: LineOverview, rich: boolean): string {
  if (!line.latest) return '';
  const label = oneLine(line.latest.taskLabel);
  return rich ? oneLine(line.latest.sOrigin ?? label) : label;
}

/**
 * The origin's entry for one line: `- id [name]: newest task (4 tasks, Mar 12)`, with the parts
 * `shape` leaves out dropped and the task cut to `shape.labelLength` code points. A line without tasks says
 * so (and, in the rich shape, what it is for). `year` is the year dates are shown without.
 */
export function originEntry(line: LineOverview, shape: EntryShape = WHOLE, year?: number): string {
  const id = oneLine(truncateText(line.id, 40));
  const name = oneLine(truncateText(line.name, 40));
  const head = shape.rich && name.length > 0 && name !== id ? `${id} [${name}]` : id;
  if (!line.latest) {
    const description = shape.rich ? oneLine(truncateText(line.description, 60)) : '';
    return `- ${head}: no tasks yet${description.length > 0 ? ` — ${description}` : ''}`;
  }
  const label = truncateText(entryText(line, shape.rich), shape.labelLength);
  const parts: string[] = [];
  if (shape.count) parts.push(line.nodeCount === 1 ? '1 task' : `${line.nodeCount} tasks`);
  if (shape.date)
    parts.push(shortDate(line.latest.createdAt, year ?? new Date(line.latest.createdAt).getUTCFullYear()));
  const about = parts.join(', ');
  if (label.length === 0) return about.length === 0 ? `- ${head}` : `- ${head}: ${about}`;
  return about.length === 0 ? `- ${head}: ${label}` : `- ${head}: ${label} (${about})`;
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
  const newest = input.lines.reduce<number | undefined>(
    (max, line) =>
      line.latest === undefined || (max ?? -Infinity) >= line.latest.createdAt ? max : line.latest.createdAt,
    undefined,
  );
  const project = oneLine(truncateText(input.projectName, 60));
  const header =
    input.lines.length === 0
      ? `Origin of project "${project}": no task lines yet; a committed task starts one.`
      : `Origin of project "${project}": ${plural(input.lines.length, 'task line')}, ${plural(nodes, 'task')}${newest === undefined ? '' : `, latest ${formatDate(newest)}`}.`;
  const fixed: string[] = [header];
  if (input.profileBrief !== undefined && input.profileBrief.trim().length > 0) {
    const brief = profileLine(input.profileBrief, Math.floor(input.budgetTokens * PROFILE_SHARE));
    if (brief.length > 0) fixed.push(brief);
  }
  const scene = sceneLine(input);
  if (scene.length > 0) fixed.push(scene);
  const footer = input.footer !== undefined && input.footer.length > 0 ? [input.footer] : [];
  const shown = chooseLines(input, fixed, footer, new Date(newest ?? 0).getUTCFullYear());
  return enforceBudget(render(fixed, shown, footer), input.budgetTokens);
}

function render(
  fixed: readonly string[],
  shown: { entries: readonly string[]; folded: { lines: number; nodes: number } },
  footer: readonly string[],
): string {
  const lines = [...fixed];
  if (shown.entries.length > 0) lines.push('Lines:', ...shown.entries);
  if (shown.folded.lines > 0) lines.push(foldLine(shown.folded));
  lines.push(...footer);
  return lines.join('\n');
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
 * of the budget, leaving out those the shown name already says (a named scene with none left is
 * shown by its name); empty when there is no scene or it has no keywords yet.
 */
function sceneLine(input: OriginInput): string {
  const keywords = input.scene?.keywords ?? [];
  if (input.scene === undefined || keywords.length === 0) return '';
  // A scene its host did not name ('') is shown without one (its id says nothing to a reader).
  const name = oneLine(truncateText(oneLine(input.scene.name), SCENE_NAME_MAX));
  const limit = Math.floor(input.budgetTokens * SCENE_SHARE);
  let text = name.length > 0 ? `Current scene "${name}":` : 'Current scene:';
  const named = new Set(tokenize(name));
  for (const keyword of keywords) {
    // A keyword whose every word the scene's name already shows says nothing new beside it.
    const words = tokenize(keyword);
    if (words.length > 0 && words.every((word) => named.has(word))) continue;
    const next = `${text}${text.endsWith(':') ? ' ' : ', '}${oneLine(keyword)}`;
    if (countTokens(next) > limit) break;
    text = next;
  }
  if (!text.endsWith(':')) return text;
  // A named scene whose keywords its name already says (or none of which fits) is shown by name.
  const alone = `Current scene "${name}"`;
  return name.length > 0 && countTokens(alone) <= limit ? alone : '';
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en-US')} ${word}${count === 1 ? '' : 's'}`;
}

function foldLine(folded: { lines: number; nodes: number }): string {
  return `- … ${plural(folded.lines, 'less recently active line')} folded (${plural(folded.nodes, 'task')}); the line list shows them all.`;
}

/** Fewest code points a shortened label keeps before dates, then counts, give up theirs. */
const LABEL_MIN = 32;
/** Fewest code points a shortened label keeps before the least recently active lines are folded. */
const LABEL_FLOOR = 20;
/**
 * How the lines are shown: the `shown` most recently active (the rest folded), of which the
 * `plain` least recently active show no name or gist, the `undated` least recently active no
 * date and the `uncounted` no count; every label cut to `label` code points.
 */
interface Plan {
  readonly shown: number;
  readonly plain: number;
  readonly undated: number;
  readonly uncounted: number;
  readonly label: number;
}

/**
 * Every line is shown if it can be. Entries start whole; while the whole does not fit, the least
 * recently active lines give up their name and gist first, then every label is cut to the same
 * length, the longest that fits (short labels stay whole); when that is under {@link LABEL_MIN}
 * code points, dates go, then counts (least recently active first), and then labels may shrink
 * to {@link LABEL_FLOOR}. Only past that are the least recently active lines folded into one
 * count line, as many as it takes for the others to keep {@link LABEL_MIN}. Each step is found
 * by binary search, so a memory with thousands of lines costs a few hundred token counts.
 * Shown in creation order.
 */
function chooseLines(
  input: OriginInput,
  fixed: readonly string[],
  footer: readonly string[],
  year: number,
): { entries: string[]; folded: { lines: number; nodes: number } } {
  const budget = input.budgetTokens;
  const base = countTokens([...fixed, 'Lines:', ...footer].join('\n')) + 1;
  const lines = [...input.lines].sort((a, b) => lastActivity(b) - lastActivity(a) || b.ord - a.ord);
  const cache = new Map<string, number>();
  const shapeOf = (plan: Plan, i: number): EntryShape => ({
    rich: i < plan.shown - plan.plain,
    date: i < plan.shown - plan.undated,
    count: i < plan.shown - plan.uncounted,
    labelLength: plan.label,
  });
  const cost = (i: number, shape: EntryShape): number => {
    const key = `${i}|${+shape.rich}${+shape.date}${+shape.count}|${shape.labelLength}`;
    let tokens = cache.get(key);
    if (tokens === undefined) {
      tokens = countTokens(originEntry(lines[i] as LineOverview, shape, year)) + 1;
      cache.set(key, tokens);
    }
    return tokens;
  };
  const outcome = (plan: Plan): { entries: string[]; folded: { lines: number; nodes: number } } => {
    const shown = lines.slice(0, plan.shown);
    return {
      entries: shown
        .map((line, i) => ({ line, i }))
        .sort((a, b) => a.line.ord - b.line.ord)
        .map(({ line, i }) => originEntry(line, shapeOf(plan, i), year)),
      folded: foldedOf(input.lines, shown),
    };
  };
  const foldTokens = (shown: number): number =>
    shown < lines.length ? countTokens(foldLine(foldedOf(input.lines, lines.slice(0, shown)))) + 1 : 0;
  // Plans are compared by their entries' summed tokens (cached); the joined text, which a merge
  // across a line break can make a token shorter or longer, is counted only for the plan chosen.
  const sumFits = (plan: Plan): boolean => {
    let total = base + foldTokens(plan.shown);
    for (let i = 0; i < plan.shown && total <= budget; i++) total += cost(i, shapeOf(plan, i));
    return total <= budget;
  };
  const fits = (plan: Plan): boolean =>
    sumFits(plan) && countTokens(render(fixed, outcome(plan), footer)) <= budget;
  /** The plan with the longest label from `floor` up that fits, if any. */
  const longestLabel = (plan: Plan, floor: number): Plan | undefined => {
    if (!sumFits({ ...plan, label: floor })) return undefined;
    let low = floor;
    let high = LABEL_MAX;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (sumFits({ ...plan, label: mid })) low = mid;
      else high = mid - 1;
    }
    for (; low >= floor; low--) if (fits({ ...plan, label: low })) return { ...plan, label: low };
    return undefined;
  };
  /** The smallest `n` in 0..max for which `test(n)` gives a plan (monotone in `n`). */
  const fewest = (max: number, test: (n: number) => Plan | undefined): Plan | undefined => {
    const none = test(0);
    if (none !== undefined) return none;
    if (test(max) === undefined) return undefined;
    let low = 1;
    let high = max;
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      if (test(mid) !== undefined) high = mid;
      else low = mid + 1;
    }
    return test(low);
  };

  const n = lines.length;
  const whole: Plan = { shown: n, plain: 0, undated: 0, uncounted: 0, label: LABEL_MAX };
  const plan = fewest(n, (plain) => (fits({ ...whole, plain }) ? { ...whole, plain } : undefined)) ??
    fewest(n, (undated) => longestLabel({ ...whole, plain: n, undated }, LABEL_MIN)) ??
    fewest(n, (uncounted) => longestLabel({ ...whole, plain: n, undated: n, uncounted }, LABEL_MIN)) ??
    longestLabel({ ...whole, plain: n, undated: n, uncounted: n }, LABEL_FLOOR) ??
    // Folding: as few lines go as it takes for the others to fit with readable labels.
    fewest(n, (folded) =>
      longestLabel(
        { shown: n - folded, plain: n - folded, undated: n - folded, uncounted: n - folded, label: 0 },
        LABEL_MIN,
      ),
    ) ?? { shown: 0, plain: 0, undated: 0, uncounted: 0, label: 0 };
  return outcome(plan);
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
