import { HedgehopError, openMemory, type MemoryDB } from '../../src/index.js';

/** The write paths the crash suite kills (see children/crash-writer.mjs). */
export type WritePath = 'radial' | 'turn' | 'knowledge' | 'memory-server' | 'compact' | 'dream';

/** The first word of each archive record's content (the crash writer starts every text with its id). */
async function archiveIds(db: MemoryDB): Promise<Set<string>> {
  const records = await db.primary().searchArchive({ limit: 10_000 });
  if (records.length >= 10_000) throw new Error('too many archive records to verify in one read');
  return new Set(records.map((record) => record.content.split(' ')[0] as string));
}

/** What the file holds of the given write path, as the ids the crash writer acknowledges. */
export async function heldIds(db: MemoryDB, path: WritePath): Promise<Set<string>> {
  switch (path) {
    case 'radial': {
      const line = await db.primary().radial.getLine('crash');
      if (!line) return new Set();
      const history = await db.primary().radial.getLineHistory('crash');
      const positions = history.map((entry) => entry.position).sort((a, b) => a - b);
      positions.forEach((position, index) => {
        if (position !== index + 1) throw new Error(`line positions are not 1..n: ${positions.join(',')}`);
      });
      return new Set(history.map((entry) => entry.taskLabel));
    }
    case 'turn':
    case 'dream':
      return archiveIds(db);
    case 'knowledge': {
      const info = await db.knowledge.getByLabel('crash');
      if (!info) return new Set();
      const graph = await db.knowledge.getOrThrow(info.id);
      return new Set(graph.nodes.map((node) => node.title));
    }
    case 'memory-server': {
      const graph = await db.knowledge.memoryServer({ graph: 'crash-memory' }).readGraph();
      return new Set(graph.entities.map((entity) => entity.name));
    }
    case 'compact':
      return new Set((await db.agents()).map((agent) => agent.name));
  }
}

/** Opens `file`, runs `check()`, and returns what it holds; a failure is a typed error. */
export async function openCheckAndRead(
  file: string,
  path: WritePath,
): Promise<{ ids: Set<string> } | { error: HedgehopError }> {
  let db: MemoryDB | undefined;
  try {
    db = await openMemory(file);
    await db.check();
    return { ids: await heldIds(db, path) };
  } catch (error) {
    if (HedgehopError.isInstance(error)) return { error };
    throw error;
  } finally {
    if (db && !db.closed) await db.close();
  }
}

/** The acknowledged ids printed by a crash writer (`ack <id> [walBytes]`). */
export function acknowledged(lines: readonly string[]): string[] {
  return lines.filter((line) => line.startsWith('ack ')).map((line) => line.split(' ')[1] as string);
}
