/**
 * Torn and corrupt files. A child writes turns (durability full) and is SIGKILLed; copies of the
 * killed file are then damaged five ways and each copy is opened and checked in a child process
 * (killed after a timeout, so a hang fails the test):
 *
 * - torn WAL tail: the WAL cut at a random offset past the last acknowledged commit (what a
 *   crash in the middle of a write leaves). Must open with nothing acknowledged lost.
 * - WAL cut anywhere, WAL bytes flipped: damage to data already acknowledged. SQLite's WAL frames
 *   carry checksums, so it stops at the first bad frame and opens the last consistent state; the
 *   writes after it are lost without an error. Reported, not asserted.
 * - main file cut at a random offset (after a checkpoint): must be reported `CORRUPT`, or open
 *   with nothing lost.
 * - main file bytes flipped: reported `CORRUPT`, or opens intact, or (SQLite keeps no page
 *   checksums) a flipped byte inside a record's text goes unnoticed: counted and reported.
 *
 * In every case: never an unhandled exception, never a hang; an error is a typed HedgehopError.
 */
import {
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readSync,
  statSync,
  truncateSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/harness.js';
import { openMemory } from '../../src/index.js';
import { kill, recordFigure, requireBuild, runChildJson, scratch, sleep, startChild } from './helpers.js';

const KILLS = 10;

type Fault =
  | 'torn WAL tail'
  | 'WAL cut anywhere'
  | 'WAL bytes flipped'
  | 'main file cut'
  | 'main file bytes flipped';

type CheckResult =
  | { outcome: 'clean'; ids: string[]; altered: number }
  | { outcome: 'error'; typed: boolean; code?: string; message: string };

interface Tally {
  trials: number;
  intact: number;
  reportedCorrupt: number;
  otherTypedErrors: Record<string, number>;
  silentLoss: number;
  ackedLost: number;
  silentlyAltered: number;
  notApplicable: number;
}

const tallies = new Map<Fault, Tally>();

function tally(fault: Fault): Tally {
  let t = tallies.get(fault);
  if (!t) {
    t = {
      trials: 0,
      intact: 0,
      reportedCorrupt: 0,
      otherTypedErrors: {},
      silentLoss: 0,
      ackedLost: 0,
      silentlyAltered: 0,
      notApplicable: 0,
    };
    tallies.set(fault, t);
  }
  return t;
}

/** Copies a memory file (and its WAL when present) to `target`. */
function copyMemory(source: string, target: string): void {
  copyFileSync(source, target);
  if (existsSync(`${source}-wal`)) copyFileSync(`${source}-wal`, `${target}-wal`);
}

/** Flips 1..8 random bytes of `file` (each XORed with a random non-zero value). */
function flipBytes(file: string, random: () => number, from = 0): void {
  const size = statSync(file).size;
  const fd = openSync(file, 'r+');
  try {
    const flips = 1 + Math.floor(random() * 8);
    for (let i = 0; i < flips; i++) {
      const offset = from + Math.floor(random() * Math.max(1, size - from));
      const byte = Buffer.alloc(1);
      readSync(fd, byte, 0, 1, offset);
      byte[0] = (byte[0] as number) ^ (1 + Math.floor(random() * 255));
      writeSync(fd, byte, 0, 1, offset);
    }
  } finally {
    closeSync(fd);
  }
}

async function judge(fault: Fault, file: string, acked: readonly string[]): Promise<void> {
  const t = tally(fault);
  t.trials++;
  const result = await runChildJson<CheckResult>('open-check.mjs', [file], 30_000);
  if (result.outcome === 'error') {
    expect(result.typed, `${fault}: untyped error ${result.message}`).toBe(true);
    if (result.code === 'CORRUPT') t.reportedCorrupt++;
    else t.otherTypedErrors[result.code ?? '?'] = (t.otherTypedErrors[result.code ?? '?'] ?? 0) + 1;
    return;
  }
  const held = new Set(result.ids);
  const lost = acked.filter((id) => !held.has(id)).length;
  t.silentlyAltered += result.altered;
  if (lost === 0 && result.altered === 0) t.intact++;
  else if (lost > 0) {
    t.silentLoss++;
    t.ackedLost += lost;
  }
  if (fault === 'torn WAL tail' || fault === 'main file cut') {
    expect(lost, `${fault}: acknowledged writes lost without an error`).toBe(0);
  }
}

/** One killed writer: the file, what it acknowledged, and where in the WAL the last ack ended. */
async function killedWriter(
  dir: string,
  random: () => number,
): Promise<{ file: string; acked: string[]; lastAckWal: number; walMonotonic: boolean }> {
  const file = join(dir, 'memory.db');
  const created = await openMemory(file);
  await created.checkpoint();
  await created.close();
  const child = startChild('crash-writer.mjs', [file, 'turn', 'full', 'w', 'wal']);
  await child.waitFor((line) => line.startsWith('ack '));
  await sleep(30 + Math.floor(random() * 250));
  await kill(child);
  const acks = child.lines.filter((line) => line.startsWith('ack ')).map((line) => line.split(' '));
  const sizes = acks.map((parts) => Number(parts[2]));
  const walMonotonic = sizes.every((size, i) => i === 0 || size > (sizes[i - 1] as number));
  return {
    file,
    acked: acks.map((parts) => parts[1] as string),
    lastAckWal: sizes[sizes.length - 1] ?? 0,
    walMonotonic,
  };
}

describe('torn and corrupt files', () => {
  beforeAll(() => requireBuild());

  it(`never throws untyped or hangs, and loses nothing acknowledged to a torn WAL tail (${KILLS} kills × 5 faults)`, async () => {
    const random = seededRandom(4242);
    for (let round = 0; round < KILLS; round++) {
      const dir = scratch();
      const { file, acked, lastAckWal, walMonotonic } = await killedWriter(dir, random);
      const walBytes = existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0;

      const torn = join(dir, 'torn.db');
      copyMemory(file, torn);
      if (walMonotonic && walBytes >= lastAckWal && existsSync(`${torn}-wal`)) {
        truncateSync(`${torn}-wal`, lastAckWal + Math.floor(random() * (walBytes - lastAckWal + 1)));
        await judge('torn WAL tail', torn, acked);
      } else tally('torn WAL tail').notApplicable++;

      const cut = join(dir, 'cut.db');
      copyMemory(file, cut);
      if (existsSync(`${cut}-wal`)) truncateSync(`${cut}-wal`, Math.floor(random() * walBytes));
      await judge('WAL cut anywhere', cut, acked);

      const flipped = join(dir, 'flipped.db');
      copyMemory(file, flipped);
      if (existsSync(`${flipped}-wal`)) flipBytes(`${flipped}-wal`, random);
      await judge('WAL bytes flipped', flipped, acked);

      // The main-file faults start from a checkpointed copy: everything acknowledged is in it.
      const settled = join(dir, 'settled.db');
      copyMemory(file, settled);
      const db = await openMemory(settled);
      await db.checkpoint();
      await db.close();

      const mainCut = join(dir, 'main-cut.db');
      copyMemory(settled, mainCut);
      truncateSync(mainCut, Math.floor(random() * statSync(mainCut).size));
      await judge('main file cut', mainCut, acked);

      const mainFlipped = join(dir, 'main-flipped.db');
      copyMemory(settled, mainFlipped);
      flipBytes(mainFlipped, random);
      await judge('main file bytes flipped', mainFlipped, acked);
    }
    for (const [fault, t] of tallies) recordFigure({ suite: 'torn-files', fault, ...t });
    expect(tally('torn WAL tail').trials).toBeGreaterThan(0);
  }, 300_000);
});
