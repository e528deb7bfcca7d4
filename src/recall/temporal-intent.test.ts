import { describe, expect, it } from 'vitest';
import { applyTemporalIntent, temporalIntent, type TimedCandidate } from './temporal-intent.js';

const record = (
  name: string,
  score: number,
  createdAt: number,
  coverage = 1,
): TimedCandidate & { name: string } => ({
  name,
  score,
  createdAt,
  coverage,
});
const names = (list: readonly { candidate: { name: string } }[]): string[] =>
  list.map((e) => e.candidate.name);

describe('temporalIntent', () => {
  it.each([
    ['What are the replication lag alert thresholds now?', 'current'],
    ["What's my diet at the moment?", 'current'],
    ['Is the queue still backed up?', 'current'],
    ['Which is the latest TTL?', 'current'],
    ['Which hash did we use originally?', 'past'],
    ['What did the config look like before the migration?', 'past'],
    ['Where did she use to live?', 'past'],
    ['Which services build on the media base image?', 'none'],
    ['What was it before, and what is it now?', 'none'],
    ['Who knows the snowman?', 'none'],
  ])('%s -> %s', (query, intent) => {
    expect(temporalIntent(query)).toBe(intent);
  });
});

describe('applyTemporalIntent', () => {
  const morning = record('morning', 1.0, 1_000);
  const afternoon = record('afternoon', 0.8, 5_000);
  const other = record('other subject', 0.9, 9_000, 0.2);

  it('on a question about the current state puts the newest record of the subject first', () => {
    const out = applyTemporalIntent([morning, other, afternoon], 'current');
    expect(names(out)[0]).toBe('afternoon');
    // A newer record that holds little of the query is not of the subject: it gains nothing.
    expect(out.find((e) => e.candidate.name === 'other subject')?.score).toBe(0.9);
  });

  it('on a question about the past puts the oldest record of the subject first', () => {
    const out = applyTemporalIntent([afternoon, morning], 'past');
    expect(names(out)[0]).toBe('morning');
  });

  it('leaves a clear order alone when the question says nothing about time', () => {
    expect(names(applyTemporalIntent([morning, other, afternoon], 'none'))).toEqual([
      'morning',
      'other subject',
      'afternoon',
    ]);
  });

  it('returns final scores in falling order (property over a few shapes)', () => {
    for (const intent of ['current', 'past', 'none'] as const) {
      const input = Array.from({ length: 30 }, (_, i) =>
        record(`r${i}`, 1 - i * 0.013 + (i % 3) * 0.01, (i * 7919) % 97, ((i * 31) % 10) / 10),
      );
      const out = applyTemporalIntent(input, intent);
      expect(out).toHaveLength(input.length);
      for (let i = 1; i < out.length; i++) expect(out[i - 1]!.score).toBeGreaterThanOrEqual(out[i]!.score);
    }
  });

  it('handles empty and single lists', () => {
    expect(applyTemporalIntent([], 'current')).toEqual([]);
    expect(applyTemporalIntent([morning], 'past')).toEqual([{ candidate: morning, score: 1.0 }]);
  });
});
