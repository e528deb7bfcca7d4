/**
 * A fresh process that opens one file, recalls over it and reports what that cost: the open's
 * time, each recall's time and the process's peak resident memory. Run by bench/scaling.ts, so
 * that "cold open" means a process that has never touched the file, and RSS is this process's
 * alone. Args: <hedgehop|raw> <path> <queries as JSON>. Prints one JSON line.
 */
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { floorMatch } from '../raw-floor.js';

const [mode, path, queriesJson] = process.argv.slice(2);
const queries = JSON.parse(queriesJson ?? '[]') as string[];
const rssBefore = process.memoryUsage().rss;
const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

async function probeHedgehop(): Promise<{ openMs: number; recallMs: number[]; beforeClose: Resident }> {
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
  const beforeClose = resident();
  await db.close();
  return { openMs, recallMs, beforeClose };
}

function probeRaw(): { openMs: number; recallMs: number[]; beforeClose: Resident } {
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
  const beforeClose = resident();
  db.close();
  return { openMs, recallMs, beforeClose };
}

/** Resident memory now, anonymous (heaps, buffers) and file-backed (the program, mapped files). */
interface Resident {
  readonly anonBytes?: number | undefined;
  readonly fileBytes?: number | undefined;
}

/** The `kB` fields of this process's `/proc/self/status` (empty where there is none). */
function status(): (field: string) => number | undefined {
  let text = '';
  try {
    text = readFileSync('/proc/self/status', 'utf8');
  } catch {
    // Not Linux: no split, and the peak from getrusage below.
  }
  return (field) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'mu').exec(text);
    return match ? Number(match[1]) * 1024 : undefined;
  };
}

function resident(): Resident {
  const kib = status();
  return { anonBytes: kib('RssAnon'), fileBytes: kib('RssFile') };
}

/**
 * This process's peak resident memory. On Linux it is `VmHWM`, the high-water mark of this
 * process's own address space. `getrusage`'s `maxRSS` (`process.resourceUsage()`) is not: Linux
 * carries the parent's resident size at the fork into a child's maximum, so every child of a
 * 170 MB bench process reported at least 170 MB.
 */
function peakRss(): number {
  return status()('VmHWM') ?? process.resourceUsage().maxRSS * 1024;
}

const result = mode === 'raw' ? probeRaw() : await probeHedgehop();
process.stdout.write(
  `${JSON.stringify({ ...result, rssBeforeBytes: rssBefore, peakRssBytes: peakRss() })}\n`,
);
