import { describe, expect, it } from 'vitest';
import { timeCues, withoutTimeCues } from './time-cues.js';

describe('time cues of a question', () => {
  it.each([
    ['which hash do we use for passwords now?', true, false],
    ['what is the latest deploy target?', true, false],
    ['is the cache still on Redis?', true, false],
    ['what do we currently use to hash passwords?', true, false],
    ['what did we originally use to hash passwords?', false, true],
    ['which queue did the mailer use to rely on?', false, true],
    ['what were the thresholds before the change?', false, true],
    ['what was it at first, and what is it now?', true, true],
    ['how are passwords hashed?', false, false],
    ['what do we use to hash passwords?', false, false],
  ])('%s', (question, current, past) => {
    expect(timeCues(question)).toEqual({ current, past });
  });

  it('leaves out the cues and keeps the subject', () => {
    expect(withoutTimeCues('what did we originally use to hash passwords?')).toBe(
      'what did we hash passwords?',
    );
    expect(withoutTimeCues('what do we currently use to hash passwords?')).toBe('what do we hash passwords?');
    expect(withoutTimeCues('is the cache still on Redis?')).toBe('is the cache on Redis?');
    expect(withoutTimeCues('What is the latest   deploy target now?')).toBe('What is the deploy target ?');
  });

  it('keeps a question that asks about no time, or that holds nothing but cues', () => {
    expect(withoutTimeCues('what do we use to hash passwords?')).toBe('what do we use to hash passwords?');
    expect(withoutTimeCues('now?')).toBe('now?');
    expect(withoutTimeCues('  ')).toBe('  ');
  });

  it('keeps words that also name things ("the original invoice", "the previous owner")', () => {
    expect(withoutTimeCues('who was the previous owner of the original invoice before?')).toBe(
      'who was the previous owner of the original invoice ?',
    );
  });
});
