// Commits `count` tasks to one radial line, printing each acknowledged node id.
// Args: <path> <lineId> <prefix> <count>
import { openMemory } from '../../dist/src/index.js';

const [path, lineId, prefix, count] = process.argv.slice(2);
const db = await openMemory(path, { busyTimeoutMs: 30_000 });
const radial = db.primary().radial;
await radial.getOrCreateLine(lineId, lineId, 'shared line');
console.log('open');
for (let i = 0; i < Number(count); i++) {
  const node = await radial.completeTask({
    lineId,
    taskLabel: `${prefix} task ${i}`,
    fullContext: `${prefix} context ${i}\n`.repeat(20),
    conversationSummary: `${prefix} summary ${i}`,
  });
  process.stdout.write(`ack ${node.id}\n`);
}
await db.close();
console.log('done');
