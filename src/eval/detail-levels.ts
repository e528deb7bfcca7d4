/**
 * The detail-level evaluation of issue 19 on a set of completed agent tasks (the format of
 * `/work/shared/data/detail-levels.md`): every task is committed through the public radial API
 * (offline summariser), and each level is judged beside the head…tail cut of the same input.
 *
 * Rules (defined here, from detail-levels.md):
 * - **A fact is kept** by a text when any of its patterns, compiled with `new RegExp(p, 'i')`,
 *   matches the text with its whitespace runs collapsed to one space.
 * - **Levels** are split into pieces at line breaks, a `…` before a space (it separates extracts), and sentence
 *   ends; a piece of 20 code points or more is **tool output** when its collapsed text occurs in
 *   the task's `[tool:*]` blocks and nowhere else in the task (label, caller summary, files, prose).
 * - **A torn token** is a whitespace-delimited token of a level that is not a token of the
 *   input, nor a prefix of one followed by the `…` that marks a cut, nor a word of the level's
 *   layout (the separators `—` and `…`, the headings `Changed files:` and `TODOs:`, the `;`
 *   that joins todos).
 * - **Cut mid-sentence**: a level that ends neither with `. ! ? 。 ！ ？` (closing quotes or
 *   brackets allowed after it), nor with `…`, nor with a whole part the caller wrote (the
 *   label, a title; the caller's summary).
 * - **Navigation**: with all tasks committed, each question goes through `navigate` without a
 *   line; top-1 is a hit when the first candidate is the question's task.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { HedgehopError } from '../core/errors.js';
import { openMemory } from '../api/memory-db.js';
import { LEVEL_CAPS, SUMMARY_LEVELS, type SummaryLevelName } from '../core/model/levels.js';

const taskSchema = z.object({
  id: z.string(),
  line: z.string(),
  taskLabel: z.string(),
  conversationSummary: z.string(),
  fileChanges: z.array(
    z.object({
      path: z.string(),
      changeType: z.enum(['created', 'modified', 'deleted']),
      diffSummary: z.string(),
    }),
  ),
  todos: z.array(z.string()),
  fullContext: z.string(),
  decisionAt: z.enum(['start', 'middle', 'end']),
  keyFacts: z.array(z.object({ fact: z.string(), patterns: z.array(z.string()).min(1) })).min(1),
  questions: z.array(z.object({ q: z.string(), kind: z.enum(['lexical', 'paraphrase']) })),
});

const fileSchema = z.object({
  version: z.literal(1),
  lines: z.array(z.tuple([z.string(), z.string(), z.string()])),
  tasks: z.array(taskSchema).min(1),
});

/** One task of the set. */
export type DetailTask = z.infer<typeof taskSchema>;
/** The whole set. */
export type DetailSet = z.infer<typeof fileSchema>;

