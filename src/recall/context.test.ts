import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../core/tokens.js';
import { assembleContext, shortenBySentences, type ContextCandidate } from './context.js';

const candidate = (label: string, full: string, brief?: string): ContextCandidate => ({
  label,
  full,
  ...(brief === undefined ? {} : { levels: { brief } }),
});

describe('assembleContext', () => {
  it('gives the top items in full and the rest briefer', () => {
    const long = 'A word or two. '.repeat(130);
    const items = Array.from({ length: 12 }, (_, i) => candidate(`[item ${i}]`, `${i} ${long}`));
    const { context, included, usedTokens } = assembleContext(items, 4000);
    expect(included.get(0)).toBe('full');
    expect(included.get(3)).toBe('summary');
    expect(included.get(11)).toBe('brief');
    expect(context.startsWith('[item 0]\n0 A word')).toBe(true);
    expect(usedTokens).toBe(countTokens(context));
  });

  it('shortens an item that does not fit in full, and uses stored levels', () => {
    const items = [candidate('[a]', 'long text '.repeat(500), 'the stored brief')];
    const { context, included } = assembleContext(items, 30);
    expect(included.get(0)).toBe('brief');
    expect(context).toBe('[a]\nthe stored brief');
  });

  it('shortens by whole sentences, never cutting a word or a line', () => {
    const text =
      'First point is here. Second point follows it. Third one is much longer than the rest of them.';
    expect(shortenBySentences(text, 50)).toBe('First point is here. Second point follows it. …');
    expect(shortenBySentences(text, 30)).toBe('First point is here. …');
    expect(shortenBySentences(text, 10)).toBeUndefined();
    expect(shortenBySentences('Q: short question?\nA: the answer. And more detail here.', 40)).toBe(
      'Q: short question?\nA: the answer. …',
    );
    expect(shortenBySentences('short', 10)).toBe('short');
  });

  it('leaves an item out rather than cut it mid-sentence', () => {
    const items = [
      candidate('[a]', `${'one long sentence with no end '.repeat(120)}`),
      candidate('[b]', 'A short one.'),
    ];
    const { context, included } = assembleContext(items, 400);
    expect(included.has(0)).toBe(false);
    expect(context).toBe('[b]\nA short one.');
  });

  it('shows a short item whole at any rank', () => {
    const items = Array.from({ length: 12 }, (_, i) =>
      candidate(`[${i}]`, `Item ${i} says one thing. Then another.`),
    );
    const { included } = assembleContext(items, 4000);
    for (let i = 0; i < 12; i++) expect(included.get(i)).toBe('full');
  });

  it('returns nothing for a zero budget', () => {
    expect(assembleContext([candidate('[a]', 'text')], 0)).toMatchObject({ context: '', usedTokens: 0 });
  });

  it('never exceeds the budget (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 400 });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            label: fc.string({ maxLength: 30 }),
            full: text,
            brief: fc.option(text, { nil: undefined }),
          }),
          {
            maxLength: 15,
          },
        ),
        fc.integer({ min: 0, max: 600 }),
        (items, budget) => {
          const result = assembleContext(
            items.map((i) => candidate(i.label, i.full, i.brief)),
            budget,
          );
          expect(result.usedTokens).toBeLessThanOrEqual(budget);
          expect(countTokens(result.context)).toBe(result.usedTokens);
          // Every shortened text is a whole-sentence prefix of its line, closed by an ellipsis.
          for (const [index, level] of result.included) {
            const item = items[index]!;
            if (level === 'full' || item.brief !== undefined) continue;
            const shown = result.context.split(`${item.label}\n`)[1] ?? '';
            if (!shown.endsWith(' …')) continue;
            expect(item.full.startsWith(shown.slice(0, -2).split('\n').at(-1) ?? '')).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
