import { describe, expect, it } from 'vitest';
import { heuristicProfile } from './profile-heuristics.js';

describe('heuristicProfile (offline distillProfile)', () => {
  it('rates valence and arousal from keywords, weighted by importance', () => {
    const happy = heuristicProfile([{ id: 'n1', importance: 1, keywords: ['great success', 'happy team'] }]);
    const sad = heuristicProfile([
      { id: 'n2', importance: 1, keywords: ['terrible outage', 'angry customer'] },
    ]);
    expect(happy.emotion.valence).toBeGreaterThan(0.6);
    expect(sad.emotion.valence).toBeLessThan(0.4);
    expect(happy.emotion.arousal).toBeGreaterThan(0);
    expect(happy.personality).toMatch(/Tone: positive/u);
    expect(sad.personality).toMatch(/Tone: negative/u);
  });

  it('claims nothing without evidence: neutral valence, calm, no MBTI lean', () => {
    const result = heuristicProfile([{ id: 'n1', importance: 0.5, keywords: ['postgres', 'migration'] }]);
    expect(result.emotion).toEqual({ valence: 0.5, arousal: 0, dominance: 0.5 });
    expect(result.mbti).toEqual({ i_e: 0, n_s: 0, t_f: 0, j_p: 0 });
    expect(result.perNode).toEqual([]);
    expect(result.personality).toBe('Mostly works on postgres, migration.');
    expect(heuristicProfile([]).personality).toBe('');
  });

  it('lists at most 20 nodes, most emotional first, and stays in range', () => {
    const samples = Array.from({ length: 30 }, (_, i) => ({
      id: `n${i}`,
      importance: 0.5,
      keywords: [i % 2 ? 'love' : 'good', `topic${i}`],
    }));
    const result = heuristicProfile(samples);
    expect(result.perNode).toHaveLength(20);
    expect(result.perNode[0]!.valence).toBeGreaterThanOrEqual(result.perNode[19]!.valence);
    expect([...result.personality].length).toBeLessThanOrEqual(160);
  });
});
