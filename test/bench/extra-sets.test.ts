/**
 * The second task set and conversation committed with the quality modules (bench/data): they
 * load, and they keep the rules of the development sets they stand beside (each key fact is
 * held by its task's input, each answer turn exists), so an edit that breaks one is caught here
 * rather than read as a drop in a figure.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepsFact, loadDetailSet, wholeInput } from '../../src/eval/detail-levels.js';

const DATA = join(import.meta.dirname, '..', '..', 'bench', 'data');

describe('bench/data: the extra quality sets', () => {
  it('levels-extra.json loads, and every key fact is held by its task', async () => {
    const set = await loadDetailSet(join(DATA, 'levels-extra.json'));
    expect(set.tasks.length).toBeGreaterThanOrEqual(12);
    const lines = new Set(set.lines.map(([id]) => id));
    for (const task of set.tasks) {
      expect(lines.has(task.line), `${task.id}: line ${task.line}`).toBe(true);
      for (const fact of task.keyFacts) {
        expect(keepsFact(wholeInput(task), fact.patterns), `${task.id}: ${fact.fact}`).toBe(true);
      }
      expect(task.questions.map((q) => q.kind).sort()).toEqual(['lexical', 'paraphrase']);
    }
  });

  it('conversation-extra.json names existing turns as answers, and latest questions their superseded turns', () => {
    const parsed = JSON.parse(readFileSync(join(DATA, 'conversation-extra.json'), 'utf8')) as {
      conversations: {
        turns: { input: string; output: string; topic: string }[];
        questions: { q: string; kind: string; answerTurns: number[]; supersededTurns?: number[] }[];
      }[];
    };
    for (const conversation of parsed.conversations) {
      const turns = conversation.turns.length;
      expect(turns).toBeGreaterThan(0);
      for (const question of conversation.questions) {
        expect(question.answerTurns.length, question.q).toBeGreaterThan(0);
        for (const turn of [...question.answerTurns, ...(question.supersededTurns ?? [])]) {
          expect(Number.isInteger(turn) && turn >= 0 && turn < turns, `${question.q}: turn ${turn}`).toBe(
            true,
          );
        }
        if (question.kind === 'latest')
          expect(question.supersededTurns?.length ?? 0, question.q).toBeGreaterThan(0);
      }
    }
  });
});
