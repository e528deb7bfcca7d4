import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { oneLine, withoutLeadingLabel } from './text.js';

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

describe('withoutLeadingLabel', () => {
  const label = 'Investigate the nightly eval drop on the 2024-03-10 checkpoint';

  it('strips a leading copy of the label and the punctuation after it', () => {
    expect(withoutLeadingLabel('Add caching — Redis in front', 'Add caching')).toBe('Redis in front');
    expect(withoutLeadingLabel(`${label}\nRoot cause: a new default.`, label)).toBe(
      'Root cause: a new default.',
    );
    expect(withoutLeadingLabel('Other text', 'Add caching')).toBe('Other text');
  });

  it('strips the opening of a long label that a one-line level cut with …', () => {
    expect(
      withoutLeadingLabel('Investigate the nightly eval drop on the… — Root cause: evalkit.', label),
    ).toBe('Root cause: evalkit.');
  });

  it('keeps text that only looks like an opening of the label', () => {
    // Cut inside a word of the label, too short to be a shortened label, or not an opening of it.
    expect(withoutLeadingLabel('Investigate the nightly eval dr… — x', label)).toBe(
      'Investigate the nightly eval dr… — x',
    );
    expect(withoutLeadingLabel('Investigate… — x', label)).toBe('Investigate… — x');
    expect(withoutLeadingLabel('Investigate the morning drop… — x', label)).toBe(
      'Investigate the morning drop… — x',
    );
  });
});
