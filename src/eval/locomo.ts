/**
 * The LoCoMo retrieval evaluation (Maharana et al., ACL 2024), as `/work/shared/data/README.md`
 * defines it: each conversation is ingested as a user would (one scene per session, one archive
 * record per utterance, the session's date as the record time), every question goes through
 * `recall`, and the conversation's turns are ranked. Reports turn-level Recall@5/10/20 and
 * NDCG@10 per category and overall (categories 1–4), adversarial on its own line, plus the share
 * of evidence turns that the assembled context holds at 500, 1,000 and 2,000 tokens.
 *
 * The dataset's `observation`, `session_summary` and `event_summary` fields are never read.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { HedgehopError } from '../core/errors.js';

/** One utterance of a LoCoMo session. */
export interface LocomoTurn {
  readonly speaker: string;
  readonly diaId: string;
  readonly text: string;
  readonly blipCaption?: string | undefined;
}

/** One session: its turns and when it happened (ms since the epoch, UTC). */
export interface LocomoSession {
  readonly index: number;
  readonly time: number;
  readonly dateText: string;
  readonly turns: readonly LocomoTurn[];
}

/** One question with its normalised evidence turns. */
export interface LocomoQuestion {
  readonly question: string;
  readonly category: LocomoCategory;
  readonly evidence: readonly string[];
}

/** One conversation of the dataset (only what an evaluation may use). */
export interface LocomoConversation {
  readonly sampleId: string;
  readonly speakers: readonly [string, string];
  readonly sessions: readonly LocomoSession[];
  readonly questions: readonly LocomoQuestion[];
}

/** The official category mapping (4 single-hop, 1 multi-hop, 2 temporal, 3 open-domain, 5 adversarial). */
export const LOCOMO_CATEGORIES = {
  4: 'single-hop',
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  5: 'adversarial',
} as const;

export type LocomoCategory = (typeof LOCOMO_CATEGORIES)[keyof typeof LOCOMO_CATEGORIES];

/** Categories averaged into "overall". */
const OVERALL_CATEGORIES: readonly LocomoCategory[] = ['single-hop', 'multi-hop', 'temporal', 'open-domain'];

/** Context budgets (tokens) at which evidence coverage is reported. */
const BUDGETS = [500, 1000, 2000] as const;

const turnSchema = z.looseObject({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional(),
});
const qaSchema = z.looseObject({
  question: z.string(),
  evidence: z.array(z.string()).default([]),
  category: z.number().int(),
});
const sampleSchema = z.looseObject({
  sample_id: z.string(),
  conversation: z.looseObject({ speaker_a: z.string(), speaker_b: z.string() }),
  qa: z.array(qaSchema),
});

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** Parses a LoCoMo session date such as `1:56 pm on 8 May, 2023` (UTC, ms). */
export function parseSessionDate(text: string): number {
  const match = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/iu.exec(text);
  if (!match) throw new HedgehopError('INVALID_INPUT', `data: unrecognised session date '${text}'`);
  const [, hh, mm, ampm, day, monthName, year] = match as unknown as string[];
  const month = MONTHS.indexOf((monthName as string).toLowerCase());
  if (month < 0) throw new HedgehopError('INVALID_INPUT', `data: unrecognised month in '${text}'`);
  const hour = (Number(hh) % 12) + ((ampm as string).toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(year), month, Number(day), hour, Number(mm));
}

/**
 * Evidence normalisation: split on `;`, `,` and whitespace, fix a stray colon (`D:11:26` →
 * `D11:26`) and leading zeros (`D30:05` → `D30:5`), drop ids that name no turn.
 */
export function normaliseEvidence(evidence: readonly string[], turnIds: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const raw of evidence) {
    for (const piece of raw.split(/[;,\s]+/u)) {
      const match = /^D:?(\d+):(\d+)$/u.exec(piece.trim());
      if (!match) continue;
      const id = `D${Number(match[1])}:${Number(match[2])}`;
      if (turnIds.has(id) && !out.includes(id)) out.push(id);
    }
  }
  return out;
}

function sessionsOf(conversation: Record<string, unknown>): LocomoSession[] {
  const sessions: LocomoSession[] = [];
  for (const key of Object.keys(conversation)) {
    const match = /^session_(\d+)$/u.exec(key);
    if (!match) continue;
    const index = Number(match[1]);
    const turns = z.array(turnSchema).parse(conversation[key]);
    const dateText = String(conversation[`session_${index}_date_time`] ?? '');
    sessions.push({
      index,
      time: parseSessionDate(dateText),
      dateText,
      turns: turns.map((t) => ({
        speaker: t.speaker,
        diaId: t.dia_id,
        text: t.text,
        blipCaption: t.blip_caption,
      })),
    });
  }
  return sessions.sort((a, b) => a.index - b.index);
}

