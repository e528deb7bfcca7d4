import { describe, expect, it } from 'vitest';
import { exportDump, importDump, openMemory, type RecallResult } from '../../src/index.js';
import { freshPgUrl, PG_SKIP_REASON, PG_TEST_URL } from '../helpers/pg-memory.js';
import { tempFile } from '../helpers/temp.js';

/**
 * The same memory on both engines (written on SQLite, moved to PostgreSQL by a dump, so ids and
 * rowids are the same) gives the same recall: the same hits in the same order, the same texts
 * and provenance, the same context. PostgreSQL reads recall's rows its own way (a snapshot that
 * keeps what it read, statements sent together, turns read by index walks), so this pins that
 * those reads change nothing that the ranking and the context see.
 */

const PEOPLE = ['Caroline', 'Melanie', 'Joanna', 'Nate'];
const WORDS = [
  'deploy',
  'runner',
  'garden',
  'pottery',
  'adoption',
  'marathon',
  'violin',
  'camping',
  'painting',
  'counselor',
  'support',
  'group',
  'sunrise',
  'lake',
  'beach',
  'museum',
  'workshop',
  'parade',
  'library',
  'recipe',
  'bakery',
  'guitar',
  'poetry',
  'hiking',
];

/** A deterministic generator (the corpus must be the same on every run). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function sentence(next: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ');
}

async function writeCorpus(path: string): Promise<void> {
  const db = await openMemory(path, { dream: { auto: false } });
  const agent = db.primary();
  const next = generator(7);
  const t0 = Date.UTC(2024, 0, 1);
  for (let turn = 0; turn < 60; turn++) {
    await agent.search(turn % 6 === 0 ? { newScene: true, sceneName: `session ${turn / 6}` } : {});
    const at = t0 + turn * 3_600_000;
    if (turn % 5 === 0)
      await agent.appendArchive({
        kind: 'event',
        eventType: 'tool_result',
        content: `looked up ${sentence(next, 4)}`,
        createdAt: at,
      });
    const speaker = PEOPLE[turn % PEOPLE.length] as string;
    const other = PEOPLE[(turn + 1) % PEOPLE.length] as string;
    await agent.update({
      input: `${speaker}: did you go to the ${sentence(next, 6)}?`,
      output: `${other}: yes, the ${sentence(next, 12)}.`,
      createdAt: at + 1_000,
    });
  }
  await agent.radial.createLine('notes', 'Notes', 'what we worked on');
  for (let task = 0; task < 6; task++)
    await agent.radial.completeTask({
      lineId: 'notes',
      taskLabel: `task ${sentence(next, 3)}`,
      fullContext: sentence(next, 40),
      conversationSummary: sentence(next, 10),
    });
  await db.close();
}

async function dumpOf(path: string): Promise<string[]> {
  const db = await openMemory(path, { dream: { auto: false } });
  const lines: string[] = [];
  await exportDump(db, (line) => lines.push(line));
  await db.close();
  return lines.join('').split('\n');
}

const QUERIES = [
  'did Caroline go to the pottery workshop?',
  'Melanie marathon',
  'what did Joanna say about the violin and the guitar',
  'sunrise at the lake',
  'adoption counselor support group',
  'Nate camping hiking beach',
  'recipe from the bakery',
  'museum parade library poetry',
  'deploy the runner',
  'painting',
];

async function recallAll(path: string): Promise<RecallResult[]> {
  const db = await openMemory(path, { dream: { auto: false } });
  const agent = db.primary();
  const out: RecallResult[] = [];
  try {
    for (const query of QUERIES) {
      out.push(await agent.recall(query, { budgetTokens: 600 }));
      out.push(await agent.recall(query, { budgetTokens: 150, limit: 20 }));
    }
  } finally {
    await db.close();
  }
  return out;
}

describe.skipIf(!PG_TEST_URL)(
  `recall on SQLite and PostgreSQL${PG_SKIP_REASON ? ` (${PG_SKIP_REASON})` : ''}`,
  () => {
    it('gives the same hits, in the same order, and the same context for the same memory', async () => {
      const file = tempFile();
      await writeCorpus(file);
      const url = freshPgUrl();
      await importDump(url, await dumpOf(file));
      const [onSqlite, onPg] = [await recallAll(file), await recallAll(url)];
      expect(onSqlite.some((result) => result.hits.length >= 10)).toBe(true);
      expect(onSqlite.every((result) => result.context.length > 0)).toBe(true);
      onSqlite.forEach((expected, i) => {
        const got = onPg[i] as RecallResult;
        // Scores are sums of floating-point terms computed in SQL on one engine and by FTS5 on
        // the other: equal to many digits, not to the last bit.
        const withoutScores = (result: RecallResult) => ({
          ...result,
          hits: result.hits.map(({ score: _score, ...hit }) => hit),
        });
        expect(withoutScores(got)).toEqual(withoutScores(expected));
        got.hits.forEach((hit, h) => expect(hit.score).toBeCloseTo(expected.hits[h]?.score ?? NaN, 9));
      });
    });
  },
);
