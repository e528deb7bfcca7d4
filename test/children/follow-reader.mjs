// Polls a memory file every `interval` ms and prints how many radial nodes it sees, with the
// wall-clock time the poll started reading (so a test can tell polls begun after a commit).
// Args: <path> <interval>
import { openMemory } from '../../dist/src/index.js';

const [path, intervalText] = process.argv.slice(2);
const db = await openMemory(path);
const radial = db.primary().radial;
let poll = 0;
console.log('open');
for (;;) {
  const startedAt = Date.now();
  const lines = await radial.listLines();
  const nodes = lines.reduce((sum, line) => sum + line.nodeCount, 0);
  process.stdout.write(`poll ${poll++} ${nodes} ${startedAt}\n`);
  await new Promise((resolve) => setTimeout(resolve, Number(intervalText)));
}
