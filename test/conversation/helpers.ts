import { expect } from 'vitest';
import { HedgehopError, openMemory, type MemoryDB, type OpenOptions } from '../../src/index.js';
import { MockSummarizer } from '../../src/llm/mock-summarizer.js';
import { engineUnderTest, freshMemoryPath, memorySql } from '../helpers/engines.js';

/** A fixed base time (2024-01-01) in milliseconds, and a helper for later times. */
export const T0 = 1_704_067_200_000;
export const at = (minutes: number): number => T0 + minutes * 60_000;

/** A fresh memory on the engine under test with a mock summarizer (keywords = distinct content words). */
export async function openTemp(
  options: OpenOptions = {},
): Promise<{ db: MemoryDB; path: string; summarizer: MockSummarizer }> {
  const summarizer = new MockSummarizer();
  const path = freshMemoryPath();
  const db = await openMemory(path, { summarizer, ...options });
  return { db, path, summarizer };
}

/** Asserts that `call` rejects with a HedgehopError of `code` whose message matches, and that the memory did not change. */
export async function expectRefusal(
  path: string,
  call: () => Promise<unknown>,
  code: string,
  message?: RegExp,
): Promise<HedgehopError> {
  const before = await engineUnderTest().digest(path);
  let caught: unknown;
  try {
    await call();
  } catch (error) {
    caught = error;
  }
  expect(HedgehopError.isInstance(caught), `expected a HedgehopError, got ${String(caught)}`).toBe(true);
  const error = caught as HedgehopError;
  expect(error.code).toBe(code);
  if (message) expect(error.message).toMatch(message);
  expect(await engineUnderTest().digest(path), 'the memory changed after a refused call').toBe(before);
  return error;
}

type Row = Record<string, unknown>;

/** All rows of a query, on either engine (tests read the tables directly to check invariants). */
export function rows(db: MemoryDB, sql: string, ...params: unknown[]): Promise<Row[]> {
  return memorySql(db, sql, ...params);
}

/**
 * Checks every structural invariant of conversation memory and returns the problems found
 * (an empty list for a consistent file).
 */
