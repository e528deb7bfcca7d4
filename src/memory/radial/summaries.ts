import {
  codePointLength,
  oneLine,
  sliceCodePoints,
  truncateText,
  withoutLeadingLabel,
} from '../../core/text.js';
import { messagesAsTranscript } from '../../llm/message-transcript.js';
import { summarizesTasks } from '../../llm/offline-summarizer.js';
import type { Summarizer } from '../../llm/types.js';
import { LEVEL_CAPS, SUMMARY_LEVELS, SummaryTier, type SummaryLevelName } from '../../core/model/levels.js';
import type { FileChange, LevelSummaries } from '../../core/model/radial.js';
import { fileLines } from '../../core/index-text.js';

/** The parts of a task that summaries are made from. */
interface TaskText {
  readonly taskLabel: string;
  readonly conversationSummary: string;
  readonly fileChanges: readonly FileChange[];
  readonly todos: readonly string[];
  readonly fullContext: string;
}

/** Summaries that may be partly missing (`undefined` = not computed). */
export type PartialSummaries = Partial<Record<SummaryLevelName, string>>;

export { SummaryTier };

/**
 * Most code points of the full context a model summariser is shown (the offline summariser
 * reads it whole). Everything else of the task (label, conversation summary, files, todos) is
 * always shown whole. A longer context is sampled ({@link sampleContext}): a model has a context
 * limit, and this keeps commit cost bounded however large the verbatim state is (the verbatim
 * text itself is stored and indexed whole).
 */
export const SUMMARY_SOURCE_CONTEXT_MAX = 16_000;
/** How many windows the middle of a sampled context is taken from. */
const SAMPLE_WINDOWS = 6;

/**
 * `text` when it fits `max` code points; otherwise its head (3/8 of the budget), its tail
 * (3/8: where "Done…" and post-mortems sit) and evenly spaced windows over the middle, each cut
 * at line or word boundaries, joined by `…` lines.
 */
export function sampleContext(text: string, max = SUMMARY_SOURCE_CONTEXT_MAX): string {
  if (text.length <= max || codePointLength(text) <= max) return text;
  const share = Math.floor((max * 3) / 8);
  const head = truncateText(text, share).replace(/…$/u, '');
  const tail = tailOf(text, share);
  const start = head.length;
  const stop = text.length - tail.length;
  const windowSize = Math.floor((max - 2 * share) / SAMPLE_WINDOWS) - 2;
  const parts = [head];
  for (let i = 0; i < SAMPLE_WINDOWS && windowSize > 8; i++) {
    const from = start + Math.floor(((i + 1) * (stop - start)) / (SAMPLE_WINDOWS + 1));
    const lineStart = text.lastIndexOf('\n', from);
    let begin = lineStart >= start && from - lineStart < windowSize ? lineStart + 1 : from;
    if ((text.charCodeAt(begin) & 0xfc00) === 0xdc00) begin++; // never start inside a surrogate pair
    const piece = truncateText(sliceCodePoints(text.slice(begin, stop), windowSize + 1), windowSize).trim();
    if (piece.length > 0) parts.push(piece.replace(/…$/u, ''));
  }
  parts.push(tail);
  return parts.join('\n…\n');
}

/** The last `max` code points of `text` or fewer, starting at a line (or word) start. */
function tailOf(text: string, max: number): string {
  const points = [...text.slice(-(max * 2))];
  const raw = points.slice(-max).join('');
  const line = raw.indexOf('\n');
  if (line >= 0 && line < raw.length / 2) return raw.slice(line + 1).trim();
  const space = raw.search(/\s/u);
  return (space >= 0 && space < raw.length / 2 ? raw.slice(space + 1) : raw).trim();
}

/**
 * The text every level is summarised from: the WHOLE task, label first (so extractive
 * summarisers lead with it), then the conversation summary, files, todos and the full context.
 */
