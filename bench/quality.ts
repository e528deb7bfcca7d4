/**
 * What the agent reads (issue 19): the detail levels of 24 hand-annotated agent tasks, each
 * figure beside HedgehogMemory's head…tail cut of the same input (label, caller summary, files,
 * todos and full context), and navigation over all of them. The rules (what "kept", "tool
 * output", "torn" and "cut mid-sentence" mean) are in src/eval/detail-levels.ts. Skips, with a
 * note, when the data file is absent (DETAIL_LEVELS_DATA, default ../shared/data/detail-levels-dev.json).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { evaluateDetailLevels, loadDetailSet, type LevelFigures } from '../src/eval/detail-levels.js';
import type { BenchModule, BenchRow } from './harness.js';

/** Where the development data lives unless DETAIL_LEVELS_DATA says otherwise. */
export const DETAIL_LEVELS_DATA =
  process.env.DETAIL_LEVELS_DATA ?? join(process.cwd(), '..', 'shared', 'data', 'detail-levels-dev.json');

const pct = (part: number, whole: number): number => (whole === 0 ? 0 : (100 * part) / whole);

function row(
  kase: string,
  metric: string,
  value: number,
  baseline: number,
  unit: string,
  note: string,
): BenchRow {
  return {
    bench: 'quality',
    case: kase,
    metric,
    value,
    unit,
    baseline,
    ...(baseline !== 0 ? { ratio: value / baseline } : {}),
    note,
  };
}

export const runQuality: BenchModule = async (options) => {
  if (!existsSync(DETAIL_LEVELS_DATA)) {
    options.log(`quality: skipped, ${DETAIL_LEVELS_DATA} is absent (set DETAIL_LEVELS_DATA)`);
    return { name: 'quality', rows: [], notes: [`skipped: ${DETAIL_LEVELS_DATA} is absent`] };
  }
  const data = await loadDetailSet(DETAIL_LEVELS_DATA);
  const report = await evaluateDetailLevels(data);
  const { ours, headTail: base, tasks, facts } = report;
  const rows: BenchRow[] = [];
  const note = 'baseline: head…tail cut of the same input';
  rows.push(
    row(
      'origin',
      'primary facts kept',
      pct(ours.kept.origin.primary, tasks),
      pct(base.kept.origin.primary, tasks),
      '%',
      note,
    ),
  );
  for (const level of ['brief', 'summary', 'detailed'] as const) {
    rows.push(
      row(
        level,
        'primary facts kept',
        pct(ours.kept[level].primary, tasks),
        pct(base.kept[level].primary, tasks),
        '%',
        `${note}; target brief ≥ 90%`,
      ),
      row(
        level,
        'key facts kept',
        pct(ours.kept[level].all, facts),
        pct(base.kept[level].all, facts),
        '%',
        `${ours.kept[level].all}/${facts} vs ${base.kept[level].all}/${facts}; targets brief ≥ 70%, summary ≥ 90%, detailed ≥ 98%`,
      ),
    );
  }
  const share = (f: LevelFigures): number => pct(f.toolPieces, f.pieces);
  rows.push(
    row(
      'brief + summary',
      'tool-output pieces',
      share(ours),
      share(base),
      '%',
      `${ours.toolPieces}/${ours.pieces} vs ${base.toolPieces}/${base.pieces}; target ≤ 10%`,
    ),
    row('all levels', 'torn tokens', ours.tornTokens, base.tornTokens, 'tokens', 'target 0'),
    row('all levels', 'cut mid-sentence', ours.cutMidSentence, base.cutMidSentence, 'levels', 'target 0'),
    row('all levels', 'over cap', ours.overCap, base.overCap, 'levels', 'target 0'),
    row(
      'all levels',
      'longer than the next level',
      ours.longerThanNext,
      base.longerThanNext,
      'pairs',
      'ours includes the full view',
    ),
    row('all levels', 'facts lost at a higher level', ours.lostHigher, base.lostHigher, 'facts', ''),
    {
      bench: 'quality',
      case: 'navigation',
      metric: 'top-1',
      value: pct(report.navigation.top1, report.navigation.questions),
      unit: '%',
      note: `${report.navigation.top1}/${report.navigation.questions}; paraphrases ${report.navigation.paraphraseTop1}/${report.navigation.paraphrases}; target ≥ 85%`,
    },
  );
  for (const r of rows) {
    const beside = r.baseline === undefined ? '' : ` (head…tail ${r.baseline.toFixed(1)})`;
    options.log(
      `  ${r.case} ${r.metric}: ${r.value.toFixed(1)} ${r.unit}${beside}${r.note ? ` — ${r.note}` : ''}`,
    );
  }
  if (ours.tornExamples.length > 0) options.log(`  torn: ${ours.tornExamples.join(' | ')}`);
  return {
    name: 'quality',
    rows,
    notes: [
      `${tasks} tasks, ${facts} key facts, ${report.navigation.questions} questions from ${DETAIL_LEVELS_DATA}`,
    ],
  };
};
