import { oneLine, withoutLeadingLabel } from '../../core/text.js';
import {
  levelAtDistance,
  levelName,
  SUMMARY_LEVELS,
  VIEW_SECTIONS,
  viewHeading,
  type DetailLevel,
} from '../../core/model/levels.js';
import { formatDate, formatTime } from './origin-view.js';
import type { RadialLine, RadialNode } from '../../core/model/radial.js';
import { fileLines } from '../../core/index-text.js';

/** What a session's context text is made of. */
interface SessionViewInput {
  readonly projectName: string;
  readonly line: RadialLine;
  readonly node: RadialNode;
  readonly level: DetailLevel;
  /** Match confidence 0..1, or undefined for a node loaded by position. */
  readonly confidence: number | undefined;
  /** Required at level 4 (full): the verbatim context. */
  readonly fullContext?: string | undefined;
  /** Older nodes of the same line, nearest first. */
  readonly earlier: readonly RadialNode[];
  /** How many older nodes exist beyond `earlier`. */
  readonly earlierBeyond: number;
  /**
   * A history summary stored with the node (imported from HedgehogMemory); shown when the
   * line holds no earlier nodes to derive one from.
   */
  readonly storedHistory?: string | undefined;
}

/** Level at which a session shows the loaded node's nearest predecessor (then lower with distance). */
const EARLIER_BASE: DetailLevel = 2;

/** Text of a node at a summarised level (0..3), or its label when `level` is undefined. */
export function nodeTextAt(node: RadialNode, level: DetailLevel | undefined): string {
  if (level === undefined) return node.taskLabel;
  const name = SUMMARY_LEVELS[Math.min(level, 3)];
  return name === undefined ? node.taskLabel : node.summaries[name];
}

function percent(confidence: number): string {
  return `${Math.round(confidence * 100)}%`;
}

/**
 * The context text of a loaded node: a short header (project, line, task, time, position,
 * match, level), the node at the requested level (level 4: the verbatim full context), its
 * files, todos and environment from level 3 up, and the earlier tasks of the line, each at a
 * level that drops as it gets further from the loaded node.
 */
export function renderSession(input: SessionViewInput): string {
  const { node, line, level } = input;
  const out: string[] = [
    '=== Loaded task ===',
    `Project: ${input.projectName}`,
    `Line: ${line.name} (${line.id})`,
    `Task: ${node.taskLabel}`,
    `Committed: ${formatTime(node.createdAt)}, position ${node.position} of ${line.nodeCount}`,
    `${input.confidence === undefined ? 'Loaded by position' : `Match: ${percent(input.confidence)}`} | Level ${level} (${levelName(level)})${level < 4 ? ', drill deeper for more' : ', verbatim'}`,
  ];
  if (node.summariesState === 'pending')
    out.push('Summaries: pending (a fallback is shown until they are computed)');
  out.push('', viewHeading(levelName(level)));
  if (level === 4) {
    out.push(fullView(node, input.fullContext ?? ''), ...environmentBlock(node));
  } else {
    const text = nodeTextAt(node, level);
    // The header names the task: the level follows without its own copy of the label.
    out.push(withoutLeadingLabel(text, node.taskLabel) || text);
    // The detailed level lists what it can hold of the files and todos: a block repeats them only
    // when the level (a model's, say) leaves one of them out.
    if (level === 3) out.push(...stateBlocks(node, 20, text), ...environmentBlock(node));
  }
  out.push(...earlierBlock(input));
  return out.join('\n');
}

/**
 * The full view of a node (level 4): the label, the caller's summary, every changed file and
 * open todo, then the verbatim context. Every summarised level is drawn from these parts, so
 * none holds more than this view. (`loadFullState` returns the verbatim context alone.)
 */
function fullView(node: RadialNode, fullContext: string): string {
  const out = [`Task: ${node.taskLabel}`];
  const summary = node.state.conversationSummary.trim();
  if (summary.length > 0) out.push(`Summary: ${summary}`);
  out.push(...stateBlocks(node, Number.POSITIVE_INFINITY));
  out.push('', viewHeading(VIEW_SECTIONS.verbatim), fullContext);
  return out.join('\n');
}

/** The changed files and open todos as view sections, each left out when `shown` holds all of its entries. */
function stateBlocks(node: RadialNode, maxFiles = 20, shown = ''): string[] {
  const out: string[] = [];
  const { fileChanges, todos } = node.state;
  if (fileChanges.length > 0 && !fileChanges.every((f) => shown.includes(f.path))) {
    const lines = fileLines(fileChanges, maxFiles);
    out.push('', viewHeading(VIEW_SECTIONS.changedFiles), ...lines.map((l) => `- ${l}`));
  }
  if (todos.length > 0 && !todos.every((t) => shown.includes(t.trim())))
    out.push('', viewHeading(VIEW_SECTIONS.openTodos), ...todos.map((t) => `- [ ] ${t}`));
  return out;
}

function environmentBlock(node: RadialNode): string[] {
  if (Object.keys(node.state.envSnapshot).length === 0) return [];
  return ['', viewHeading(VIEW_SECTIONS.environment), JSON.stringify(node.state.envSnapshot)];
}

function earlierBlock(input: SessionViewInput): string[] {
  if (input.earlier.length === 0) {
    const stored = input.storedHistory?.trim() ?? '';
    return stored.length > 0 ? ['', viewHeading(VIEW_SECTIONS.earlier), stored] : [];
  }
  const out = ['', viewHeading(VIEW_SECTIONS.earlier)];
  for (const earlier of input.earlier) {
    const level = levelAtDistance(EARLIER_BASE, earlier.position - input.node.position);
    const text =
      level === undefined ? '' : withoutLeadingLabel(oneLine(nodeTextAt(earlier, level)), earlier.taskLabel);
    const gist = text.length === 0 ? '' : `: ${text}`;
    out.push(`- #${earlier.position} ${formatDate(earlier.createdAt)} ${earlier.taskLabel}${gist}`);
  }
  if (input.earlierBeyond > 0)
    out.push(`- … ${input.earlierBeyond} earlier task${input.earlierBeyond === 1 ? '' : 's'}`);
  return out;
}

/**
 * A HedgehogMemory-style accumulated history for a node (export of nodes committed here):
 * its predecessors nearest first, each at the level its distance earns, cut to `maxChars`.
 */
export function derivedHistory(node: RadialNode, earlier: readonly RadialNode[], maxChars = 400): string {
  const parts: string[] = [];
  let used = 0;
  for (const older of earlier) {
    const level = levelAtDistance(1, older.position - node.position);
    const text =
      level === undefined ? '' : withoutLeadingLabel(oneLine(nodeTextAt(older, level)), older.taskLabel);
    const entry = `[${formatDate(older.createdAt)} - ${older.taskLabel}]${text.length === 0 ? '' : `: ${text}`}`;
    const size = [...entry].length + (parts.length > 0 ? 1 : 0);
    if (used + size > maxChars) break;
    parts.push(entry);
    used += size;
  }
  return parts.join('\n');
}
