/**
 * Bench child: commits radial tasks on its own line and prints one JSON line with the per-commit
 * latencies in milliseconds. Args: <path> <prefix> <count> [<durationMs> <warmup> <agent>]
 * - `count` commits, or with `durationMs` > 0 as many as fit in that time;
 * - `warmup` commits first (connections opened, statements and caches warm), not timed;
 * - `agent` `own`: the writer is an agent of its own (`writer-<prefix>`), else the primary agent.
 * Once warm it prints `ready` and waits for a line on stdin before timing, so that a driver can
 * start several writers at once (bench/multiprocess.ts). `cpuMs` is the process's CPU time
 * (user + system) over the timed commits only, start-up and warm-up left out.
 */
import { createInterface } from 'node:readline';
import { openMemory } from '../../src/index.js';

const [
  path = '',
  prefix = 'w',
  countText = '100',
  durationText = '0',
  warmupText = '0',
  agentMode = 'primary',
] = process.argv.slice(2);
const count = Number(countText);
const durationMs = Number(durationText);
const warmup = Number(warmupText);
const db = await openMemory(path, { busyTimeoutMs: 60_000 });
const radial = (agentMode === 'own' ? await db.agent(`writer-${prefix}`) : db.primary()).radial;
await radial.getOrCreateLine(`line-${prefix}`, `Line ${prefix}`, 'bench writer');
const commit = (label: string, i: number) =>
  radial.completeTask({
    lineId: `line-${prefix}`,
    taskLabel: `${prefix} ${label} ${i}`,
    fullContext: `Verbatim context of ${prefix} task ${i}. `.repeat(20),
    conversationSummary: `Summary of ${prefix} task ${i}: what changed and why.`,
  });
for (let i = 0; i < warmup; i++) await commit('warm-up', i);
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
lines.close();
const started = performance.now();
const cpuAtStart = process.cpuUsage();
const latencies: number[] = [];
for (let i = 0; durationMs > 0 ? performance.now() - started < durationMs : i < count; i++) {
  const t0 = performance.now();
  await commit('task', i);
  latencies.push(performance.now() - t0);
}
const elapsedMs = performance.now() - started;
const cpu = process.cpuUsage(cpuAtStart);
await db.close();
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(
  `${JSON.stringify({ prefix, elapsedMs, commits: latencies.length, latencies, cpuMs })}\n`,
);
