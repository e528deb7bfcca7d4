// Holds a memory's write lock until killed, standing in for a writer in another process that is
// slow to commit. A file: SQLite's write lock (BEGIN IMMEDIATE). A postgres:// URL: every table
// of the memory's schema locked IN EXCLUSIVE MODE in an open transaction, which blocks every
// write and no read (a plain SELECT's ACCESS SHARE does not conflict with it). Args: <path>
const target = process.argv[2];

if (/^postgres(ql)?:\/\//.test(target)) {
  const { default: pg } = await import('pg');
  const [base, query = ''] = target.split('?');
  const params = new URLSearchParams(query);
  const schema = `hedgehop_${params.get('memory') ?? 'default'}`;
  params.delete('memory');
  const client = new pg.Client({ connectionString: `${base}?${params.toString()}` });
  await client.connect();
  const { rows } = await client.query('SELECT tablename FROM pg_tables WHERE schemaname = $1', [schema]);
  await client.query('BEGIN');
  for (const { tablename } of rows)
    await client.query(`LOCK TABLE "${schema}"."${tablename}" IN EXCLUSIVE MODE`);
} else {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(target);
  db.exec('BEGIN IMMEDIATE');
}
console.log('holding');
setInterval(() => {}, 1 << 30);
