// Opens a memory file and holds it until killed. Args: <path> <mode>
import { openMemory } from '../../dist/src/index.js';

const [path, mode] = process.argv.slice(2);
await openMemory(path, { mode });
console.log('open');
setInterval(() => {}, 1 << 30);
