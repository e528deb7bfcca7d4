import { existsSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { HedgehopError } from '../core/errors.js';
import { parseInput } from '../core/validate.js';
import type { ReindexReport } from '../memory/recall/reindex.js';
import type { CheckReport } from '../store/maintenance.js';
import { salvageInto, type SalvagedTable } from '../store/salvage.js';
import { Store } from '../store/store.js';
import { openMemory } from './memory-db.js';

export type { SalvagedTable, RowidRange } from '../store/salvage.js';

/** Options of {@link recoverMemory}. */
export interface RecoverOptions {
  /** How long to wait for the new file's write lock (default 5000 ms). */
  readonly busyTimeoutMs?: number;
}

/** What {@link recoverMemory} kept and lost. */
export interface RecoverReport {
  readonly from: string;
  readonly to: string;
  /** Per copied table: rows kept, rowid spans that could not be read, rows refused or orphaned. */
  readonly tables: readonly SalvagedTable[];
  /** Tables not copied but rebuilt in the new file (the recall index; vectors are re-embedded later). */
  readonly rebuilt: readonly string[];
  /** The recall index rebuild on the new file. */
  readonly reindex: ReindexReport;
  /** The new file's integrity check. */
  readonly check: CheckReport;
}

const pathSchema = z.string().min(1, 'must not be empty');
const optionsSchema = z
  .object({ busyTimeoutMs: z.number().int('must be a whole number').min(0, 'must be 0 or more').optional() })
  .strict();

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * Salvages a damaged memory file: every readable row of every table is copied into the new file
 * `to` (created at the current schema), the recall index is rebuilt there and the new file is
 * checked. The damaged file is opened read-only and never changed. Rows on damaged pages are
 * reported per table as unreadable rowid spans.
 *
 * @example
 * ```ts
 * const report = await recoverMemory('memory.db', 'memory-recovered.db');
 * for (const t of report.tables) console.log(t.table, t.kept, t.unreadable);
 * ```
 */
export async function recoverMemory(
  from: string,
  to: string,
  options: RecoverOptions = {},
): Promise<RecoverReport> {
  const source = resolve(parseInput(pathSchema, from, 'from'));
  const target = resolve(parseInput(pathSchema, to, 'to'));
  const checked = parseInput(optionsSchema, options, 'options');
  if (!existsSync(source)) throw new HedgehopError('NOT_FOUND', `from: ${source} does not exist`);
  if (statSync(source).isDirectory())
    throw new HedgehopError('INVALID_INPUT', `from: ${source} is a directory, not a memory file`, {
      field: 'from',
    });
  if (sameFile(source, target))
    throw new HedgehopError('INVALID_INPUT', `to: ${target} is the damaged file itself; name a new file`, {
      field: 'to',
    });
  if (existsSync(target))
    throw new HedgehopError('INVALID_INPUT', `to: ${target} already exists; recover writes only a new file`, {
      field: 'to',
    });
  if (!existsSync(dirname(target)))
    throw new HedgehopError('INVALID_INPUT', `to: the folder ${dirname(target)} does not exist`, {
      field: 'to',
    });
  const busyTimeoutMs = checked.busyTimeoutMs ?? 5000;
  try {
    const store = Store.open(target, { durability: 'full', mode: 'exclusive', busyTimeoutMs });
    let salvage;
    try {
      salvage = salvageInto(source, store);
    } finally {
      await store.close();
    }
    const db = await openMemory(target, { busyTimeoutMs, mode: 'exclusive' });
    try {
      const reindex = await db.reindex();
      const check = await db.check();
      return { from: source, to: target, tables: salvage.tables, rebuilt: salvage.rebuilt, reindex, check };
    } finally {
      await db.close();
    }
  } catch (error) {
    // A salvage that failed leaves no half-made file behind.
    for (const suffix of ['', '-wal', '-shm', '-lock']) rmSync(`${target}${suffix}`, { force: true });
    throw error;
  }
}
