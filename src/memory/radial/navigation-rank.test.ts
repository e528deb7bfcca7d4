import { describe, expect, it } from 'vitest';
import {
  backgroundOf,
  matchText,
  queryWords,
  relatedForms,
  vectorConfidence,
  VECTOR_CONFIDENCE_CAP,
} from './navigation-rank.js';
import { stem } from '../../recall/query.js';
import { openTempMemory, task } from '../../../test/helpers/radial.js';

const term = (word: string, weight = 1): { word: string; stem: string; weight: number } => ({
  word,
  stem: stem(word),
  weight,
});

describe('navigation: words of a node', () => {
  it('credits a related form of a word, less than the word itself', () => {
    const credit = (word: string, text: string): number =>
      matchText(queryWords([term(word)], word), text).coverage;
    const text = 'We restored the formatting speed; the translation of the toggle was missing.';
    expect(credit('formatting', text)).toBe(1);
    expect(credit('formatted', text)).toBe(1);
    const formatter = credit('formatter', text);
    expect(formatter).toBeGreaterThan(0);
    expect(formatter).toBeLessThan(1);
    // A negating affix keeps the subject: "untranslated" is about the translation.
    expect(credit('untranslated', text)).toBeGreaterThan(0);
    // Short or unrelated words earn nothing.
    expect(credit('speedy', 'a spec')).toBe(0);
    expect(credit('format', 'the forum was down')).toBe(0);
    expect(credit('cats', 'category')).toBe(0);
  });

  it('tells related forms from words that only start alike', () => {
    expect(relatedForms('format', 'formatt')).toBe(true);
    expect(relatedForms('translat', 'translation')).toBe(true);
    expect(relatedForms('migrat', 'migrain')).toBe(false);
    expect(relatedForms('cat', 'catalog')).toBe(false);
  });

  it("weighs the question's words by their information and counts adjacent pairs", () => {
    const node = 'The nightly export crashed on timestamp precision after the upgrade.';
    const match = matchText(
      queryWords([term('export', 3), term('precision', 3), term('weekly', 1)], 'weekly export precision'),
      node,
    );
    expect(match.coverage).toBeCloseTo(6 / 7, 5);
    // "weekly export" is not in the node, "export precision" is not adjacent there.
    expect(match.pairs).toBe(0);
    const adjacent = matchText(
      queryWords([term('timestamp'), term('precision')], 'timestamp precision'),
      node,
    );
    expect(adjacent).toEqual({ coverage: 1, pairs: 1 });
    expect(matchText(queryWords([], ''), node)).toEqual({ coverage: 0, pairs: 0 });
  });
});

describe('navigation: confidence of a match by meaning', () => {
  it('is 0 at the background, grows with the similarity above it, and is capped', () => {
    expect(vectorConfidence(0.2, 0.2)).toBe(0);
    expect(vectorConfidence(0.1, 0.2)).toBe(0);
    const low = vectorConfidence(0.4, 0.2);
    const high = vectorConfidence(0.8, 0.2);
    expect(low).toBeGreaterThan(0);
    expect(high).toBeGreaterThan(low);
    expect(vectorConfidence(1, 0.2)).toBe(VECTOR_CONFIDENCE_CAP);
    expect(vectorConfidence(1, 1)).toBe(0);
  });

  it('takes the background from enough neighbours only', () => {
    expect(backgroundOf([0.9, 0.1])).toBe(0);
    expect(backgroundOf([0.9, 0.3, 0.2, 0.2, 0.1, 0.1, 0.1, 0.05, 0.0])).toBe(0.1);
    expect(backgroundOf([-0.5, -0.4, -0.3, -0.2, -0.2, -0.1, -0.1, -0.1])).toBe(0);
  });
});

describe('navigation: candidates in a crowded index', () => {
  it("finds the agent's node when other agents' rows match the question better", async () => {
    const { db } = await openTempMemory();
    const other = (await db.agent('other')).radial;
    await other.createLine('x');
    // Many strong matches of another agent: all of FTS5's first rows belong to it.
    for (let i = 0; i < 60; i++)
      await other.completeTask(
        task('x', `Cache eviction cache policy ${i}`, {
          fullContext: 'cache cache eviction cache eviction policy cache',
          conversationSummary: 'cache eviction',
        }),
      );
    const mine = db.primary().radial;
    await mine.createLine('y');
    const node = await mine.completeTask(
      task('y', 'Notes on the build', {
        fullContext:
          'A long page about the build pipeline that mentions the cache once, among many other words.',
      }),
    );
    const session = await mine.navigate('cache eviction', { confidenceThreshold: 0 });
    expect(session?.node.id).toBe(node.id);
    expect(session?.candidates).toHaveLength(1);
    await db.close();
  });
});
