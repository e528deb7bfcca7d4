import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength } from '../core/text.js';
import { fitSpan, speakerLabel, stemsOf } from './text-fit.js';

describe('fitSpan', () => {
  const text =
    'Caroline: We drove home after the parade. The replication lag alert fires at 30 s now. See you on Friday!';

  it('keeps a text that fits whole', () => {
    expect(fitSpan(text, 500, stemsOf('lag'))).toBe(text);
  });

  it('keeps the sentence nearest the query, verbatim, with the speaker and … where text was left out', () => {
    const out = fitSpan(text, 70, stemsOf('replication lag alert'));
    expect(out).toBe('Caroline: … The replication lag alert fires at 30 s now. …');
  });

  it('widens the span with whole neighbouring sentences while they fit', () => {
    const out = fitSpan(text, 90, stemsOf('replication lag'));
    expect(out).toBe('Caroline: … The replication lag alert fires at 30 s now. See you on Friday!');
  });

  it('starts at the beginning when no sentence holds a query word', () => {
    expect(fitSpan(text, 60, stemsOf('zebra'))).toBe('Caroline: We drove home after the parade. …');
  });

  it('leaves the text out rather than cutting a sentence', () => {
    expect(
      fitSpan('One very long sentence that will never fit in the space given.', 20, stemsOf('long')),
    ).toBe(undefined);
  });

  it('keeps lines whole: a shortened multi-line text is made of whole lines or sentences', () => {
    const lines = 'first line here\nsecond line about the lag\nthird line';
    expect(fitSpan(lines, 32, stemsOf('lag'))).toBe('… second line about the lag …');
  });

  it('is within the limit and made of the text verbatim (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[A-Za-z ]{1,40}[.!?]$/u), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 5, max: 200 }),
        (parts, max) => {
          const source = parts.join(' ');
          const out = fitSpan(source, max, stemsOf(parts[0] ?? ''));
          if (out === undefined) return;
          expect(codePointLength(out)).toBeLessThanOrEqual(
            Math.max(max, codePointLength(source) <= max ? 0 : max),
          );
          for (const piece of out
            .split('…')
            .map((p) => p.trim())
            .filter((p) => p.length > 0))
            expect(source).toContain(piece);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('speakerLabel', () => {
  it.each([
    ['Caroline: hi', 'Caroline: '],
    ['Dr. Lee: hi', 'Dr. Lee: '],
    ['From the last 7 days: 41M requests', undefined],
    ['no label here', undefined],
  ])('%s', (text, label) => {
    expect(speakerLabel(text)).toBe(label);
  });
});
