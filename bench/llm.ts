/**
 * Language-model layer benchmark.
 *
 * 1. Fact retention: synthetic reports with planted facts (ids, amounts, names) anywhere in the
 *    text, summarised at each detail level by the offline extractive summariser and by the
 *    Hedgehog seed's head+tail cut (the baseline); the figure is the share of facts kept.
 * 2. Offline latency for growing inputs, against the head+tail cut, and the speed of a task's
 *    four levels in MB/s of input (bench/levels-speed.ts).
 * 3. Keyword extraction: planted-entity recall and latency per turn.
 * 4. Adapter overhead: one `generateText` over a local OpenAI-compatible server against a raw
 *    `fetch` of the same endpoint.
 * 5. When `../shared/data/locomo-dev.json` is present: each LoCoMo session summarised at each
 *    level; the figure is the share of a question's answer terms (questions whose evidence lies
 *    in one session, categories 1–4, answers of at most six content terms) that the session's
 *    summary still holds, against the head+tail cut.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { codePointLength, sliceCodePoints } from '../src/core/text.js';
import { extractiveSummary } from '../src/llm/extractive-summary.js';
import { extractKeywords } from '../src/llm/keyword-extraction.js';
import { contentTerms } from '../src/core/text-analysis.js';
import { createOpenAICompatible } from '../src/llm/openai-compatible.js';
import {
  compareInterleaved,
  median,
  percentile,
  seededRandom,
  type BenchModule,
  type BenchRow,
} from './harness.js';
import { levelSpeedRows } from './levels-speed.js';

const FILLER = (
  'we talked about the plan again and agreed to look at it later because the team had other ' +
  'things to do this week so nothing changed and everyone said it was fine for now'
).split(' ');
const SYSTEMS = ['billing', 'gateway', 'ledger', 'search', 'scheduler', 'mailer', 'importer', 'cache'];
const PEOPLE = ['Alice', 'Bruno', 'Chen', 'Dara', 'Emeka', 'Farah', 'Goran', 'Hana'];

const LEVELS = [
  ['brief', 200],
  ['summary', 600],
  ['detailed', 1800],
] as const;

interface Report {
  readonly text: string;
  readonly facts: readonly string[];
}

/** `sentences` sentences, one in `every` a fact with a unique ticket id. */
function report(seed: number, sentences: number, every: number): Report {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const parts: string[] = [];
  const facts: string[] = [];
  for (let i = 0; i < sentences; i++) {
    if (i % every === every - 1) {
      const ticket = `INC-${seed}${i}`;
      facts.push(ticket);
      parts.push(
        `${pick(PEOPLE)} fixed ${ticket} in the ${pick(SYSTEMS)} service, saving ${10 + i} ms per request.`,
      );
    } else {
      const words = Array.from({ length: 12 + Math.floor(random() * 8) }, () => pick(FILLER));
      parts.push(`${words.join(' ').replace(/^\w/u, (c) => c.toUpperCase())}.`);
    }
  }
  return { text: parts.join(' '), facts };
}

/** The Hedgehog seed's KeywordSummarizer: first and last (max − 6) / 2 code points. */
function headTail(text: string, max: number): string {
  const trimmed = text.trim();
  if (codePointLength(trimmed) <= max) return trimmed;
  const half = Math.floor((max - 6) / 2);
  const points = [...trimmed];
  return `${sliceCodePoints(trimmed, half)} … ${points.slice(points.length - half).join('')}`;
}

function retention(summary: string, facts: readonly string[]): number {
  return facts.filter((f) => summary.includes(f)).length / facts.length;
}

async function adapterOverhead(
  iterations: number,
): Promise<{ subject: number[]; baseline: number[]; ratio: number }> {
  const reply = JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(reply));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/v1`;
  const model = createOpenAICompatible({ baseURL: url, model: 'm', apiKey: 'k' });
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  try {
    await model.generateText({ prompt: 'warm up' });
    return await compareInterleaved(
      iterations,
      () => model.generateText({ prompt: 'hi' }),
      async () => {
        const res = await fetch(`${url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
          body,
        });
        await res.json();
      },
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const LOCOMO = join(process.cwd(), '..', 'shared', 'data', 'locomo-dev.json');

interface LocomoSample {
  readonly conversation: Record<string, unknown>;
  readonly qa: readonly {
    readonly answer?: unknown;
    readonly evidence: readonly string[];
    readonly category: number;
  }[];
}

/** (session text, answer terms) pairs from the LoCoMo development file, or none when it is absent. */
function locomoQuestions(): { text: string; answer: Set<string> }[] {
  if (!existsSync(LOCOMO)) return [];
  const samples = JSON.parse(readFileSync(LOCOMO, 'utf8')) as LocomoSample[];
  const out: { text: string; answer: Set<string> }[] = [];
  for (const sample of samples) {
    const texts = new Map<string, string>();
    for (const [key, value] of Object.entries(sample.conversation)) {
      const session = /^session_(\d+)$/u.exec(key)?.[1];
      if (!session || !Array.isArray(value)) continue;
      const turns = value as { speaker: string; text: string }[];
      texts.set(session, turns.map((t) => `${t.speaker}: ${t.text}`).join('\n'));
    }
    for (const qa of sample.qa) {
      if (qa.category === 5 || qa.answer === undefined) continue;
      const ids = qa.evidence.flatMap((e) => e.split(/[;,\s]+/u)).filter(Boolean);
      const sessions = new Set(ids.map((id) => /^D:?(\d+):/u.exec(id)?.[1]).filter((s) => s !== undefined));
      const text = sessions.size === 1 ? texts.get([...sessions][0]!) : undefined;
      const answer = contentTerms(String(qa.answer));
      if (text && answer.size > 0 && answer.size <= 6) out.push({ text, answer });
    }
  }
  return out;
}

