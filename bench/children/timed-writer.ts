/**
 * Bench child: commits `count` radial tasks on its own line and prints one JSON line with the
 * per-commit latencies in milliseconds. Args: <path> <prefix> <count>
 */
import { openMemory } from '../../src/index.js';

const [path = '', prefix = 'w', countText = '100'] = process.argv.slice(2);
const count = Number(countText);
const db = await openMemory(path, { busyTimeoutMs: 60_000 });
const radial = db.primary().radial;
await radial.getOrCreateLine(`line-${prefix}`, `Line ${prefix}`, 'bench writer');
const started = performance.now();
const latencies: number[] = [];
for (let i = 0; i < count; i++) {
  const t0 = performance.now();
  await radial.completeTask({
    lineId: `line-${prefix}`,
    taskLabel: `${prefix} task ${i}`,
    fullContext: `Verbatim context of ${prefix} task ${i}. `.repeat(20),
    conversationSummary: `Summary of ${prefix} task ${i}: what changed and why.`,
  });
  latencies.push(performance.now() - t0);
}
const elapsedMs = performance.now() - started;
await db.close();
process.stdout.write(`${JSON.stringify({ prefix, elapsedMs, latencies })}\n`);
