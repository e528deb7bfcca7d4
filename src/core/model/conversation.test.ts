import { describe, expect, it } from 'vitest';
import { nameSchema, timestampSchema } from './conversation.js';

describe('timestamps', () => {
  it('accepts milliseconds and refuses the seconds and microseconds bands', () => {
    for (const ok of [1, 999_999_999, 1e11, 1_704_067_200_000, 1e14])
      expect(timestampSchema.safeParse(ok).success).toBe(true);
    for (const bad of [0, -5, 1.5, 1e9, 1_704_067_200, 1e11 - 1, 1e14 + 1, Number.NaN]) {
      expect(timestampSchema.safeParse(bad).success, String(bad)).toBe(false);
    }
    expect(timestampSchema.safeParse(1_704_067_200).error?.issues[0]?.message).toMatch(/seconds/);
    expect(timestampSchema.safeParse(1_704_067_200_000_000).error?.issues[0]?.message).toMatch(
      /microseconds/,
    );
  });
});

describe('names', () => {
  it('counts bytes, not characters, and trims', () => {
    expect(nameSchema.safeParse('a'.repeat(256)).success).toBe(true);
    expect(nameSchema.safeParse('é'.repeat(128)).success).toBe(true);
    expect(nameSchema.safeParse('é'.repeat(129)).error?.issues[0]?.message).toMatch(/258 bytes .* 256/);
    expect(nameSchema.parse('  Bob ')).toBe('Bob');
  });
});