export function summarySource(task: TaskText): string {
  const label = task.taskLabel.trim();
  // The label ends as a sentence, so one-line levels do not run it into the next sentence.
  const parts = [/[.!?。！？:;]$/u.test(label) || label.length === 0 ? label : `${label}.`];
  if (task.conversationSummary.trim().length > 0) parts.push(task.conversationSummary.trim());
  if (task.fileChanges.length > 0) parts.push(`Changed files:\n${fileLines(task.fileChanges).join('\n')}`);
  if (task.todos.length > 0) parts.push(`TODOs: ${task.todos.join('; ')}.`);
  const context = messagesAsTranscript(task.fullContext).trim();
  if (context.length > 0) parts.push(sampleContext(context));
  return parts.join('\n\n');
}

/**
 * Makes a summariser's output safe to store for `level`: a string within the level's cap
 * (a model may overrun), on one line for origin and brief (the origin lists one line per line).
 */
function fitLevel(level: SummaryLevelName, text: string): string {
  const flat = level === 'origin' || level === 'brief' ? oneLine(text) : text.trim();
  return codePointLength(flat) <= LEVEL_CAPS[level] ? flat : truncateText(flat, LEVEL_CAPS[level]);
}

/** The outcome of {@link computeSummaries}. */
interface ComputedSummaries {
  readonly summaries: PartialSummaries;
  /** True when every level is present. */
  readonly complete: boolean;
  /** The failure that stopped the computation, if any (the commit goes ahead regardless). */
  readonly error: unknown;
}

/**
 * Computes the missing levels of a task's summaries, most detailed first: `detailed` from the
 * whole task, then each level from the one above (cheap, and a model sees short inputs).
 * Levels already in `known` are kept and used as inputs. Never throws: a summariser failure
 * stops the chain and is returned, leaving the remaining levels missing (pending).
 */
export async function computeSummaries(
  summarizer: Summarizer,
  task: TaskText,
  known: PartialSummaries = {},
): Promise<ComputedSummaries> {
  const out: PartialSummaries = { ...known };
  const hint = task.taskLabel;
  let source: string | undefined;
  try {
    if (summarizesTasks(summarizer) && SUMMARY_LEVELS.some((level) => out[level] === undefined)) {
      const levels = await summarizer.summarizeTask(
        {
          label: task.taskLabel,
          summary: task.conversationSummary,
          files: fileLines(task.fileChanges),
          todos: task.todos,
          context: messagesAsTranscript(task.fullContext),
        },
        LEVEL_CAPS,
      );
      for (const level of SUMMARY_LEVELS) out[level] ??= fitLevel(level, levels[level]);
      return { summaries: out, complete: true, error: undefined };
    }
    for (const level of [...SUMMARY_LEVELS].reverse()) {
      if (out[level] !== undefined) continue;
      const input = inputFor(level, out) ?? (source ??= summarySource(task));
      out[level] =
        level === 'origin'
          ? await originSummary(summarizer, input, hint)
          : await levelSummary(summarizer, level, input, hint);
    }
    return { summaries: out, complete: true, error: undefined };
  } catch (error) {
    return { summaries: out, complete: SUMMARY_LEVELS.every((l) => out[l] !== undefined), error };
  }
}

async function levelSummary(
  summarizer: Summarizer,
  level: SummaryLevelName,
  input: string,
  hint: string,
): Promise<string> {
  const text = await summarizer.summarize(input, LEVEL_CAPS[level], { hint, level });
  if (typeof text !== 'string') throw new TypeError(`summarizer returned ${typeof text} for ${level}`);
  const fitted = fitLevel(level, text);
  return fitted.length > 0 ? fitted : fitLevel(level, hint);
}

/** Below this many code points a label leaves room for a gist in the origin level. */
const ORIGIN_LABEL_ROOM = 56;
const ORIGIN_SEPARATOR = ' — ';

/**
 * The origin level leads with the task label (the origin shows one entry per line and the
 * label is what names the task), followed, room permitting, by a gist of the rest.
 */
