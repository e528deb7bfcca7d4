import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codePointLength } from '../core/text.js';
import { extractiveSummary, levelForBudget } from './extractive-summary.js';
import { fitWords } from './fit-text.js';
import { OfflineSummarizer } from './offline-summarizer.js';

const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u;
const BUDGETS = [0, 1, 2, 5, 80, 200, 600, 1800];

const cjkText = fc
  .array(
    fc.constantFrom(
      ...'我们今天讨论了数据库迁移的问题决定在下周一完成全部工作。，東京で会議をしました한국어문장입니다',
    ),
    {
      maxLength: 400,
    },
  )
  .map((chars) => chars.join(''));
const emojiText = fc
  .array(fc.constantFrom('😀', '👍🏽', '👨‍👩‍👧', '🇫🇷', ' ', 'ok', '. ', '\n'), { maxLength: 300 })
  .map((parts) => parts.join(''));
const giantWord = fc.integer({ min: 1, max: 5000 }).map((n) => 'a'.repeat(n));
const words = fc
  .array(fc.stringMatching(/^[a-zA-Z]{1,12}$/u), { maxLength: 300 })
  .map((ws) => ws.map((w, i) => (i % 9 === 8 ? `${w}.` : w)).join(' '));
const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 600 }),
  fc.string({ unit: 'binary', maxLength: 600 }),
  cjkText,
  emojiText,
  giantWord,
  words,
);

describe('extractiveSummary: properties', () => {
  it('never exceeds the budget and never splits a surrogate pair', () => {
    fc.assert(
      fc.property(
        anyText,
        fc.constantFrom(...BUDGETS),
        fc.option(fc.string({ maxLength: 40 })),
        (text, max, hint) => {
          const out = extractiveSummary(text, max, hint === null ? {} : { hint });
          expect(codePointLength(out)).toBeLessThanOrEqual(max);
          if (!LONE_SURROGATE_RE.test(text)) expect(LONE_SURROGATE_RE.test(out)).toBe(false);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps origin and brief summaries on one line', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom(80, 200), (text, max) => {
        expect(extractiveSummary(text, max)).not.toMatch(/[\n\r]/u);
      }),
      { numRuns: 200 },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(anyText, fc.constantFrom(...BUDGETS), (text, max) => {
        expect(extractiveSummary(text, max, { hint: 'x' })).toBe(extractiveSummary(text, max, { hint: 'x' }));
      }),
      { numRuns: 100 },
    );
  });

  it('never cuts a word of space-separated text, except a first word longer than the budget', () => {
    fc.assert(
      fc.property(words, fc.constantFrom(20, 80, 200), (text, max) => {
        const out = extractiveSummary(text, max).replace(/…$/u, '');
        const all = new Set(text.split(/[\s.]+/u));
        const outWords = out.split(/[\s.]+/u).filter(Boolean);
        const giant = outWords.length === 1 && codePointLength(text.split(/\s/u)[0] ?? '') >= max;
        if (!giant) for (const w of outWords) expect(all.has(w)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe('extractiveSummary: choices', () => {
  const text = [
    'Team sync notes.',
    'We talked about many things today.',
    'The weather was nice and we had coffee.',
    'Decision: the payment service moves to Stripe on March 3 because the old gateway drops 2% of payments.',
  ].join(' ');

  it('returns a text that fits unchanged (trimmed), and the hint for empty text', () => {
    expect(extractiveSummary('  short  ', 80)).toBe('short');
    expect(extractiveSummary(' \n ', 80, { hint: 'label' })).toBe('label');
    expect(extractiveSummary('a\n b', 600, { level: 'summary' })).toBe('a\n b');
    expect(extractiveSummary('a\n b', 80, { level: 'origin' })).toBe('a b');
  });

  it('picks the informative sentence even at the end of the text', () => {
    const out = extractiveSummary(text, 120, { level: 'brief' });
    expect(out).toContain('Stripe');
  });

  it('prefers sentences about the hint', () => {
    const notes =
      'The database index was rebuilt overnight. The login page now supports passkeys for every user.';
    expect(extractiveSummary(notes, 60, { hint: 'login passkeys' })).toContain('passkeys');
    expect(extractiveSummary(notes, 60, { hint: 'database index' })).toContain('index');
  });

  it('keeps chosen sentences in their original order', () => {
    const out = extractiveSummary(`${text} Stripe fees are 1.4% per payment in Europe.`, 400, {
      level: 'summary',
    });
    const stripe = out.indexOf('Decision');
    const fees = out.indexOf('fees');
    expect(stripe).toBeGreaterThanOrEqual(0);
    expect(fees).toBeGreaterThan(stripe);
  });

  it('cuts a sentence too long for the budget at a word, as a verbatim prefix with …', () => {
    const long =
      'Yesterday the on-call engineer discovered that the nightly billing export had been silently failing for a week because the S3 credentials expired.';
    const out = extractiveSummary(long, 80, { level: 'origin' });
    expect(codePointLength(out)).toBeLessThanOrEqual(80);
    expect(out.endsWith('…')).toBe(true);
    expect(long.startsWith(out.slice(0, -1))).toBe(true);
  });

  it('infers the level from the budget', () => {
    expect([80, 200, 600, 1800].map(levelForBudget)).toEqual(['origin', 'brief', 'summary', 'detailed']);
  });

  it('is what OfflineSummarizer.summarize returns', async () => {
    expect(await new OfflineSummarizer().summarize(text, 120, { hint: 'payments' })).toBe(
      extractiveSummary(text, 120, { hint: 'payments' }),
    );
  });
});

describe('fitWords', () => {
  it('cuts at a word boundary with an ellipsis inside the budget', () => {
    expect(fitWords('alpha beta gamma delta', 12)).toBe('alpha beta…');
    expect(fitWords('alpha, beta, gamma', 13)).toBe('alpha, beta…');
    expect(fitWords('fits', 4)).toBe('fits');
    expect(fitWords('anything', 0)).toBe('');
    expect(fitWords('anything', 1)).toBe('…');
  });

  it('does not end a cut on a word that only links to what was cut off', () => {
    expect(fitWords('Failed logins limited per account and per IP with a sliding window', 50)).toBe(
      'Failed logins limited per account and per IP…',
    );
    expect(fitWords('then revoke every token of the family at once', 33)).toBe('then revoke every token…');
    // A negation stays: "did not…" is not "did…".
    expect(fitWords('The nightly job did not finish before the window', 24)).toBe('The nightly job did not…');
    // At least half of the cut is kept.
    expect(fitWords('of the and with a lot more text after', 18)).toBe('of the and…');
  });

  it('cuts CJK at a word and a giant word between graphemes', () => {
    const cjk = fitWords('我们今天讨论了数据库迁移的问题', 8);
    expect(codePointLength(cjk)).toBeLessThanOrEqual(8);
    expect(cjk.endsWith('…')).toBe(true);
    expect(fitWords('👍🏽👍🏽👍🏽', 4)).toBe('👍🏽…');
    expect(fitWords('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});

describe('extractiveSummary: odd budgets', () => {
  it('treats Infinity as no limit and NaN or a negative budget as zero', () => {
    expect(extractiveSummary('  all of it  ', Infinity)).toBe('all of it');
    expect(extractiveSummary('text', Number.NaN)).toBe('');
    expect(extractiveSummary('text', -5)).toBe('');
    expect(extractiveSummary('two words', 4.9)).toBe('two…');
  });
});
