import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countTokens } from '../core/tokens.js';
import { assembleContext, recordForms, type ContextCandidate } from './context.js';
import { stemsOf } from './text-fit.js';

const candidate = (label: string, ...forms: string[][]): ContextCandidate => ({
  label,
  forms: forms.map((lines, i) => ({ level: i === 0 ? 'full' : 'brief', lines })),
});

describe('recordForms', () => {
  it('gives the top records in full and the rest shorter, never cut inside a sentence', () => {
    const long = Array.from({ length: 60 }, (_, i) => `Sentence ${i} is about item ${i}.`).join(' ');
    expect(recordForms(long, undefined, 0, stemsOf('item'))[0]).toEqual({ level: 'full', lines: [long] });
    const later = recordForms(long, undefined, 12, stemsOf('item 40'));
    expect(later.map((f) => f.level)).toEqual(['brief']);
    const brief = later[0]!.lines[0]!;
    expect(brief).toContain('Sentence 40 is about item 40.');
    expect(brief.replace(/…/gu, '').trim().endsWith('.')).toBe(true);
  });

  it('uses stored levels when the record has them', () => {
    const forms = recordForms('long text. '.repeat(500), { brief: 'the stored brief' }, 12, new Set());
    expect(forms).toEqual([{ level: 'brief', lines: ['the stored brief'] }]);
  });

  it('offers no rendering that a stored level holds whole (a task found by its label)', () => {
    const label = 'Staging alerts paging the production on-call';
    const levels = {
      brief: `${label}: routed to Slack.`,
      summary: `${label}\nRoot cause: the staging override sat under a key the chart ignores.`,
      detailed: `${label}\nRoot cause: the staging override sat under a key the chart ignores.\nFix: moved it back.`,
    };
    const forms = recordForms(label, levels, 0, stemsOf('staging alerts'));
    expect(forms.map((f) => f.level)).toEqual(['detailed', 'summary', 'brief']);
    expect(forms[0]!.lines[0]).toBe(levels.detailed);
    // A full text that says more than the stored levels stays the first rendering.
    const full = `${levels.detailed}\nThe whole transcript goes on here.`;
    expect(recordForms(full, levels, 0, new Set())[0]).toEqual({ level: 'full', lines: [full] });
  });

  it("shows a task's stored levels without the label its item's own label already shows", () => {
    const label = 'Staging alerts paging the production on-call';
    const levels = {
      brief: `${label} — routed to Slack.`,
      summary: `${label}\nRoot cause: the staging override sat under a key the chart ignores.`,
    };
    const forms = recordForms(label, levels, 0, stemsOf('staging alerts'), undefined, label);
    expect(forms).toEqual([
      { level: 'summary', lines: ['Root cause: the staging override sat under a key the chart ignores.'] },
      { level: 'brief', lines: ['routed to Slack.'] },
    ]);
  });
});

describe('assembleContext', () => {
  it('takes the first form of each item that fits', () => {
    const big = 'word '.repeat(400);
    const { context, included } = assembleContext([candidate('[a]', [big], ['short'])], 30);
    expect(included.get(0)).toBe('brief');
    expect(context).toBe('[a]\nshort');
  });

  it('shows a label once for a run of items that share it, and a group name once', () => {
    const item = (time: string, group: string, text: string): ContextCandidate => ({
      label: `[${time} · ${group}]`,
      repeatLabel: `[${time}]`,
      group,
      forms: [{ level: 'full', lines: [text] }],
    });
    const { context } = assembleContext(
      [
        item('10:00', 'ops', 'a'),
        item('10:00', 'ops', 'b'),
        item('11:00', 'ops', 'c'),
        item('12:00', 'lunch', 'd'),
      ],
      1000,
    );
    expect(context).toBe('[10:00 · ops]\na\n\nb\n\n[11:00]\nc\n\n[12:00 · lunch]\nd');
  });

  it('never shows a line twice, and skips an item with nothing new', () => {
    const { context, included } = assembleContext(
      [
        candidate('[1]', ['same line', 'other']),
        candidate('[2]', ['same line']),
        candidate('[3]', ['same line', 'new']),
      ],
      1000,
    );
    expect(context).toBe('[1]\nsame line\nother\n\n[3]\nnew');
    expect(included.has(1)).toBe(false);
  });

  it('returns nothing for a zero budget', () => {
    expect(assembleContext([candidate('[a]', ['text'])], 0)).toMatchObject({ context: '', usedTokens: 0 });
  });

  it('never exceeds the budget (property)', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 400 });
    fc.assert(
      fc.property(
        fc.array(fc.record({ label: fc.string({ maxLength: 30 }), full: text, brief: text }), {
          maxLength: 15,
        }),
        fc.integer({ min: 0, max: 600 }),
        (items, budget) => {
          const result = assembleContext(
            items.map((i) => candidate(i.label, [i.full], [i.brief])),
            budget,
          );
          expect(result.usedTokens).toBeLessThanOrEqual(budget);
          expect(countTokens(result.context)).toBe(result.usedTokens);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('works out no renderings once the budget is spent, nor for items whose label alone does not fit', () => {
    let read = 0;
    const counted = (label: string, line: string): ContextCandidate => ({
      label,
      get forms() {
        read++;
        return [{ level: 'full' as const, lines: [line] }];
      },
    });
    const filler = 'word '.repeat(60).trim();
    const items = [
      counted('[a]', filler),
      ...Array.from({ length: 40 }, (_, i) =>
        counted(`[a much longer label, number ${i}, that cannot fit]`, filler),
      ),
    ];
    const { included, usedTokens } = assembleContext(items, countTokens(`[a]\n${filler}`) + 3);
    expect([...included.keys()]).toEqual([0]);
    expect(usedTokens).toBeLessThanOrEqual(countTokens(`[a]\n${filler}`) + 3);
    expect(read).toBe(1);
  });

  it('stops after a dozen items in a row that do not fit', () => {
    let read = 0;
    const big = 'long words here '.repeat(40).trim();
    const items: ContextCandidate[] = [
      candidate('[first]', ['short answer']),
      ...Array.from(
        { length: 30 },
        (): ContextCandidate => ({
          label: '',
          group: 'g',
          get forms() {
            read++;
            return [{ level: 'full' as const, lines: [big] }];
          },
        }),
      ),
      candidate('', ['tiny']),
    ];
    const { included } = assembleContext(items, 40);
    expect([...included.keys()]).toEqual([0]);
    expect(read).toBe(12);
  });
});
