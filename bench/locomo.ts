/**
 * LoCoMo retrieval (issue 7), measured against plain BM25 in the same run: hedgehop ingests each
 * conversation through its public turn loop and answers through `agent.recall`; the baseline
 * is FTS5's Okapi BM25 (k1 1.2, b 0.75, Porter stemming, the same stop words) over one
 * document per turn with the speaker's name, and nothing else. `quick` runs the first two
 * conversations without the context-budget figures. Skips, with a note, when the data file is
 * absent (LOCOMO_DATA, default ../shared/data/locomo-dev.json).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  evaluateLocomo,
  loadLocomo,
  utteranceText,
  type LocomoConversation,
  type LocomoReport,
  type LocomoSubject,
} from '../src/eval/locomo.js';
import { hedgehopLocomoSubject } from '../src/eval/locomo-subject.js';
import { matchExpression, queryTerms } from '../src/recall/query.js';
import { Store } from '../src/store/store.js';
import type { BenchModule, BenchRow } from './harness.js';

/** Where the development data lives unless LOCOMO_DATA says otherwise. */
export const LOCOMO_DATA =
  process.env.LOCOMO_DATA ?? join(process.cwd(), '..', 'shared', 'data', 'locomo-dev.json');

/** Plain BM25 over one index row per turn (its dia id as the row's ref). */
export function bm25Subject(): LocomoSubject {
  return {
    ingest(conversation: LocomoConversation) {
      const dir = mkdtempSync(join(tmpdir(), 'hedgehop-bm25-'));
      const store = Store.open(join(dir, 'bm25.db'), {
        durability: 'normal',
        mode: 'exclusive',
        busyTimeoutMs: 1000,
      });
      const agent = store.direct.agents.ensurePrimary('primary', 0);
      store.engine.write('ingest', () => {
        for (const session of conversation.sessions) {
          for (const turn of session.turns) {
            store.direct.index.upsert({
              layer: 'archive',
              ref: turn.diaId,
              agentId: agent.id,
              createdAt: session.time,
              text: utteranceText(turn),
            });
          }
        }
      });
      return Promise.resolve({
        rank(question: string) {
          const expression = matchExpression(queryTerms(question).map((t) => t.word));
          if (!expression) return Promise.resolve([]);
          const hits = store.engine.read('rank', () =>
            store.direct.recall.match(expression, { agentId: agent.id }, 20),
          );
          return Promise.resolve(hits.map((h) => h.ref));
        },
        contextTurns: () => Promise.resolve(new Set<string>()),
        async close() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      });
    },
  };
}

function reportRows(name: string, report: LocomoReport, baseline: LocomoReport | undefined): BenchRow[] {
  const rows: BenchRow[] = [];
  const lines: [string, LocomoReport['overall'], LocomoReport['overall'] | undefined][] = [
    ['overall 1-4', report.overall, baseline?.overall],
    ...Object.entries(report.categories).map(
      ([category, scores]) =>
        [category, scores, baseline?.categories[category as keyof LocomoReport['categories']]] as [
          string,
          LocomoReport['overall'],
          LocomoReport['overall'] | undefined,
        ],
    ),
  ];
  for (const [kase, scores, base] of lines) {
    for (const metric of ['recall@5', 'recall@10', 'recall@20', 'ndcg@10'] as const) {
      rows.push({
        bench: 'locomo',
        case: `${name} ${kase} (n=${scores.n})`,
        metric,
        value: scores[metric],
        unit: '%',
        ...(base ? { baseline: base[metric], ratio: scores[metric] / Math.max(base[metric], 1e-9) } : {}),
      });
    }
  }
  return rows;
}

export const runLocomo: BenchModule = async (options) => {
  if (!existsSync(LOCOMO_DATA)) {
    return {
      name: 'locomo',
      rows: [],
      notes: [`skipped: LoCoMo data not found at ${LOCOMO_DATA} (set LOCOMO_DATA)`],
    };
  }
  const all = await loadLocomo(LOCOMO_DATA);
  const conversations = options.quick ? all.slice(0, 2) : all;
  options.log(`locomo: ${conversations.length} conversations, plain BM25 baseline`);
  const baseline = await evaluateLocomo(conversations, bm25Subject(), { budgets: false });
  options.log('locomo: hedgehop (public turn loop, offline, no model)');
  const started = Date.now();
  const report = await evaluateLocomo(conversations, hedgehopLocomoSubject(), {
    budgets: !options.quick,
    onProgress: (done, total) => {
      if (done % 100 === 0 || done === total) options.log(`locomo: ${done}/${total} questions`);
    },
  });
  const rows = reportRows('hedgehop', report, baseline);
  if (!options.quick) {
    for (const budget of ['500', '1000', '2000'] as const) {
      rows.push({
        bench: 'locomo',
        case: `hedgehop evidence in context @${budget} tokens`,
        metric: 'share of evidence turns',
        value: report.budget[budget],
        unit: '%',
      });
    }
  }
  return {
    name: 'locomo',
    rows,
    notes: [
      `${report.questions} questions over ${report.conversations} conversations in ${((Date.now() - started) / 1000).toFixed(0)} s`,
      'baseline: FTS5 bm25 over one row per turn (speaker name + text), OR of stop-word-filtered words',
    ],
  };
};
