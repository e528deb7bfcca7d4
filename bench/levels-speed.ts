/**
 * Speed of the offline summariser making all four levels of a task (issue 19: ≥ 10 MB/s of
 * input), as `completeTask` runs it: the 24 tasks of `../shared/data/detail-levels-dev.json`
 * (skipped with a message when absent; DETAIL_LEVELS_DATA names another file), synthetic coding
 * transcripts of 8 K, 60 K and 400 K characters, and the radial benchmark's 1–2 KB tasks.
 * Input is every byte the summariser reads (label, caller summary, files, todos, full context).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeSummaries } from '../src/memory/radial/summaries.js';
import { OfflineSummarizer } from '../src/llm/offline-summarizer.js';
import { median, type BenchRow } from './harness.js';
import { codingTranscript } from './transcripts.js';
import { syntheticTask } from './radial.js';

/** What the summariser reads of a task. */
export type TaskText = Parameters<typeof computeSummaries>[1];

/** Where the development tasks live unless DETAIL_LEVELS_DATA says otherwise. */
export const DEV_LEVELS_PATH =
  process.env.DETAIL_LEVELS_DATA ?? join(process.cwd(), '..', 'shared', 'data', 'detail-levels-dev.json');

interface DevTask {
  readonly taskLabel: string;
  readonly conversationSummary: string;
  readonly fileChanges: TaskText['fileChanges'];
  readonly todos: readonly string[];
  readonly fullContext: string;
}

/** The development tasks as summariser input (none when the file is absent). */
export function devTasks(): TaskText[] {
  if (!existsSync(DEV_LEVELS_PATH)) return [];
  const data = JSON.parse(readFileSync(DEV_LEVELS_PATH, 'utf8')) as { tasks: readonly DevTask[] };
  return data.tasks.map((t) => ({
    taskLabel: t.taskLabel,
    conversationSummary: t.conversationSummary,
    fileChanges: t.fileChanges,
    todos: t.todos,
    fullContext: t.fullContext,
  }));
}

function transcriptTask(seed: number, chars: number): TaskText {
  return {
    taskLabel: `Fix the slow export job (#${seed})`,
    conversationSummary: 'Fixed the pool exhaustion in the export job; p99 is back under 200 ms.',
    fileChanges: [{ path: 'src/db/pool.ts', changeType: 'modified', diffSummary: 'own pool for exports' }],
    todos: ['Watch p99 for a week'],
    fullContext: codingTranscript(seed, chars),
  };
}

/** The radial benchmark's task `i` (the one its measured commits use) as summariser input. */
export function radialTask(i: number): TaskText {
  const task = syntheticTask(5_000_000 + i, 'line0');
  return {
    taskLabel: task.taskLabel,
    conversationSummary: task.conversationSummary,
    fileChanges: (task.fileChanges ?? []).map((f) => ({
      path: f.path,
      changeType: f.changeType ?? 'modified',
      diffSummary: f.diffSummary ?? '',
    })),
    todos: task.todos ?? [],
    fullContext: task.fullContext,
  };
}

/** Bytes the summariser reads of a task. */
function inputBytes(task: TaskText): number {
  const files = task.fileChanges.map((f) => `${f.path} ${f.diffSummary}`).join('\n');
  return Buffer.byteLength(
    [task.taskLabel, task.conversationSummary, files, ...task.todos, task.fullContext].join('\n'),
    'utf8',
  );
}

/** Wall and CPU time of one round over `tasks`, in ms. */
async function round(summarizer: OfflineSummarizer, tasks: readonly TaskText[]): Promise<[number, number]> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (const task of tasks) await computeSummaries(summarizer, task);
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return [wall, (used.user + used.system) / 1000];
}

/** Rows: MB/s of input for the four levels, per workload (median round; wall and CPU time). */
export async function levelSpeedRows(quick: boolean, log: (line: string) => void): Promise<BenchRow[]> {
  const dev = devTasks();
  if (dev.length === 0) log(`detail-levels file not found at ${DEV_LEVELS_PATH}: dev-task speed skipped`);
  const workloads: { name: string; tasks: TaskText[] }[] = [
    ...(dev.length > 0 ? [{ name: `${dev.length} dev tasks (detail-levels-dev.json)`, tasks: dev }] : []),
    { name: 'coding transcript, 8 K chars', tasks: [transcriptTask(1, 8_000)] },
    { name: 'coding transcript, 60 K chars', tasks: [transcriptTask(2, 60_000)] },
    { name: 'coding transcript, 400 K chars', tasks: [transcriptTask(3, 400_000)] },
    {
      name: '40 radial bench tasks, 1–2 KB',
      tasks: Array.from({ length: 40 }, (_, i) => radialTask(i)),
    },
  ];
  const summarizer = new OfflineSummarizer();
  // Warm-up: the summariser's first few dozen calls run several times slower (not compiled yet).
  for (let i = 0; i < 3; i++) for (const { tasks } of workloads) await round(summarizer, tasks);
  const rounds = quick ? 5 : 15;
  const rows: BenchRow[] = [];
  for (const { name, tasks } of workloads) {
    const bytes = tasks.reduce((n, task) => n + inputBytes(task), 0);
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const [wall, cpu] = await round(summarizer, tasks);
      walls.push(wall);
      cpus.push(cpu);
    }
    const mbps = (ms: number): number => bytes / 1e6 / (ms / 1000);
    const wall = mbps(median(walls));
    const cpu = mbps(median(cpus));
    rows.push({
      bench: 'llm',
      case: `offline task levels (all four), ${name}`,
      metric: 'MB/s of input',
      value: wall,
      unit: 'MB/s',
      note: `target ≥ 10 MB/s; ${(bytes / 1e3).toFixed(1)} KB per round, median of ${rounds}; ${cpu.toFixed(1)} MB/s by process CPU time`,
    });
    log(`levels ${name}: ${wall.toFixed(1)} MB/s wall, ${cpu.toFixed(1)} MB/s CPU`);
  }
  return rows;
}