export async function conversationProblems(db: MemoryDB): Promise<string[]> {
  const problems: string[] = [];
  const checks: [string, string][] = [];
  const check = (label: string, sql: string): void => {
    checks.push([label, sql]);
  };
  check(
    'two open turns for one agent',
    "SELECT agent_id FROM topics WHERE status = 'open' GROUP BY agent_id HAVING count(*) > 1",
  );
  check(
    'topic in a missing or foreign scene',
    'SELECT t.id FROM topics t LEFT JOIN scenes s ON s.id = t.scene_id WHERE s.id IS NULL OR s.agent_id <> t.agent_id',
  );
  check(
    'closed topic without times',
    "SELECT id FROM topics WHERE status = 'closed' AND (user_ts IS NULL OR agent_ts IS NULL OR user_ts > agent_ts)",
  );
  check(
    'open turn with times',
    "SELECT id FROM topics WHERE status = 'open' AND (user_ts IS NOT NULL OR closed_at IS NOT NULL)",
  );
  check(
    'turn topic without a turn number',
    "SELECT id FROM topics WHERE kind = 'turn' AND (turn_seq IS NULL OR turn_seq < 1)",
  );
  check(
    'archive record in a missing or foreign topic',
    'SELECT a.id FROM archive a LEFT JOIN topics t ON t.id = a.topic_id WHERE t.id IS NULL OR t.agent_id <> a.agent_id',
  );
  check(
    'event bound to a step its turn never had',
    `SELECT a.id FROM archive a WHERE a.plan_step IS NOT NULL
     AND a.plan_step > coalesce((SELECT max(seq) FROM plan_nodes p WHERE p.topic_id = a.topic_id), 0)`,
  );
  check(
    'plan step in a missing topic',
    'SELECT p.topic_id, p.seq FROM plan_nodes p LEFT JOIN topics t ON t.id = p.topic_id WHERE t.id IS NULL OR t.agent_id <> p.agent_id',
  );
  check(
    'plan step under a missing or later parent',
    `SELECT c.topic_id, c.seq FROM plan_nodes c WHERE c.parent_seq <> 0 AND (c.parent_seq >= c.seq
     OR NOT EXISTS (SELECT 1 FROM plan_nodes p WHERE p.topic_id = c.topic_id AND p.seq = c.parent_seq))`,
  );
  check(
    'finished_at disagrees with status',
    "SELECT topic_id, seq FROM plan_nodes WHERE (status = 'in_progress') = (finished_at IS NOT NULL)",
  );
  check(
    'archive record without its index row',
    `SELECT a.id FROM archive a JOIN topics t ON t.id = a.topic_id WHERE NOT EXISTS (
     SELECT 1 FROM search_docs d WHERE d.layer = 'archive' AND d.ref = CAST(a.id AS TEXT) AND d.topic_id = a.topic_id
       AND d.scene_id = t.scene_id AND d.agent_id = a.agent_id AND d.created_at = a.created_at)`,
  );
  check(
    'archive index row without its record',
    `SELECT d.ref FROM search_docs d WHERE d.layer = 'archive'
     AND NOT EXISTS (SELECT 1 FROM archive a WHERE CAST(a.id AS TEXT) = d.ref)`,
  );
  check(
    'topic index row stale',
    `SELECT d.ref FROM search_docs d WHERE d.layer = 'topic' AND NOT EXISTS (
     SELECT 1 FROM topics t WHERE t.id = d.ref AND t.scene_id = d.scene_id)`,
  );
  // SQLite keeps the text in a separate FTS5 table; PostgreSQL in search_docs.body (NOT NULL).
  if (engineUnderTest().name === 'sqlite')
    check(
      'index row without FTS text',
      `SELECT d.rowid FROM search_docs d WHERE d.layer IN ('archive', 'topic', 'profile')
       AND NOT EXISTS (SELECT 1 FROM search_fts f WHERE f.rowid = d.rowid)`,
    );
  check(
    'current scene missing',
    `SELECT a.agent_id FROM agent_state a WHERE a.current_scene_id IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM scenes s WHERE s.id = a.current_scene_id AND s.agent_id = a.agent_id)`,
  );
  check(
    'open turn outside the current scene',
    `SELECT t.id FROM topics t JOIN agent_state a ON a.agent_id = t.agent_id
     WHERE t.status = 'open' AND a.current_scene_id IS DISTINCT FROM t.scene_id`,
  );
  for (const [label, sql] of checks) {
    const found = await rows(db, sql);
    if (found.length > 0) problems.push(`${label}: ${JSON.stringify(found.slice(0, 3))}`);
  }
  problems.push(...(await foldProblems(db)));
  return problems;
}

async function foldProblems(db: MemoryDB): Promise<string[]> {
  const nodes = await rows(
    db,
    'SELECT topic_id, seq, parent_seq, status, summary, summary_folded FROM plan_nodes ORDER BY topic_id, seq',
  );
  const problems: string[] = [];
  for (const node of nodes) {
    const kids = nodes.filter((n) => n.topic_id === node.topic_id && n.parent_seq === node.seq);
    if (kids.length === 0 || node.status !== 'done') continue;
    if ((node.summary as string).length > 0 && node.summary_folded === 0) continue;
    if (!kids.every((k) => k.status !== 'in_progress')) continue;
    const expected = kids
      .map((k) => k.summary as string)
      .filter((s) => s.length > 0)
      .join('; ');
    if (node.summary !== expected || node.summary_folded !== 1)
      problems.push(
        `fold of ${String(node.topic_id)}#${String(node.seq)} is '${String(node.summary)}', expected '${expected}'`,
      );
  }
  return problems;
}