async function originSummary(summarizer: Summarizer, input: string, label: string): Promise<string> {
  const head = fitLevel('origin', label);
  const room = LEVEL_CAPS.origin - codePointLength(head) - ORIGIN_SEPARATOR.length;
  if (codePointLength(head) > ORIGIN_LABEL_ROOM || room < 12) return head;
  const rest = withoutLeadingLabel(oneLine(input), label);
  if (rest.length === 0) return head;
  const gist = await summarizer.summarize(rest, room, { hint: label, level: 'origin' });
  if (typeof gist !== 'string') throw new TypeError(`summarizer returned ${typeof gist} for origin`);
  const fitted = fitLevel('origin', gist);
  if (fitted.length === 0 || codePointLength(fitted) > room) return head;
  return `${head}${ORIGIN_SEPARATOR}${fitted}`;
}

/** The nearest more detailed level already known (the input of a chained summary). */
function inputFor(level: SummaryLevelName, known: PartialSummaries): string | undefined {
  for (let i = SUMMARY_LEVELS.indexOf(level) + 1; i < SUMMARY_LEVELS.length; i++) {
    const value = known[SUMMARY_LEVELS[i] as SummaryLevelName];
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * The summaries a view shows for a node, never empty: a stored level as is; a missing one from
 * the nearest stored level (a less detailed one as is, a more detailed one cut to the cap);
 * with nothing stored, a deterministic fallback from the label and conversation summary.
 */
export function resolveSummaries(
  stored: PartialSummaries,
  taskLabel: string,
  conversationSummary: string,
): LevelSummaries {
  const resolve = (level: SummaryLevelName): string => {
    const own = stored[level];
    if (own !== undefined) return own;
    const index = SUMMARY_LEVELS.indexOf(level);
    for (let i = index - 1; i >= 0; i--) {
      const lower = stored[SUMMARY_LEVELS[i] as SummaryLevelName];
      if (lower !== undefined) return lower;
    }
    for (let i = index + 1; i < SUMMARY_LEVELS.length; i++) {
      const higher = stored[SUMMARY_LEVELS[i] as SummaryLevelName];
      if (higher !== undefined) return fitLevel(level, higher);
    }
    return fallbackSummary(level, taskLabel, conversationSummary);
  };
  return {
    origin: resolve('origin'),
    brief: resolve('brief'),
    summary: resolve('summary'),
    detailed: resolve('detailed'),
  };
}

/** Label (and, above the origin level, the conversation summary) cut to the level's cap. */
function fallbackSummary(level: SummaryLevelName, taskLabel: string, conversationSummary: string): string {
  if (level === 'origin' || conversationSummary.trim().length === 0) return fitLevel(level, taskLabel);
  return fitLevel(level, `${taskLabel.trim()}. ${conversationSummary.trim()}`);
}

/** Stored summary columns as a partial map (NULL = missing). */
export function storedSummaries(columns: {
  readonly sOrigin: string | null;
  readonly sBrief: string | null;
  readonly sSummary: string | null;
  readonly sDetailed: string | null;
}): PartialSummaries {
  const out: PartialSummaries = {};
  if (columns.sOrigin !== null) out.origin = columns.sOrigin;
  if (columns.sBrief !== null) out.brief = columns.sBrief;
  if (columns.sSummary !== null) out.summary = columns.sSummary;
  if (columns.sDetailed !== null) out.detailed = columns.sDetailed;
  return out;
}

/** The tier a summariser's output is recorded with. */
export function tierOf(
  summarizer: Summarizer,
  supplied: PartialSummaries,
  computed: PartialSummaries,
): number {
  const allSupplied = SUMMARY_LEVELS.every((level) => supplied[level] !== undefined);
  if (allSupplied) return SummaryTier.supplied;
  if (SUMMARY_LEVELS.every((level) => computed[level] === undefined)) return SummaryTier.none;
  return summarizer.id === 'offline' ? SummaryTier.offline : SummaryTier.model;
}

/** Levels kept as given by the caller (each within its cap, see {@link fitLevel}). */
export function suppliedSummaries(given: Partial<LevelSummaries>): PartialSummaries {
  const out: PartialSummaries = {};
  for (const level of SUMMARY_LEVELS) {
    const value = given[level];
    if (value !== undefined) out[level] = fitLevel(level, value);
  }
  return out;
}
