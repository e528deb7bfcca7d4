// Writes acknowledged records in a loop until killed; prints each acknowledged name.
// Args: <path> <prefix> <durability>
import { openMemory } from '../../dist/src/index.js';

const [path, prefix, durability = 'full'] = process.argv.slice(2);
const db = await openMemory(path, { durability });
console.log('open');
for (let i = 0; ; i++) {
  const name = `${prefix}-${i}`;
  await db.agent(name);
  process.stdout.write(`ack ${name}\n`);
}
