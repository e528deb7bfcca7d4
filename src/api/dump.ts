import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { HedgehopError } from '../core/errors.js';
import { parseInput } from '../core/validate.js';
import {
  exportDump as exportStoreDump,
  importDump as importStoreDump,
  type DumpHeader,
  type DumpImportReport,
  type DumpProgress,
} from '../store/dump-repo.js';
import { isServerUrl } from '../store/memory-store.js';
import { Store } from '../store/store.js';
import type { MemoryDB } from './memory-db.js';

export type { DumpHeader, DumpImportReport, DumpProgress } from '../store/dump-repo.js';

/**
 * Writes the whole file as hedgehop's JSONL dump, one line per `write` call, from one
 * consistent snapshot: a header (format, schema version, tables), then every row. Export →
 * {@link importDump} into a new file → export gives the same bytes.
 *
 * @example
 * ```ts
 * const out = createWriteStream('memory.jsonl');
 * await exportDump(db, (line) => out.write(line));
 * out.end();
 * ```
 */
export async function exportDump(
  db: MemoryDB,
  write: (line: string) => void,
  options: { readonly onProgress?: DumpProgress } = {},
): Promise<DumpHeader> {
  if (typeof write !== 'function')
    throw new HedgehopError('INVALID_INPUT', 'write: must be a function', { field: 'write' });
  const store = db.memoryStore;
  if (!(store instanceof Store)) return store.exportDump(write, options.onProgress);
  return store.exclusive('exportDump', () => exportStoreDump(store.engine, write, options.onProgress));
}

const importOptionsSchema = z.strictObject({
  durability: z.enum(['full', 'normal']).default('full'),
  busyTimeoutMs: z.number().int().min(0).max(600_000).default(5000),
  onProgress: z.custom<DumpProgress>((value) => typeof value === 'function', 'must be a function').optional(),
});

/** Options of {@link importDump}. */
export type DumpImportOptions = z.input<typeof importOptionsSchema>;

/**
 * Imports a dump written by {@link exportDump} into a NEW file at `path` (a path that does not
 * exist, or a memory file holding nothing yet), in one transaction: a malformed or truncated
 * dump is refused, naming the line, and leaves the file as it was. The file is opened
 * exclusively for the import and closed after it.
 *
 * @example
 * ```ts
 * const lines = readFileSync('memory.jsonl', 'utf8').split('\n');
 * const report = await importDump('restored.db', lines);
 * ```
 */
export async function importDump(
  path: string,
  lines: Iterable<string>,
  options: DumpImportOptions = {},
): Promise<DumpImportReport> {
  const target = parseInput(z.string().min(1, 'must not be empty'), path, 'path');
  const settings = parseInput(importOptionsSchema, options, 'options');
  if (isServerUrl(target)) return importServerDump(target, lines, settings);
  const full = resolve(target);
  if (existsSync(full) && statSync(full).isDirectory()) {
    throw new HedgehopError('INVALID_INPUT', `path: ${full} is a directory`, { field: 'path' });
  }
  const store = Store.open(full, {
    durability: settings.durability,
    mode: 'exclusive',
    busyTimeoutMs: settings.busyTimeoutMs,
  });
  try {
    return await store.exclusive('importDump', () =>
      importStoreDump(store.engine, lines, { onProgress: settings.onProgress }),
    );
  } finally {
    await store.close();
  }
}

/** Splits text into lines for {@link importDump}. */
export function dumpLines(text: string): string[] {
  return text.split('\n');
}

/** {@link importDump} into a memory on a PostgreSQL server (a new one, or one holding nothing yet). */
async function importServerDump(
  url: string,
  lines: Iterable<string>,
  settings: z.output<typeof importOptionsSchema>,
): Promise<DumpImportReport> {
  const { PgStore } = await import('../store/pg/pg-store.js');
  const store = await PgStore.open(url, {
    durability: settings.durability,
    mode: 'exclusive',
    busyTimeoutMs: settings.busyTimeoutMs,
  });
  try {
    return await store.importDump(lines, { onProgress: settings.onProgress });
  } finally {
    await store.close();
  }
}
