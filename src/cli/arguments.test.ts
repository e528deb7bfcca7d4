import { describe, expect, it } from 'vitest';
import { clip } from './arguments.js';

describe('clip', () => {
  it('keeps a text that fits, on one line', () => {
    expect(clip('  one\n two\tthree ', 20)).toBe('one two three');
  });

  it('cuts at the last space so a time or an id is not torn', () => {
    const text = 'Deploy finished at 2024-03-12T08:31:12 for cache:user:42 and more words after it';
    const out = clip(text, 48);
    expect(out.length).toBeLessThanOrEqual(48);
    expect(out).toBe('Deploy finished at 2024-03-12T08:31:12 for…');
    expect(clip('about the cache:user:42 key', 24)).toBe('about the cache:user:42…');
  });

  it('cuts a long unbroken word inside, never between the halves of a surrogate pair', () => {
    const word = 'a'.repeat(9) + '😀' + 'b'.repeat(20);
    const out = clip(word, 11);
    expect(out.length).toBeLessThanOrEqual(11);
    expect(out).toBe('a'.repeat(9) + '…');
    expect(clip('x'.repeat(30), 10)).toBe('x'.repeat(9) + '…');
  });
});