/** Reads and validates a detail-levels file (`INVALID_INPUT` naming what is wrong). */
export async function loadDetailSet(path: string): Promise<DetailSet> {
  const parsed = fileSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HedgehopError(
      'INVALID_INPUT',
      `${path}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
    );
  }
  return parsed.data;
}

/** Figures of one way of making levels (ours or the baseline). */
export interface LevelFigures {
  /** Per level: facts kept (all), primary facts kept (one per task). */
  readonly kept: Readonly<Record<SummaryLevelName, { all: number; primary: number }>>;
  readonly overCap: number;
  readonly tornTokens: number;
  readonly cutMidSentence: number;
  /** Tool-output pieces and all pieces of the brief and summary levels. */
  readonly toolPieces: number;
  readonly pieces: number;
  /** Facts kept at a level but lost at a more detailed one. */
  readonly lostHigher: number;
  /** Levels longer than the next level (full view included for ours). */
  readonly longerThanNext: number;
  /** Examples of torn tokens (at most 10), for the reader. */
  readonly tornExamples: readonly string[];
}

/** The report of {@link evaluateDetailLevels}. */
export interface DetailReport {
  readonly tasks: number;
  readonly facts: number;
  readonly ours: LevelFigures;
  readonly headTail: LevelFigures;
  readonly navigation: {
    readonly top1: number;
    readonly questions: number;
    readonly paraphraseTop1: number;
    readonly paraphrases: number;
  };
  /** Each task's levels as committed (for reading). */
  readonly levels: readonly {
    readonly id: string;
    readonly levels: Readonly<Record<SummaryLevelName, string>>;
  }[];
}

/** HedgehogMemory's cut: `text` when it fits, else its first and last h code points around ` … `. */
export function headTailCut(text: string, max: number): string {
  const trimmed = text.trim();
  const points = [...trimmed];
  if (points.length <= max) return trimmed;
  const h = Math.floor((max - 6) / 2);
  return `${points.slice(0, h).join('')} … ${points.slice(-h).join('')}`;
}

/** Everything a task holds, whole: label, caller summary, files, todos and the full context. */
export function wholeInput(task: DetailTask): string {
  const parts = [
    task.taskLabel,
    task.conversationSummary,
    ...task.fileChanges.map((f) => `[${f.changeType}] ${f.path}: ${f.diffSummary}`),
    ...task.todos,
    task.fullContext,
  ];
  return parts.filter((p) => p.trim().length > 0).join('\n\n');
}

const collapse = (text: string): string => text.replace(/\s+/gu, ' ').trim();

/** True when `text` keeps the fact (any pattern matches the collapsed text). */
export function keepsFact(text: string, patterns: readonly string[]): boolean {
  const flat = collapse(text);
  return patterns.some((pattern) => new RegExp(pattern, 'i').test(flat));
}

interface Blocks {
  /** The whole input, whitespace collapsed. */
  readonly flat: string;
  readonly tool: string;
  readonly other: string;
  readonly tokens: ReadonlySet<string>;
}

// A block's header, alone on its line or with the block's first words after it (`[user] Why …`,
// `[tool: bash] npm test`): those words belong to the block it opens.
const HEADER_RE = /^\[(user|human|assistant|system|tool[^\]]*)\](?:\s+(.*))?$/u;

function blocksOf(task: DetailTask): Blocks {
  const tool: string[] = [];
  const other: string[] = [task.taskLabel, task.conversationSummary, ...task.todos];
  for (const file of task.fileChanges) other.push(file.path, file.diffSummary);
  let inTool = false;
  for (const line of task.fullContext.split('\n')) {
    const header = HEADER_RE.exec(line.trim());
    if (header) {
      inTool = (header[1] ?? '').startsWith('tool');
      // A call's line (`[tool: bash] npm test`) is tool output whole, as the summariser reads it.
      if (header[2] !== undefined && inTool) tool.push(line);
      else if (header[2] !== undefined) other.push(header[2]);
      continue;
    }
    (inTool ? tool : other).push(line);
  }
  const source = wholeInput(task);
  const tokens = new Set(`${source}\n${task.fullContext}`.split(/\s+/u).filter((t) => t.length > 0));
  return {
    flat: collapse(source),
    tool: collapse(tool.join('\n')),
    other: collapse(other.join('\n')),
    tokens,
  };
}

const SEPARATOR_RE = /\n|\s?…\s|(?<=[.!?。！？])\s+/u;

function piecesOf(text: string): string[] {
  return text
    .split(SEPARATOR_RE)
    .map((p) => collapse(p.replace(/^…|…$/gu, '')))
    .filter((p) => p.length > 0);
}

function isToolPiece(piece: string, blocks: Blocks): boolean {
  return [...piece].length >= 20 && blocks.tool.includes(piece) && !blocks.other.includes(piece);
}

/** Words a level's layout adds: separators and the headings of files and todos. */
const LAYOUT_TOKENS = new Set(['—', '…', 'Changed', 'files:', 'TODOs:']);

function tornTokens(text: string, blocks: Blocks): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\s+/u)) {
    if (raw.length === 0 || LAYOUT_TOKENS.has(raw) || blocks.tokens.has(raw)) continue;
    // Scripts written without spaces end sentences inside a "token" (`…了。然后…`).
    if (
      /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(raw) &&
      blocks.flat.includes(raw)
    )
      continue;
    // Todos are joined with "; ".
    if (raw.endsWith(';') && blocks.tokens.has(raw.slice(0, -1))) continue;
    const cut = raw.endsWith('…') ? raw.slice(0, -1) : undefined;
    const lead = raw.startsWith('…') ? raw.slice(1) : undefined;
    if (lead !== undefined && (lead.length === 0 || blocks.tokens.has(lead))) continue;
    if (
      cut !== undefined &&
      (cut.length === 0 || blocks.tokens.has(cut) || [...blocks.tokens].some((t) => t.startsWith(cut)))
    )
      continue;
    out.push(raw);
  }
  return out;
}

const SENTENCE_END_RE = /(?:[.!?。！？][)"'”’\]」』»]*|…)$/u;

/**
 * True when `text` ends at a sentence end or with `…`, or with the task's label (a title, whole);
 * empty text counts as ended.
 */
export function endsCleanly(text: string, label = '', summary = ''): boolean {
  const trimmed = text.trim();
  const whole = [collapse(label), collapse(summary)].filter((part) => part.length > 0);
  return (
    trimmed.length === 0 ||
    SENTENCE_END_RE.test(trimmed) ||
    whole.some((part) => collapse(trimmed).endsWith(part))
  );
}

type Levels = Readonly<Record<SummaryLevelName, string>>;

function figures(
  data: DetailSet,
  levelsOf: (task: DetailTask, index: number) => Levels,
  fullOf?: (index: number) => string,
): LevelFigures {
  const kept = Object.fromEntries(SUMMARY_LEVELS.map((l) => [l, { all: 0, primary: 0 }])) as Record<
    SummaryLevelName,
    { all: number; primary: number }
  >;
  let overCap = 0;
  let torn = 0;
  let cut = 0;
  let toolPieces = 0;
  let pieces = 0;
  let lostHigher = 0;
  let longer = 0;
  const tornExamples: string[] = [];
  data.tasks.forEach((task, index) => {
    const levels = levelsOf(task, index);
    const blocks = blocksOf(task);
    for (const level of SUMMARY_LEVELS) {
      const text = levels[level];
      if ([...text].length > LEVEL_CAPS[level]) overCap++;
      const tornHere = tornTokens(text, blocks);
      torn += tornHere.length;
      for (const t of tornHere) if (tornExamples.length < 10) tornExamples.push(`${task.id}/${level}: ${t}`);
      if (!endsCleanly(text, task.taskLabel, task.conversationSummary)) cut++;
      if (level === 'brief' || level === 'summary') {
        for (const piece of piecesOf(text)) {
          pieces++;
          if (isToolPiece(piece, blocks)) toolPieces++;
        }
      }
      task.keyFacts.forEach((fact, f) => {
        if (!keepsFact(text, fact.patterns)) return;
        kept[level].all++;
        if (f === 0) kept[level].primary++;
      });
    }
    for (const fact of task.keyFacts) {
      const at = SUMMARY_LEVELS.map((level) => keepsFact(levels[level], fact.patterns));
      if (at.some((k, i) => k && at.slice(i + 1).some((higher) => !higher))) lostHigher++;
    }
    const lengths = SUMMARY_LEVELS.map((level) => [...levels[level]].length);
    if (fullOf) lengths.push([...fullOf(index)].length);
    for (let i = 0; i + 1 < lengths.length; i++) if ((lengths[i] ?? 0) > (lengths[i + 1] ?? 0)) longer++;
  });
  return {
    kept,
    overCap,
    tornTokens: torn,
    cutMidSentence: cut,
    toolPieces,
    pieces,
    lostHigher,
    longerThanNext: longer,
    tornExamples,
  };
}

/**
 * Commits every task of `data` (lines first, tasks in array order) into a fresh memory with
 * the offline summariser, then measures its levels, the head…tail cut of the same input, and
 * navigation over all tasks.
 */
export async function evaluateDetailLevels(data: DetailSet): Promise<DetailReport> {
  const dir = mkdtempSync(join(tmpdir(), 'hedgehop-levels-'));
  const db = await openMemory(join(dir, 'levels.db'), { durability: 'normal' });
  try {
    const radial = db.primary().radial;
    for (const [id, name, description] of data.lines) await radial.createLine(id, name, description);
    const committed: { nodeId: string; levels: Levels; full: string }[] = [];
    for (const task of data.tasks) {
      const node = await radial.completeTask({
        lineId: task.line,
        taskLabel: task.taskLabel,
        fullContext: task.fullContext,
        conversationSummary: task.conversationSummary,
        fileChanges: task.fileChanges,
        todos: task.todos,
      });
      committed.push({ nodeId: node.id, levels: node.summaries, full: '' });
    }
    for (const entry of committed) {
      const node = await radial.service.getNodeById(entry.nodeId);
      if (!node) continue;
      // What an agent reads at level 4 (the full view, above the verbatim text).
      entry.full = (await radial.openNode(node.lineId, node.position, 4)).context;
    }
    let top1 = 0;
    let paraphraseTop1 = 0;
    let paraphrases = 0;
    let questions = 0;
    for (const [index, task] of data.tasks.entries()) {
      for (const question of task.questions) {
        questions++;
        if (question.kind === 'paraphrase') paraphrases++;
        const session = await radial.navigate(question.q, { confidenceThreshold: 0 });
        const hit = session?.node.id === committed[index]?.nodeId;
        if (hit) top1++;
        if (hit && question.kind === 'paraphrase') paraphraseTop1++;
      }
    }
    const ours = figures(
      data,
      (_task, i) => committed[i]?.levels ?? { origin: '', brief: '', summary: '', detailed: '' },
      (i) => committed[i]?.full ?? '',
    );
    const headTail = figures(data, (task) => {
      const source = wholeInput(task);
      return {
        origin: headTailCut(source, LEVEL_CAPS.origin),
        brief: headTailCut(source, LEVEL_CAPS.brief),
        summary: headTailCut(source, LEVEL_CAPS.summary),
        detailed: headTailCut(source, LEVEL_CAPS.detailed),
      };
    });
    return {
      tasks: data.tasks.length,
      facts: data.tasks.reduce((sum, task) => sum + task.keyFacts.length, 0),
      ours,
      headTail,
      navigation: { top1, questions, paraphraseTop1, paraphrases },
      levels: data.tasks.map((task, i) => ({
        id: task.id,
        levels: committed[i]?.levels ?? { origin: '', brief: '', summary: '', detailed: '' },
      })),
    };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