/** Parses the dataset (an array of samples); questions left with no evidence are skipped. */
export function parseLocomo(json: unknown): LocomoConversation[] {
  const samples = z.array(sampleSchema).parse(json);
  return samples.map((sample) => {
    const sessions = sessionsOf(sample.conversation);
    const turnIds = new Set(sessions.flatMap((s) => s.turns.map((t) => t.diaId)));
    const questions: LocomoQuestion[] = [];
    for (const qa of sample.qa) {
      const category = LOCOMO_CATEGORIES[qa.category as keyof typeof LOCOMO_CATEGORIES];
      if (!category) continue;
      const evidence = normaliseEvidence(qa.evidence, turnIds);
      if (evidence.length === 0) continue;
      questions.push({ question: qa.question, category, evidence });
    }
    return {
      sampleId: sample.sample_id,
      speakers: [sample.conversation.speaker_a, sample.conversation.speaker_b] as const,
      sessions,
      questions,
    };
  });
}

/** Reads and parses a LoCoMo file; `NOT_FOUND` when absent, `INVALID_INPUT` when malformed. */
export async function loadLocomo(path: string): Promise<LocomoConversation[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new HedgehopError('NOT_FOUND', `LoCoMo data not found at ${path}`, {
      cause: error,
      remedy: 'check-path',
    });
  }
  try {
    return parseLocomo(JSON.parse(text));
  } catch (error) {
    if (HedgehopError.isInstance(error)) throw error;
    throw new HedgehopError(
      'INVALID_INPUT',
      `data: ${path} is not a LoCoMo file (${(error as Error).message})`,
      {
        cause: error,
      },
    );
  }
}

/** The text an utterance is archived with: speaker, words, and the shared image's caption. */
export function utteranceText(turn: LocomoTurn): string {
  const caption = turn.blipCaption ? ` [shares an image: ${turn.blipCaption}]` : '';
  return `${turn.speaker}: ${turn.text}${caption}`;
}

