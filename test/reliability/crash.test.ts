/**
 * Crash safety per write path: a child process writes through one path in a loop and is
 * SIGKILLed at a random moment (sometimes before it has even opened the memory); the memory is
 * then reopened here, must pass `check()`, and must hold every write the child acknowledged. The
 * same suite runs on both engines (on PostgreSQL the killed process is a client; the server keeps
 * running). What is about SQLite's own files (torn pages, a cut WAL) stays in torn-files.test.ts,
 * SQLite-only: a PostgreSQL server's files are the server's to protect.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { seededRandom } from '../../bench/harness.js';
import { openMemory } from '../../src/index.js';
import { describeEngines, type EngineUnderTest } from '../helpers/engines.js';
import { kill, recordFigure, requireBuild, scratch, sleep, startChild } from './helpers.js';
import { acknowledged, openCheckAndRead, type WritePath } from './verify.js';

const ROUNDS = 22;

/** Whether the built package has Dream (it lands after the other layers). */
async function hasDream(): Promise<boolean> {
  const file = join(scratch(), 'probe.db');
  const db = await openMemory(file);
  const present = typeof (db.primary() as unknown as { dream?: unknown }).dream === 'function';
  await db.close();
  return present;
}

interface PathFigures {
  kills: number;
  killedBeforeOpen: number;
  acknowledged: number;
  found: number;
  lost: number;
  checksPassed: number;
}

async function crashRounds(engine: EngineUnderTest, path: WritePath, seed: number): Promise<PathFigures> {
  const file = engine.memoryPath();
  const compactDir = scratch();
  const random = seededRandom(seed);
  const acked = new Set<string>();
  const compactions: { target: string; lastId: string }[] = [];
  const figures: PathFigures = {
    kills: 0,
    killedBeforeOpen: 0,
    acknowledged: 0,
    found: 0,
    lost: 0,
    checksPassed: 0,
  };
  for (let round = 0; round < ROUNDS; round++) {
    const durability = round % 2 === 0 ? 'full' : 'normal';
    const child = startChild('crash-writer.mjs', [file, path, durability, `r${round}`], {
      HEDGEHOP_COMPACT_DIR: compactDir,
    });
    if (round % 4 === 3) {
      // Kill at a random moment after the start: sometimes while the file is being opened.
      await sleep(Math.floor(random() * 600));
    } else {
      // A PostgreSQL write is a round trip to a server on a busy machine: wait for the first
      // acknowledged one there, so that each kill lands among writes rather than before them.
      await child.waitFor((line) => (engine.name === 'sqlite' ? line === 'open' : line.startsWith('ack ')));
      await sleep(20 + Math.floor(random() * 400));
    }
    if (!child.lines.includes('open')) figures.killedBeforeOpen++;
    await kill(child);
    figures.kills++;
    for (const id of acknowledged(child.lines)) acked.add(id);
    for (const line of child.lines.filter((l) => l.startsWith('compacted '))) {
      const [, target, lastId] = line.split(' ');
      compactions.push({ target: target as string, lastId: lastId as string });
    }
    const result = await openCheckAndRead(file, path);
    if ('error' in result) throw new Error(`round ${round}: ${result.error.code}: ${result.error.message}`);
    figures.checksPassed++;
    const missing = [...acked].filter((id) => !result.ids.has(id));
    expect(missing, `${path}, round ${round}: acknowledged but lost`).toEqual([]);
  }
  figures.acknowledged = acked.size;
  const final = await openCheckAndRead(file, path);
  if ('error' in final) throw final.error;
  figures.found = [...acked].filter((id) => final.ids.has(id)).length;
  figures.lost = figures.acknowledged - figures.found;
  if (path === 'compact') await verifyCompactions(compactions, acked);
  return figures;
}

/** Every acknowledged `compactTo` target opens, passes check() and holds what was acked before it. */
async function verifyCompactions(
  compactions: readonly { target: string; lastId: string }[],
  acked: ReadonlySet<string>,
): Promise<void> {
  for (const { target, lastId } of compactions) {
    const result = await openCheckAndRead(target, 'compact');
    if ('error' in result)
      throw new Error(`compacted copy ${target}: ${result.error.code}: ${result.error.message}`);
    expect(result.ids.has(lastId), `${target} holds ${lastId}`).toBe(true);
    expect(acked.has(lastId)).toBe(true);
  }
  recordFigure({ suite: 'crash', path: 'compact', compactedCopiesVerified: compactions.length });
}

describeEngines('crash safety: SIGKILL at random moments, per write path', (engine) => {
  let dream = false;
  beforeAll(async () => {
    requireBuild();
    dream = await hasDream();
  });

  const paths: [WritePath, number][] = [
    ['radial', 101],
    ['turn', 202],
    ['knowledge', 303],
    ['memory-server', 404],
    ['compact', 505],
    ['dream', 606],
  ];
  for (const [path, seed] of paths) {
    it(`${path}: every acknowledged write survives ${ROUNDS} kills, and the file passes check() after each`, async (context) => {
      if (path === 'dream' && !dream) {
        recordFigure({ suite: 'crash', path, skipped: 'agent.dream is not in this build' });
        context.skip();
      }
      const figures = await crashRounds(engine, path, seed);
      recordFigure({ suite: 'crash', engine: engine.name, path, ...figures });
      expect(figures.lost).toBe(0);
      expect(figures.checksPassed).toBe(ROUNDS);
      expect(figures.acknowledged).toBeGreaterThan(ROUNDS);
    }, 240_000);
  }

  it('leaves no stale lock: an exclusive open succeeds right after a kill', async () => {
    const file = engine.memoryPath();
    const child = startChild('crash-writer.mjs', [file, 'turn', 'full', 'lock']);
    await child.waitFor((line) => line.startsWith('ack '));
    await kill(child);
    const db = await openMemory(file, { mode: 'exclusive' });
    await db.check();
    await db.close();
    if (engine.name === 'sqlite') expect(existsSync(file)).toBe(true);
  });
});
