import { expect } from 'vitest';
import { openMemory, type Agent } from '../../src/index.js';

/** One write acknowledged by test/children/pg-fault-writer.mjs, with every byte it wrote. */
export type AckedWrite =
  | { readonly kind: 'node'; readonly id: string; readonly label: string; readonly full: string }
  | {
      readonly kind: 'record';
      readonly id: string;
      readonly topicId: string;
      readonly seq: number;
      readonly content: string;
    }
  | { readonly kind: 'turn'; readonly topicId: string; readonly input: string; readonly output: string };

/** The writes a child acknowledged (`ack <json>` lines). */
export function ackedWrites(lines: readonly string[]): AckedWrite[] {
  return lines
    .filter((line) => line.startsWith('ack '))
    .map((line) => JSON.parse(line.slice(4)) as AckedWrite);
}

/** The HedgehopErrors a `survive` child printed (`error <json>` lines). */
export function childErrors(lines: readonly string[]): { code: string; message: string; ms: number }[] {
  return lines
    .filter((line) => line.startsWith('error '))
    .map((line) => JSON.parse(line.slice(6)) as { code: string; message: string; ms: number });
}

/**
 * Opens the memory at `path`, runs `check()`, and asserts that every acknowledged write of the
 * agent (`where.agent`, default the primary) is there exactly once, byte for byte: each radial node with its label and full state, the line's
 * positions 1..n; each archive record with its turn, slot and content; each closed turn's input
 * (slot 1) and output (slot 2). Returns how many writes were verified.
 */
export async function verifyAcked(
  path: string,
  acked: readonly AckedWrite[],
  where: { readonly lineId?: string; readonly agent?: string } = {},
): Promise<number> {
  const db = await openMemory(path);
  try {
    await db.check();
    const agent = where.agent === undefined ? db.primary() : await db.agent(where.agent);
    await verifyIn(agent, acked, where.lineId ?? 'faults');
  } finally {
    await db.close();
  }
  return acked.length;
}

async function verifyIn(agent: Agent, acked: readonly AckedWrite[], lineId: string): Promise<void> {
  const radial = agent.radial;
  const history = (await radial.getLine(lineId)) ? await radial.getLineHistory(lineId) : [];
  const positions = history.map((entry) => entry.position).sort((a, b) => a - b);
  expect(positions, `line ${lineId}: positions 1..n`).toEqual(positions.map((_, i) => i + 1));
  const labels = history.map((entry) => entry.taskLabel);
  const topics = new Map<string, Awaited<ReturnType<typeof agent.searchArchive>>>();
  const recordsOf = async (topicId: string): Promise<Awaited<ReturnType<typeof agent.searchArchive>>> => {
    const known = topics.get(topicId);
    if (known) return known;
    const records = await agent.searchArchive({ topicId, limit: 10_000 });
    topics.set(topicId, records);
    return records;
  };
  for (const write of acked) {
    if (write.kind === 'node') {
      const node = await radial.getNodeById(write.id);
      expect(node?.taskLabel, `node ${write.label}`).toBe(write.label);
      expect(
        labels.filter((label) => label === write.label),
        `node ${write.label} once on the line`,
      ).toHaveLength(1);
      expect(await radial.loadFullState(write.id), `full state of ${write.label}`).toBe(write.full);
    } else if (write.kind === 'record') {
      const records = await recordsOf(write.topicId);
      const found = records.filter((record) => record.content === write.content);
      expect(found, `record ${write.id} once in its turn`).toHaveLength(1);
      expect({ id: found[0]?.id, seq: found[0]?.seq }).toEqual({ id: write.id, seq: write.seq });
    } else {
      const records = await recordsOf(write.topicId);
      expect(records.find((record) => record.seq === 1)?.content, `input of turn ${write.topicId}`).toBe(
        write.input,
      );
      expect(records.find((record) => record.seq === 2)?.content, `output of turn ${write.topicId}`).toBe(
        write.output,
      );
      expect(records.filter((record) => record.content === write.input)).toHaveLength(1);
    }
  }
}