/** Turn-level Recall@k: the share of the evidence found in the first k ranked turns. */
export function recallAt(ranked: readonly string[], evidence: readonly string[], k: number): number {
  if (evidence.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return evidence.filter((id) => top.has(id)).length / evidence.length;
}

/** NDCG@k with binary gain. */
export function ndcgAt(ranked: readonly string[], evidence: readonly string[], k: number): number {
  const relevant = new Set(evidence);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

/** The four figures reported per category, in 0..100. */
export interface LocomoScores {
  readonly 'recall@5': number;
  readonly 'recall@10': number;
  readonly 'recall@20': number;
  readonly 'ndcg@10': number;
}

/** What `hedgehop eval locomo --json` prints. */
export interface LocomoReport {
  readonly overall: LocomoScores & { readonly n: number };
  readonly categories: Readonly<Record<LocomoCategory, LocomoScores & { readonly n: number }>>;
  /** Share (0..100) of evidence turns (categories 1–4) whose text is in the context at each budget. */
  readonly budget: Readonly<Record<'500' | '1000' | '2000', number>>;
  readonly conversations: number;
  readonly questions: number;
}

/**
 * What the evaluation needs from a memory: ingest a conversation, then answer each question
 * with the conversation's turns (dia ids) ranked best first and, per budget, the assembled
 * context text.
 */
export interface LocomoSubject {
  ingest(conversation: LocomoConversation): Promise<LocomoAsker>;
}

/** Asks questions of one ingested conversation. */
export interface LocomoAsker {
  /** The turns (dia ids) ranked best first, at least 20 when the conversation has them. */
  rank(question: string): Promise<readonly string[]>;
  /** The dia ids whose full text the context assembled under `budgetTokens` holds. */
  contextTurns(question: string, budgetTokens: number): Promise<ReadonlySet<string>>;
  close(): Promise<void>;
}

interface PerQuestion {
  readonly category: LocomoCategory;
  readonly r5: number;
  readonly r10: number;
  readonly r20: number;
  readonly ndcg10: number;
}

const pct = (v: number): number => Math.round(v * 1000) / 10;

function average(rows: readonly PerQuestion[]): LocomoScores & { n: number } {
  const n = rows.length;
  const mean = (pick: (r: PerQuestion) => number): number =>
    n === 0 ? 0 : pct(rows.reduce((sum, r) => sum + pick(r), 0) / n);
  return {
    n,
    'recall@5': mean((r) => r.r5),
    'recall@10': mean((r) => r.r10),
    'recall@20': mean((r) => r.r20),
    'ndcg@10': mean((r) => r.ndcg10),
  };
}

/** Progress of an evaluation (questions answered out of all). */
export type LocomoProgress = (done: number, total: number) => void;

/**
 * Runs the evaluation over `conversations` with `subject`.
 *
 * @example
 * ```ts
 * const report = await evaluateLocomo(await loadLocomo(path), hedgehopSubject());
 * console.log(report.overall['recall@10']);
 * ```
 */
export async function evaluateLocomo(
  conversations: readonly LocomoConversation[],
  subject: LocomoSubject,
  options: { readonly onProgress?: LocomoProgress; readonly budgets?: boolean } = {},
): Promise<LocomoReport> {
  const total = conversations.reduce((sum, c) => sum + c.questions.length, 0);
  const rows: PerQuestion[] = [];
  const budgetHits = { 500: 0, 1000: 0, 2000: 0 };
  let budgetEvidence = 0;
  let done = 0;
  for (const conversation of conversations) {
    const asker = await subject.ingest(conversation);
    try {
      for (const q of conversation.questions) {
        const ranked = await asker.rank(q.question);
        rows.push({
          category: q.category,
          r5: recallAt(ranked, q.evidence, 5),
          r10: recallAt(ranked, q.evidence, 10),
          r20: recallAt(ranked, q.evidence, 20),
          ndcg10: ndcgAt(ranked, q.evidence, 10),
        });
        if (options.budgets !== false && q.category !== 'adversarial') {
          budgetEvidence += q.evidence.length;
          for (const budget of BUDGETS) {
            const inContext = await asker.contextTurns(q.question, budget);
            budgetHits[budget] += q.evidence.filter((id) => inContext.has(id)).length;
          }
        }
        options.onProgress?.(++done, total);
      }
    } finally {
      await asker.close();
    }
  }
  const categories = Object.fromEntries(
    Object.values(LOCOMO_CATEGORIES).map((name) => [name, average(rows.filter((r) => r.category === name))]),
  ) as Record<LocomoCategory, LocomoScores & { n: number }>;
  const share = (hits: number): number => (budgetEvidence === 0 ? 0 : pct(hits / budgetEvidence));
  return {
    overall: average(rows.filter((r) => OVERALL_CATEGORIES.includes(r.category))),
    categories,
    budget: {
      '500': share(budgetHits[500]),
      '1000': share(budgetHits[1000]),
      '2000': share(budgetHits[2000]),
    },
    conversations: conversations.length,
    questions: rows.length,
  };
}

const scoresOnly = (s: LocomoScores): LocomoScores => ({
  'recall@5': s['recall@5'],
  'recall@10': s['recall@10'],
  'recall@20': s['recall@20'],
  'ndcg@10': s['ndcg@10'],
});

/** The object `hedgehop eval locomo --json` prints: exactly the shape, values 0..100. */
export function locomoJson(report: LocomoReport): {
  overall: LocomoScores;
  categories: Record<LocomoCategory, LocomoScores>;
  budget: LocomoReport['budget'];
} {
  const categories = Object.fromEntries(
    Object.entries(report.categories).map(([name, scores]) => [name, scoresOnly(scores)]),
  ) as Record<LocomoCategory, LocomoScores>;
  return { overall: scoresOnly(report.overall), categories, budget: { ...report.budget } };
}

/** A plain-text table of a report (what `hedgehop eval locomo` prints without `--json`). */
export function formatLocomoReport(report: LocomoReport): string {
  const cell = (v: number): string => v.toFixed(1).padStart(6);
  const line = (name: string, s: LocomoScores & { n: number }): string =>
    `${name.padEnd(12)} ${String(s.n).padStart(5)} ${cell(s['recall@5'])} ${cell(s['recall@10'])} ${cell(s['recall@20'])} ${cell(s['ndcg@10'])}`;
  const out = [
    `${'category'.padEnd(12)} ${'n'.padStart(5)} ${'R@5'.padStart(6)} ${'R@10'.padStart(6)} ${'R@20'.padStart(6)} ${'NDCG@10'.padStart(6)}`,
  ];
  for (const name of OVERALL_CATEGORIES) out.push(line(name, report.categories[name]));
  out.push(line('overall 1-4', report.overall));
  out.push(line('adversarial', report.categories.adversarial));
  out.push(
    `evidence in context: ${report.budget['500'].toFixed(1)} % at 500, ${report.budget['1000'].toFixed(1)} % at 1000, ${report.budget['2000'].toFixed(1)} % at 2000 tokens`,
  );
  return out.join('\n');
}
