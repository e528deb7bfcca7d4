// Commits one task, says so, then blocks its event loop until killed: a writer process that dies
// between a commit and the recall-index catch-up its next turn would have run.
// Args: <path> <lineId> <label> <fullContext>
import { writeSync } from 'node:fs';
import { openMemory } from '../../dist/src/index.js';

const [path, lineId, taskLabel, fullContext] = process.argv.slice(2);
const db = await openMemory(path, { durability: 'full' });
const radial = db.primary().radial;
await radial.getOrCreateLine(lineId, lineId, 'a line');
const node = await radial.completeTask({ lineId, taskLabel, fullContext, conversationSummary: taskLabel });
writeSync(1, `committed ${node.id}\n`);
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
