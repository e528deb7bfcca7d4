import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { oneLine } from './text.js';

describe('oneLine', () => {
  it('collapses every kind of whitespace run to one space and trims', () => {
    expect(oneLine(' a')).toBe('a');
    expect(oneLine('a ')).toBe('a');
    expect(oneLine('a  b')).toBe('a b');
    expect(oneLine('a\nb')).toBe('a b');
    expect(oneLine('a\u00a0b\u2028c\u3000d\ufeffe')).toBe('a b c d e');
    expect(oneLine('\t')).toBe('');
    expect(oneLine('already one line')).toBe('already one line');
  });

  it('equals the regular-expression collapse on any text', () => {
    const pieces = fc.constantFrom(
      ' ',
      '  ',
      '\n',
      '\t',
      '\r\n',
      '\u00a0',
      '\u2028',
      '\u3000',
      '\ufeff',
      'a',
      'é',
      '😀',
      '\u200b',
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(oneLine(text)).toBe(text.replace(/\s+/gu, ' ').trim());
      }),
    );
  });
});
