import { describe, expect, it } from 'vitest';
import { codePointLength } from '../../core/text.js';
import type { Profile } from '../../core/model/conversation.js';
import { renderProfileBrief } from './profile-brief.js';

const empty: Profile = {
  name: '',
  role: '',
  personality: '',
  preferences: {},
  emotion: { valence: 0, arousal: 0, dominance: 0 },
  mbti: { i_e: 0, n_s: 0, t_f: 0, j_p: 0, type: '' },
  agentType: 'primary',
  updatedAt: 0,
};

describe('renderProfileBrief', () => {
  it('is empty for an empty profile and shows only non-empty lines', () => {
    expect(renderProfileBrief(empty)).toBe('');
    expect(renderProfileBrief({ ...empty, name: 'Ada', preferences: { tz: 'UTC', editor: 'vim' } })).toBe(
      'name: Ada\npreferences: editor=vim, tz=UTC',
    );
  });

  it('renders mbti and emotions, and keeps the first five preferences by key', () => {
    const brief = renderProfileBrief({
      ...empty,
      mbti: { i_e: -0.5, n_s: 0, t_f: 0.2, j_p: 0.1, type: 'IXFP' },
      emotion: { valence: 0.5, arousal: 0.25, dominance: 0 },
      preferences: Object.fromEntries(['f', 'e', 'd', 'c', 'b', 'a'].map((k) => [k, k.toUpperCase()])),
    });
    expect(brief).toBe(
      'mbti: IXFP\npreferences: a=A, b=B, c=C, d=D, e=E\nemotions: valence=0.50 arousal=0.25 dominance=0.00',
    );
  });

  it('is bounded (2,100 code points worst case) and deterministic', () => {
    const long = 'word '.repeat(1000);
    const worst: Profile = {
      ...empty,
      name: long,
      role: long,
      personality: long,
      preferences: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`${i}${long}`, long])),
      emotion: { valence: 1, arousal: 1, dominance: 1 },
      mbti: { i_e: 1, n_s: 1, t_f: 1, j_p: 1, type: 'ESFP' },
    };
    const brief = renderProfileBrief(worst);
    expect(codePointLength(brief)).toBeLessThanOrEqual(2100);
    expect(renderProfileBrief(worst)).toBe(brief);
    expect(brief.split('\n')).toHaveLength(6);
  });

  it('fits maxChars by keeping lines in order and cutting the first that does not fit', () => {
    const profile = {
      ...empty,
      name: 'Ada Lovelace',
      role: 'analyst of engines and numbers',
      personality: 'curious',
    };
    expect(renderProfileBrief(profile, { maxChars: 200 })).toBe(renderProfileBrief(profile));
    const cut = renderProfileBrief(profile, { maxChars: 48 });
    expect(codePointLength(cut)).toBeLessThanOrEqual(48);
    expect(cut).toBe('name: Ada Lovelace\nrole: analyst of engines…');
    // At 40 the role would keep too little of its value ("analyst of…"): it is left out.
    expect(renderProfileBrief(profile, { maxChars: 40 })).toBe('name: Ada Lovelace');
    expect(renderProfileBrief(profile, { maxChars: 10 })).toBe('');
  });
});

describe('renderProfileBrief cut to maxChars', () => {
  it('never ends on a bare label: a cut line keeps at least 16 code points of its value', () => {
    const profile: Profile = {
      ...empty,
      name: 'Tern dev agent',
      role: 'Coding agent for the Tern scheduling app',
      emotion: { valence: 0.3, arousal: 0.4, dominance: 0.5 },
    };
    const whole = renderProfileBrief(profile);
    for (let max = 1; max <= codePointLength(whole); max++) {
      const cut = renderProfileBrief(profile, { maxChars: max });
      expect(codePointLength(cut)).toBeLessThanOrEqual(max);
      const last = cut.split('\n').at(-1) ?? '';
      if (last === '' || whole.split('\n').includes(last)) continue;
      const label = last.slice(0, last.indexOf(': ') + 2);
      expect(
        codePointLength(last) - 1 - codePointLength(label),
        `maxChars ${max}: ${last}`,
      ).toBeGreaterThanOrEqual(16);
    }
  });
});
