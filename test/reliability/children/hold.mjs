// Opens a memory file in the given mode and holds it until killed. Args: <path> <shared|exclusive>
const dist = process.env.HEDGEHOP_DIST ?? new URL('../../../dist/', import.meta.url).pathname;
const { openMemory } = await import(`${dist}/src/index.js`);

const [path, mode] = process.argv.slice(2);
await openMemory(path, { mode });
console.log('open');
setInterval(() => {}, 1 << 30);
