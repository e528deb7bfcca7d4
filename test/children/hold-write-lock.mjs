// Takes SQLite's write lock on a memory file (BEGIN IMMEDIATE) and holds it until killed,
// standing in for a writer in another process that is slow to commit. Args: <path>
import Database from 'better-sqlite3';

const db = new Database(process.argv[2]);
db.exec('BEGIN IMMEDIATE');
console.log('holding');
setInterval(() => {}, 1 << 30);
