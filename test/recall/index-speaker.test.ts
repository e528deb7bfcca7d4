import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import { SCHEMA_VERSION } from '../../src/store/migrations/index.js';
import { searchIndex } from '../../src/recall/search.js';
import { exportDump, importDump } from '../../src/api/dump.js';
import { tempFile } from '../helpers/temp.js';

// SQLite keeps the speaker each archive record names in the record's index row (schema 11), so
// that ranking by a named speaker reads no record; PostgreSQL reads it with the record.

const T0 = Date.UTC(2025, 0, 1);
const NAMES = ['Caroline', 'Melanie', 'Dr. Lee'];
const WORDS = ['pottery', 'camping', 'adoption', 'painting', 'concert', 'deploy', 'budget', 'review'];

/** A memory whose records name speakers every way a record can: field, label, neither, an event. */
async function seeded(path: string): Promise<MemoryDB> {
  const db = await openMemory(path, { durability: 'normal', dream: { auto: false } });
  const agent = db.primary();
  const texts = fc.sample(fc.array(fc.constantFrom(...WORDS), { minLength: 2, maxLength: 6 }), {
    numRuns: 240,
    seed: 11,
  });
  for (let scene = 0; scene < 4; scene++) {
    await agent.search({ newScene: true });
    await agent.appendArchiveMany(
      texts.slice(scene * 60, (scene + 1) * 60).map((words, i) => {
        const name = NAMES[i % NAMES.length] as string;
        const content = words.join(' ');
        const createdAt = T0 + scene * 10_000 + i;
        switch (i % 4) {
          case 0:
            return { kind: 'utterance' as const, role: 'user' as const, speaker: name, content, createdAt };
          case 1:
            return {
              kind: 'utterance' as const,
              role: 'agent' as const,
              content: `${name}: ${content}`,
              createdAt,
            };
          case 2:
            return { kind: 'utterance' as const, role: 'user' as const, content, createdAt };
          default:
            return {
              kind: 'event' as const,
              eventType: 'tool_result',
              content: `Melanie: ${content}`,
              createdAt,
            };
        }
      }),
    );
    await agent.update({ createdAt: T0 + scene * 10_000, outcome: 'seeded' });
  }
  return db;
}

function indexSpeakers(path: string): Map<string, string | null> {
  const raw = new Database(path, { readonly: true });
  try {
    const rows = raw
      .prepare(`SELECT ref, speaker FROM search_docs WHERE layer = 'archive' ORDER BY rowid`)
      .all() as { ref: string; speaker: string | null }[];
    return new Map(rows.map((row) => [row.ref, row.speaker]));
  } finally {
    raw.close();
  }
}

describe('the speaker kept in the recall index (SQLite)', () => {
  it('holds the speaker field, else the content’s Name: label, else nothing, for every archive record', async () => {
    const path = tempFile();
    const db = await seeded(path);
    await db.close();
    const speakers = indexSpeakers(path);
    const raw = new Database(path, { readonly: true });
    const records = raw.prepare('SELECT id, kind, speaker, content FROM archive').all() as {
      id: number;
      kind: string;
      speaker: string | null;
      content: string;
    }[];
    raw.close();
    expect(speakers.size).toBe(records.length);
    expect(records.length).toBeGreaterThanOrEqual(240);
    for (const record of records) {
      const expected = record.speaker ?? /^(Caroline|Melanie|Dr\. Lee): /.exec(record.content)?.[1] ?? '';
      expect(speakers.get(String(record.id))).toBe(expected);
    }
    expect(new Set(speakers.values())).toEqual(new Set(['Caroline', 'Melanie', 'Dr. Lee', '']));
  });

  it('ranks exactly as when the speaker is read from the records', async () => {
    const path = tempFile();
    const db = await seeded(path);
    const queries = [
      ...fc
        .sample(
          fc.tuple(
            fc.constantFrom(...NAMES, 'Lee', 'who'),
            fc.array(fc.constantFrom(...WORDS), { maxLength: 2 }),
          ),
          { numRuns: 30, seed: 5 },
        )
        .map(([name, words]) => `What did ${name} say about ${words.join(' and ')}?`),
      'Melanie camping',
      'pottery',
    ];
    const answers = async (memory: MemoryDB): Promise<unknown[]> => {
      const out: unknown[] = [];
      const asker = memory.primary();
      for (const query of queries) {
        const hits = await searchIndex(memory.memoryStore, { agentId: asker.info().id, query, limit: 10 });
        out.push(hits.map((h) => [h.rowid, h.score]));
        const recalled = await asker.recall(query, { budgetTokens: 300 });
        out.push(
          recalled.context,
          recalled.hits.map((h) => [h.ref, h.confidence]),
        );
      }
      return out;
    };
    const kept = await answers(db);
    await db.close();
    // Without the column's values every archive row's speaker is read from its record.
    const raw = new Database(path);
    raw.exec('UPDATE search_docs SET speaker = NULL');
    raw.close();
    const again = await openMemory(path, { durability: 'normal', dream: { auto: false } });
    const read = await answers(again);
    await again.close();
    expect(kept).toEqual(read);
    // The queries name speakers and do lift their records: the prior is in play.
    const named = await (async () => {
      const again2 = await openMemory(path, { durability: 'normal', dream: { auto: false } });
      try {
        const { hits } = await again2
          .primary()
          .recall('What did Caroline say about pottery?', { budgetTokens: 0 });
        return hits.slice(0, 5).map((h) => /^(\w+):/.exec(h.text)?.[1] ?? h.provenance.speaker);
      } finally {
        await again2.close();
      }
    })();
    expect(named).toEqual(Array(5).fill('Caroline'));
  });

  it('opens a file written before schema 11 without reading its records, and reindex fills the speakers', async () => {
    const path = tempFile();
    const db = await seeded(path);
    await db.close();
    const before = indexSpeakers(path);
    const raw = new Database(path);
    raw.exec('ALTER TABLE search_docs DROP COLUMN speaker');
    raw.pragma('user_version = 10');
    raw.close();
    const again = await openMemory(path);
    expect((await again.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    expect((await again.check()).ok).toBe(true);
    await again.close();
    // Unknown until filled: ranking reads them from the records meanwhile (see above).
    expect(new Set(indexSpeakers(path).values())).toEqual(new Set([null]));
    const filled = await openMemory(path);
    await filled.reindex();
    await filled.close();
    expect(indexSpeakers(path)).toEqual(before);
  });

  it('leaves the speakers out of a dump and works them out again on import', async () => {
    const path = tempFile();
    const db = await seeded(path);
    const lines: string[] = [];
    await exportDump(db, (line) => lines.push(line));
    await db.close();
    const header = JSON.parse(lines[0] as string) as { tables: { name: string; columns: string[] }[] };
    const docs = header.tables.find((table) => table.name === 'search_docs');
    expect(docs?.columns).not.toContain('speaker');
    expect(docs?.columns).toContain('scene_id');
    const restored = tempFile();
    await importDump(restored, lines);
    expect(indexSpeakers(restored)).toEqual(indexSpeakers(path));
    const again: string[] = [];
    const copy = await openMemory(restored);
    await exportDump(copy, (line) => again.push(line));
    await copy.close();
    expect(again).toEqual(lines);
  });
});
