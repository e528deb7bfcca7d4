import { describe, expect, it } from 'vitest';
import { applyDecision, approves, asksForDecision } from './decision-intent.js';
import { names, rankedUtterance } from '../../test/helpers/ranked-items.js';

/** One archive utterance of its own turn, as ranking hands it on. */
const said = (name: string, score: number, confidence: number): ReturnType<typeof rankedUtterance> =>
  rankedUtterance(name, score, { confidence });

describe('asksForDecision / approves', () => {
  it.each([
    ['What did we decide to do with the 45-minute fixture test?', true],
    ['What did we agree on for the cache TTL?', true],
    ['Which hashing library did we settle on?', true],
    ['What did we end up doing about the flaky test?', true],
    ['Why did we decide to drop Redis?', false],
    ['When did we decide to move the backups?', false],
    ['What is the cache TTL?', false],
  ])('asksForDecision(%s) = %s', (query, expected) => {
    expect(asksForDecision(query)).toBe(expected);
  });

  it.each([
    ['Do it. Use the same nightly marker.', true],
    ['Agreed. But pin the exact version.', true],
    ['Go ahead.', true],
    ['Sounds good, ship it.', true],
    ['So what do you propose?', false],
    ['Why is it that slow?', false],
    ['Do you think it is safe?', false],
  ])('approves(%s) = %s', (message, expected) => {
    expect(approves(message)).toBe(expected);
  });
});

describe('applyDecision', () => {
  const cause = said('cause', 2.0, 0.8);
  const approved = said('approved', 1.4, 0.6);
  const stray = said('stray', 1.5, 0.2);
  const faint = said('faint', 0.5, 0.8);

  it('lifts the records of an approved turn of the subject above the turns that only weighed it', () => {
    const out = applyDecision([cause, stray, approved], (key) => key === 'turn:topic-approved');
    expect(names(out)).toEqual(['approved', 'cause', 'stray']);
    expect(out.map((i) => i.score)).toEqual([...out.map((i) => i.score)].sort((a, b) => b - a));
  });

  it('keeps the ranking when no turn of the subject was approved, or the approved one is off the subject', () => {
    expect(names(applyDecision([cause, stray, approved], () => false))).toEqual([
      'cause',
      'stray',
      'approved',
    ]);
    expect(names(applyDecision([cause, stray, faint], (key) => key !== 'turn:topic-cause'))).toEqual([
      'cause',
      'stray',
      'faint',
    ]);
  });
});
