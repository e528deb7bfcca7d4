import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { startChild } from '../helpers/child.js';
import { tempFile } from '../helpers/temp.js';
import { seededRandom } from '../../bench/harness.js';

const KILLS = 50;

describe('crash safety', () => {
  it(`keeps every acknowledged write across ${KILLS} SIGKILLs at random moments`, async () => {
    const path = tempFile();
    const random = seededRandom(20261130);
    const acknowledged = new Set<string>();
    for (let round = 0; round < KILLS; round++) {
      const durability = round % 2 === 0 ? 'full' : 'normal';
      const child = startChild('write-loop.mjs', [path, `r${round}`, durability]);
      await child.waitFor((line) => line === 'open');
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(random() * 60)));
      child.process.kill('SIGKILL');
      await child.exited;
      for (const line of child.lines) if (line.startsWith('ack ')) acknowledged.add(line.slice(4));

      const db = await openMemory(path);
      await db.check();
      const names = new Set((await db.agents()).map((agent) => agent.name));
      const missing = [...acknowledged].filter((name) => !names.has(name));
      expect(missing, `round ${round}: acknowledged but lost`).toEqual([]);
      await db.close();
    }
    expect(acknowledged.size).toBeGreaterThan(KILLS);
  }, 180_000);
});
