/**
 * Conversation tests that feed a short dialogue and ask recall about it: a fresh memory per
 * test (closed after it) and the turns written one per scene turn, the first opening a scene.
 */
import { afterEach, beforeEach } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import type { Agent } from '../../src/api/agent.js';
import { freshMemoryPath } from './engines.js';

export const MINUTE = 60_000;
/** When the first turn of a fed dialogue is written. */
export const T0 = Date.UTC(2024, 2, 14, 9, 0);

/** Opens a fresh memory before each test of the file (on the engine under test) and closes it after; returns its getter. */
export function memoryPerTest(): () => MemoryDB {
  let db: MemoryDB | undefined;
  beforeEach(async () => {
    db = await openMemory(freshMemoryPath(), { durability: 'normal', dream: { auto: false } });
  });
  afterEach(async () => {
    if (db && !db.closed) await db.close();
  });
  return () => {
    if (!db) throw new Error('memoryPerTest: no memory outside a test');
    return db;
  };
}

/** Writes `turns` ([input, output]) as the turns of a new scene, `minutes` apart from {@link T0}. */
export async function feedTurns(
  agent: Agent,
  turns: readonly (readonly [string, string])[],
  minutes: number,
): Promise<void> {
  for (const [i, [input, output]] of turns.entries()) {
    await agent.search(i === 0 ? { newScene: true } : {});
    await agent.update({ input, output, createdAt: T0 + i * minutes * MINUTE });
  }
}
