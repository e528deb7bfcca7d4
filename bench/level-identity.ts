/**
 * Checks that two builds of hedgehop make byte-identical offline summaries: the four levels of
 * every task of `../shared/data/detail-levels-dev.json` (when present), of synthetic coding
 * transcripts from 300 to 400,000 characters and of the radial benchmark's tasks, plus
 * `summarize` at each level. For changes meant to make the summariser faster, not different.
 *
 *     npm run build
 *     node dist/bench/level-identity.js --against <other checkout>/dist
 *
 * Exits 1 and names the first differences when any output differs.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { LEVEL_CAPS, SUMMARY_LEVELS } from '../src/core/model/levels.js';
import { codingTranscript } from './transcripts.js';
import { devTasks, radialTask, DEV_LEVELS_PATH, type TaskText } from './levels-speed.js';

interface Build {
  readonly computeSummaries: (summarizer: unknown, task: TaskText) => Promise<{ summaries: unknown }>;
  readonly summarizer: {
    summarize(text: string, max: number, context: { hint?: string; level?: string }): Promise<string>;
  };
}

async function load(dist: string): Promise<Build> {
  const at = (path: string): string => pathToFileURL(join(dist, path)).href;
  const summaries = (await import(at('src/memory/radial/summaries.js'))) as Pick<Build, 'computeSummaries'>;
  const offline = (await import(at('src/llm/offline-summarizer.js'))) as {
    OfflineSummarizer: new () => Build['summarizer'];
  };
  return { computeSummaries: summaries.computeSummaries, summarizer: new offline.OfflineSummarizer() };
}

/** Every input the check covers, named. */
function inputs(): { name: string; task: TaskText }[] {
  const out: { name: string; task: TaskText }[] = [];
  for (const task of devTasks()) out.push({ name: `dev ${task.taskLabel}`, task });
  const sizes = [300, 1_500, 6_000, 20_000, 60_000, 150_000, 400_000];
  for (const [i, size] of sizes.entries()) {
    for (const summary of ['', 'Fixed the pool exhaustion in the export job; p99 is back under 200 ms.']) {
      out.push({
        name: `transcript ${size}${summary ? ' with summary' : ''}`,
        task: {
          taskLabel: `Fix the slow export job (#${i})`,
          conversationSummary: summary,
          fileChanges: [{ path: 'src/db/pool.ts', changeType: 'modified', diffSummary: 'own pool' }],
          todos: summary ? ['Watch p99 for a week'] : [],
          fullContext: codingTranscript(100 + i, size),
        },
      });
    }
  }
  for (let i = 0; i < 40; i++) out.push({ name: `radial task ${i}`, task: radialTask(i) });
  return out;
}

const LEVELS = SUMMARY_LEVELS.map((level) => [level, LEVEL_CAPS[level]] as const);

async function outputs(build: Build, all: readonly { name: string; task: TaskText }[]): Promise<string[]> {
  const out: string[] = [];
  for (const { task } of all) {
    out.push(JSON.stringify((await build.computeSummaries(build.summarizer, task)).summaries));
    const text = task.fullContext;
    for (const [level, max] of LEVELS) {
      out.push(await build.summarizer.summarize(text, max, { hint: task.taskLabel, level }));
    }
  }
  return out;
}

async function main(): Promise<number> {
  const flag = process.argv.indexOf('--against');
  const other = flag >= 0 ? process.argv[flag + 1] : undefined;
  if (other === undefined || !existsSync(join(other, 'src/llm/offline-summarizer.js'))) {
    console.error('usage: node dist/bench/level-identity.js --against <other checkout>/dist');
    return 2;
  }
  if (!existsSync(DEV_LEVELS_PATH)) console.log(`${DEV_LEVELS_PATH} not found: dev tasks skipped`);
  const here = resolve(import.meta.dirname, '..');
  const all = inputs();
  const [mine, theirs] = [
    await outputs(await load(here), all),
    await outputs(await load(resolve(other)), all),
  ];
  let differing = 0;
  for (let i = 0; i < mine.length; i++) {
    if (mine[i] === theirs[i]) continue;
    differing++;
    if (differing <= 5) {
      const input = all[Math.floor(i / (LEVELS.length + 1))]?.name ?? '?';
      console.log(
        `differs: ${input}, output ${i % (LEVELS.length + 1)}\n  here:  ${mine[i]}\n  other: ${theirs[i]}`,
      );
    }
  }
  const bytes = all.reduce((n, { task }) => n + Buffer.byteLength(task.fullContext, 'utf8'), 0);
  console.log(
    `${all.length} inputs (${(bytes / 1e6).toFixed(2)} MB of context), ${mine.length} outputs: ${differing === 0 ? 'all identical' : `${differing} differ`}`,
  );
  return differing === 0 ? 0 : 1;
}

process.exitCode = await main();
