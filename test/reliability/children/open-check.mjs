// Opens a memory file that may be damaged, runs check(), and reads back the archive records a
// crash writer (turn path) wrote, comparing each with the text the writer produced for its id.
// Prints one JSON line: { outcome: 'clean', ids, altered } or { outcome: 'error', typed, code, message }.
// Run in a child so that a hang can be detected (the parent kills it after a timeout).
// Args: <path>
const dist = process.env.HEDGEHOP_DIST ?? new URL('../../../dist/', import.meta.url).pathname;
const { openMemory, HedgehopError } = await import(`${dist}/src/index.js`);

const [path] = process.argv.slice(2);
const text = (id, n) => `${id} ${'verbatim payload of the record, '.repeat(n)}end`;

/** What the crash writer wrote for a record whose content starts with `id`. */
function expected(id) {
  if (id.endsWith('-said')) return text(id, 5);
  return id;
}

let db;
try {
  db = await openMemory(path);
  await db.check();
  const records = await db.primary().searchArchive({ limit: 10_000 });
  const ids = [];
  let altered = 0;
  for (const record of records) {
    const id = record.content.split(' ')[0];
    ids.push(id);
    if (/-turn-\d+-(call|said|input|output)$/.test(id) && record.content !== expected(id)) altered++;
  }
  console.log(JSON.stringify({ outcome: 'clean', ids, altered }));
} catch (error) {
  const typed = HedgehopError.isInstance(error);
  console.log(
    JSON.stringify({
      outcome: 'error',
      typed,
      code: typed ? error.code : undefined,
      message: String(error?.message ?? error),
    }),
  );
} finally {
  try {
    if (db && !db.closed) await db.close();
  } catch (error) {
    console.error(`close failed: ${error}`);
  }
}
