/**
 * A fresh process that opens one file, recalls over it and reports what that cost: the open's
 * time, each recall's time and the process's peak resident memory. Run by bench/scaling.ts, so
 * that "cold open" means a process that has never touched the file, and RSS is this process's
 * alone. Args: <hedgehop|raw> <path> <queries as JSON>. Prints one JSON line.
 */
import Database from 'better-sqlite3';
import { floorMatch } from '../raw-floor.js';

const [mode, path, queriesJson] = process.argv.slice(2);
const queries = JSON.parse(queriesJson ?? '[]') as string[];
const rssBefore = process.memoryUsage().rss;
const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

async function probeHedgehop(): Promise<{ openMs: number; recallMs: number[] }> {
  // Loaded here, not at the top, so that the raw probe's memory holds nothing of hedgehop.
  const { openMemory } = await import('../../src/index.js');
  const started = process.hrtime.bigint();
  const db = await openMemory(path as string);
  const agent = db.primary();
  const openMs = ms(started);
  const recallMs: number[] = [];
  for (const query of queries) {
    const start = process.hrtime.bigint();
    await agent.recall(query, { budgetTokens: 500 });
    recallMs.push(ms(start));
  }
  await db.close();
  return { openMs, recallMs };
}

function probeRaw(): { openMs: number; recallMs: number[] } {
  const started = process.hrtime.bigint();
  const db = new Database(path as string);
  db.pragma('journal_mode = WAL');
  const statement = db.prepare(
    'SELECT r.id, r.text FROM records_fts f JOIN records r ON r.id = f.rowid WHERE records_fts MATCH ? ORDER BY f.rank LIMIT 10',
  );
  const openMs = ms(started);
  const recallMs: number[] = [];
  for (const query of queries) {
    const start = process.hrtime.bigint();
    const match = floorMatch(query);
    if (match !== undefined) statement.all(match);
    recallMs.push(ms(start));
  }
  db.close();
  return { openMs, recallMs };
}

const result = mode === 'raw' ? probeRaw() : await probeHedgehop();
process.stdout.write(
  `${JSON.stringify({ ...result, rssBeforeBytes: rssBefore, maxRssBytes: process.resourceUsage().maxRSS * 1024 })}\n`,
);
