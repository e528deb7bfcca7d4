import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../core/tokens.js';
import { assembleContext, type ContextCandidate } from './context.js';

const candidate = (label: string, full: string, brief?: string): ContextCandidate => ({
  label,
  full,
  ...(brief === undefined ? {} : { levels: { brief } }),
});

describe('assembleContext', () => {
  it('gives the top items in full and the rest briefer', () => {
    const long = 'word '.repeat(400);
    const items = Array.from({ length: 12 }, (_, i) => candidate(`[item ${i}]`, `${i} ${long}`));
    const { context, included, usedTokens } = assembleContext(items, 4000);
    expect(included.get(0)).toBe('full');
    expect(included.get(3)).toBe('summary');
    expect(included.get(11)).toBe('brief');
    expect(context.startsWith('[item 0]\n0 word')).toBe(true);
    expect(usedTokens).toBe(countTokens(context));
  });

  it('shortens an item that does not fit in full, and uses stored levels', () => {
    const items = [candidate('[a]', 'long text '.repeat(500), 'the stored brief')];
    const { context, included } = assembleContext(items, 30);
    expect(included.get(0)).toBe('brief');
    expect(context).toBe('[a]\nthe stored brief');
  });

  it('names a group once: later items of the same group carry their repeat label', () => {
    const item = (label: string, group: string, full: string): ContextCandidate => ({
      label: `[${label} · ${group}]`,
      repeatLabel: `[${label}]`,
      group,
      full,
    });
    const { context } = assembleContext(
      [item('10:00', 'ops', 'a'), item('11:00', 'ops', 'b'), item('12:00', 'lunch', 'c')],
      1000,
    );
    expect(context).toBe('[10:00 · ops]\na\n\n[11:00]\nb\n\n[12:00 · lunch]\nc');
    // An item that does not fit names nothing: the next one of its group still names it.
    const big = item('09:00', 'ops', 'word '.repeat(2000));
    const second = assembleContext([big, item('11:00', 'ops', 'b')], 20).context;
    expect(second).toBe('[11:00 · ops]\nb');
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
        },
      ),
      { numRuns: 200 },
    );
  });
});
