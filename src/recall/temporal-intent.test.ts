import { describe, expect, it } from 'vitest';
import { applyTemporalIntent, temporalIntent, type TemporalIntent } from './temporal-intent.js';

describe('temporalIntent', () => {
  const rows: readonly [string, TemporalIntent][] = [
    ['what are the replication lag alert thresholds now?', 'current'],
    ['Which algorithm hashes passwords today?', 'current'],
    ['the latest backfill range', 'current'],
    ['is the flag still on?', 'current'],
    ['what is the current TTL', 'current'],
    ['which hash did we use originally?', 'past'],
    ['what was the timeout before the incident?', 'past'],
    ['what did we used to deploy with', 'past'],
    ['what was it before, and what is it now?', 'none'],
    ['What TTL do podcast feeds get at the CDN edge?', 'none'],
    ['What did we decide about the fixture?', 'none'],
    ['When did Caroline go to the support group?', 'none'],
    ['', 'none'],
  ];
  it.each(rows)('%j → %s', (query, intent) => {
    expect(temporalIntent(query)).toBe(intent);
  });
});

describe('applyTemporalIntent', () => {
  const older = { id: 'older', score: 1, createdAt: 1_000 };
  const newer = { id: 'newer', score: 0.8, createdAt: 5_000 };
  const offTopic = { id: 'off', score: 0.2, createdAt: 9_000 };
  const ids = (intent: TemporalIntent, list = [older, newer, offTopic]): string[] =>
    applyTemporalIntent(list, intent).map((c) => c.candidate.id);

  it('prefers the most recent record of the subject on a question about the current state', () => {
    expect(ids('current')).toEqual(['newer', 'older', 'off']);
    expect(ids('none')).toEqual(['older', 'newer', 'off']);
  });

  it('prefers the older record on a question about the past', () => {
    const newerFirst = [
      { id: 'newer', score: 1, createdAt: 5_000 },
      { id: 'older', score: 0.8, createdAt: 1_000 },
    ];
    expect(ids('past', newerFirst)).toEqual(['older', 'newer']);
    expect(ids('none', newerFirst)).toEqual(['newer', 'older']);
  });

  it('lets the newer record win a near tie, and only a near tie', () => {
    const tie = [
      { id: 'older', score: 1, createdAt: 1_000 },
      { id: 'newer', score: 0.99, createdAt: 2_000 },
    ];
    expect(ids('none', tie)).toEqual(['newer', 'older']);
    const clear = [
      { id: 'older', score: 1, createdAt: 1_000 },
      { id: 'newer', score: 0.9, createdAt: 2_000 },
    ];
    expect(ids('none', clear)).toEqual(['older', 'newer']);
  });

  it('never lifts a record that is not of the subject, and returns final scores best first', () => {
    const result = applyTemporalIntent([older, newer, offTopic], 'current');
    expect(result.at(-1)?.candidate.id).toBe('off');
    expect(result.at(-1)?.score).toBe(offTopic.score);
    const scores = result.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('keeps the order when every record was written at once, or there is nothing', () => {
    const same = [
      { id: 'a', score: 1, createdAt: 7 },
      { id: 'b', score: 0.99, createdAt: 7 },
    ];
    expect(ids('current', same)).toEqual(['a', 'b']);
    expect(applyTemporalIntent([], 'current')).toEqual([]);
  });
});