function coverage(
  questions: readonly { text: string; answer: Set<string> }[],
  summarise: (text: string) => string,
): number {
  const cache = new Map<string, Set<string>>();
  let sum = 0;
  for (const q of questions) {
    let terms = cache.get(q.text);
    if (!terms) cache.set(q.text, (terms = contentTerms(summarise(q.text))));
    sum += [...q.answer].filter((t) => terms.has(t)).length / q.answer.size;
  }
  return sum / questions.length;
}

export const runLlm: BenchModule = async (options) => {
  const rows: BenchRow[] = [];
  const reports = Array.from({ length: options.quick ? 10 : 40 }, (_, i) => report(i + 1, 60, 10));
  for (const [level, max] of LEVELS) {
    const ours = median(reports.map((r) => retention(extractiveSummary(r.text, max, { level }), r.facts)));
    const base = median(reports.map((r) => retention(headTail(r.text, max), r.facts)));
    rows.push({
      bench: 'llm',
      case: `fact retention, ${level} (${max} chars), 60-sentence report, 6 facts`,
      metric: 'share of facts kept (median)',
      value: ours,
      unit: 'ratio',
      baseline: base,
      ratio: base > 0 ? ours / base : Number.POSITIVE_INFINITY,
      note: 'baseline: Hedgehog head+tail cut',
    });
    options.log(`retention ${level}: offline ${ours.toFixed(2)} vs head+tail ${base.toFixed(2)}`);
  }

  for (const sentences of options.quick ? [20, 200] : [20, 200, 2000]) {
    const r = report(7, sentences, 10);
    const size = codePointLength(r.text);
    const timing = await compareInterleaved(
      options.quick ? 10 : 30,
      () => extractiveSummary(r.text, 600, { level: 'summary' }),
      () => headTail(r.text, 600),
    );
    rows.push({
      bench: 'llm',
      case: `offline summarize, ${size} chars → 600`,
      metric: 'median ms',
      value: median(timing.subject),
      unit: 'ms',
      baseline: median(timing.baseline),
      ratio: timing.ratio,
      note: `p99 ${percentile(timing.subject, 99).toFixed(2)} ms; baseline: head+tail cut`,
    });
    options.log(`summarize ${size} chars: ${median(timing.subject).toFixed(2)} ms`);
  }

  rows.push(...(await levelSpeedRows(options.quick, options.log)));

  const turns = Array.from({ length: options.quick ? 20 : 100 }, (_, i) => report(100 + i, 8, 4));
  const recall = median(
    turns.map((t) => {
      const keywords = extractKeywords([t.text]);
      return t.facts.filter((f) => keywords.includes(f)).length / t.facts.length;
    }),
  );
  const keywordTiming = await compareInterleaved(
    turns.length,
    (i) => extractKeywords([turns[i]!.text]),
    (i) => turns[i]!.text.toLowerCase().split(/\W+/u),
  );
  rows.push({
    bench: 'llm',
    case: 'keyword extraction, 8-sentence turn with 2 ticket ids',
    metric: 'median ms',
    value: median(keywordTiming.subject),
    unit: 'ms',
    baseline: median(keywordTiming.baseline),
    ratio: keywordTiming.ratio,
    note: `planted-id recall ${recall.toFixed(2)}; baseline: lower-case split on non-word characters`,
  });

  const questions = locomoQuestions();
  if (questions.length === 0) options.log(`LoCoMo file not found at ${LOCOMO}: answer-coverage case skipped`);
  for (const [level, max] of questions.length > 0 ? LEVELS : []) {
    const ours = coverage(questions, (text) => extractiveSummary(text, max, { level }));
    const base = coverage(questions, (text) => headTail(text, max));
    rows.push({
      bench: 'llm',
      case: `LoCoMo answer terms kept in the session summary, ${level} (${max} chars), ${questions.length} questions`,
      metric: 'mean share of answer terms',
      value: ours,
      unit: 'ratio',
      baseline: base,
      ratio: ours / base,
      note: 'baseline: Hedgehog head+tail cut',
    });
  }

  const overhead = await adapterOverhead(options.quick ? 30 : 200);
  rows.push({
    bench: 'llm',
    case: 'generateText over a local OpenAI-compatible server',
    metric: 'median ms',
    value: median(overhead.subject),
    unit: 'ms',
    baseline: median(overhead.baseline),
    ratio: overhead.ratio,
    note: `p99 ${percentile(overhead.subject, 99).toFixed(2)} ms; baseline: raw fetch of the same endpoint`,
  });
  return { name: 'llm', rows };
};
