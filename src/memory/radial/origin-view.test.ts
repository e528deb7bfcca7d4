import { describe, expect, it } from 'vitest';
import { countTokens } from '../../core/tokens.js';
import type { LineOverview } from '../../store/radial-repo.js';
import { buildOrigin, fitTokens, originEntry } from './origin-view.js';

function line(i: number, nodes: number): LineOverview {
  return {
    id: `line-${i}`,
    name: `Domain number ${i}`,
    description: 'Something the agent works on',
    createdAt: 1_000 + i,
    ord: i + 1,
    nodeCount: nodes,
    extra: '{}',
    latest:
      nodes === 0
        ? undefined
        : {
            id: `n${i}`,
            taskLabel: `Task on line ${i}`,
            createdAt: 2_000_000 + i * 1000,
            sOrigin: `Task on line ${i} — did a careful piece of work there`,
            sBrief: null,
            conversationSummary: '',
          },
  };
}

describe('the origin', () => {
  it('lists every line when they fit, with the profile brief on top', () => {
    const text = buildOrigin({
      projectName: 'Shop',
      profileBrief: 'Ada, senior backend engineer — terse, precise',
      lines: [line(0, 3), line(1, 0), line(2, 1)],
      budgetTokens: 200,
    });
    expect(text.split('\n')[1]).toBe('Agent: Ada, senior backend engineer — terse, precise');
    expect(text).toContain(
      '- line-0 [Domain number 0]: Task on line 0 — did a careful piece of work there (3 tasks, Jan 1)',
    );
    expect(text.split('\n')[0]).toBe('Origin of project "Shop": 3 task lines, 4 tasks, latest 1970-01-01.');
    expect(text).toContain('- line-1 [Domain number 1]: no tasks yet — Something the agent works on');
    expect(countTokens(text)).toBeLessThanOrEqual(200);
  });

  it("shows the current scene's keywords in their ranked order, within their share of the budget", () => {
    const keywords = Array.from({ length: 200 }, (_, i) => `keyword${i}`);
    const text = buildOrigin({
      projectName: 'Shop',
      profileBrief: undefined,
      lines: [line(0, 3)],
      budgetTokens: 200,
      scene: { name: 'deploy review', keywords },
    });
    const sceneLine = text.split('\n').find((l) => l.startsWith('Current scene "deploy review": '));
    expect(sceneLine).toBeDefined();
    expect(sceneLine).toContain('keyword0, keyword1');
    expect(sceneLine).not.toContain('keyword199');
    expect(countTokens(sceneLine ?? '')).toBeLessThanOrEqual(20);
    expect(text).toContain('- line-0 [Domain number 0]');
    expect(countTokens(text)).toBeLessThanOrEqual(200);
    const none = buildOrigin({ projectName: 'Shop', profileBrief: undefined, lines: [], budgetTokens: 200 });
    expect(none).not.toContain('Current scene');
  });

  it('folds the least recently active lines to stay within budget, whatever the count', () => {
    for (const count of [3, 10, 300, 3000]) {
      for (const budget of [40, 120, 200, 1000]) {
        const lines = Array.from({ length: count }, (_, i) => line(i, i % 4));
        const text = buildOrigin({
          projectName: 'P',
          profileBrief: 'x'.repeat(2000),
          lines,
          budgetTokens: budget,
          footer: 'Call load(query).',
        });
        expect(countTokens(text), `${count} lines, budget ${budget}`).toBeLessThanOrEqual(budget);
      }
    }
    const lines = Array.from({ length: 300 }, (_, i) => line(i, 1));
    const text = buildOrigin({ projectName: 'P', profileBrief: undefined, lines, budgetTokens: 200 });
    expect(text).toContain('line-299');
    expect(text).not.toContain('line-0 ');
    expect(text).toMatch(/less recently active lines folded \(\d+ tasks\)/u);
  });

  it('shows every one of 12 lines within the default budget, shortening the least active entries first', () => {
    const lines = Array.from({ length: 12 }, (_, i) => ({
      ...line(i, 3),
      id: `domain-${i}`,
      name: `A fairly long descriptive line name ${i}`,
    }));
    const text = buildOrigin({
      projectName: 'Shop',
      profileBrief: 'Ada, backend engineer',
      lines,
      budgetTokens: 200,
    });
    expect(countTokens(text)).toBeLessThanOrEqual(200);
    for (let i = 0; i < 12; i++) expect(text).toContain(`- domain-${i}`);
    expect(text).not.toMatch(/folded/u);
    // Entries are shortened least recently active first: the newest line's entry is the richest.
    const entry = (i: number): string => text.split('\n').find((l) => l.startsWith(`- domain-${i}`)) ?? '';
    expect(entry(11).length).toBeGreaterThanOrEqual(entry(0).length);
    // What each line last did is worth more than its date: every entry names its newest task.
    for (let i = 0; i < 12; i++) expect(entry(i)).toContain(`Task on line ${i}`);
  });

  it('gives up dates and counts before the newest task of 12 lines with long labels, a profile and a scene', () => {
    const labels = [
      'Fix the timestamp cast that fails on nanosecond Parquet columns',
      'Rebuild the February search index after the shard split',
      'Resume of a training run fails with a size mismatch',
      'Compute the per-run GPU cost from the scheduler accounting',
      'Fix the crash in the note title view on an empty note',
      'Android release build fails in the shrinker on reflection',
      'Formatter check is six times slower on large workspaces',
      'Release 0.9.0 with the new plugin loading order',
      'Prometheus runs out of memory from a high-cardinality label',
      'Staging alerts page the production on-call rotation',
      'Japanese docs search returns no results for any query',
      'Docs build comes close to the hosting time limit',
    ];
    const lines = labels.map((label, i) => ({
      ...line(i, 2),
      id:
        [
          'auth',
          'infra',
          'billing',
          'search',
          'mobile',
          'web-ui',
          'notify',
          'pipeline',
          'observe',
          'pay',
          'i18n',
          'docs',
        ][i] ?? '',
      latest: { ...line(i, 2).latest!, taskLabel: label, sOrigin: `${label} — and what came of it` },
    }));
    const text = buildOrigin({
      projectName: 'Shop',
      profileBrief: 'name: Tern dev agent\nrole: Coding agent for the Tern scheduling app',
      lines,
      budgetTokens: 200,
      scene: { name: 'Invoice numbers check', keywords: ['invoice numbers', 'staging deploy'] },
    });
    expect(countTokens(text)).toBeLessThanOrEqual(200);
    expect(text).not.toMatch(/folded/u);
    for (const label of labels) {
      const firstWords = label.split(' ').slice(0, 3).join(' ');
      expect(text, label).toContain(`: ${firstWords}`);
    }
  });

  it('shows six lines of realistic task labels (whole, or at least 50 characters), each with its count and day', () => {
    const labels = [
      'Fix ArrowInvalid timestamp cast in export_to_lake after the pyarrow 15 upgrade',
      'Resume of run-117 fails with size mismatch for embed_tokens and lm_head',
      'Android release build fails in R8 after the AGP 8.3 upgrade',
      'Release rivet 0.9.0 with cargo-zigbuild builds',
      'Staging alerts paging the production on-call at night',
      "Docs build close to Netlify's time limit: stop rebuilding old versions",
    ];
    const day = Date.UTC(2024, 2, 12, 9);
    const lines = labels.map((label, i) => ({
      ...line(i, 4),
      id: ['pipeline', 'training', 'mobile', 'cli', 'oncall', 'docs'][i] ?? '',
      latest: { ...line(i, 4).latest!, taskLabel: label, sOrigin: label, createdAt: day - i * 86_400_000 },
    }));
    const text = buildOrigin({
      projectName: 'Northwind',
      profileBrief: undefined,
      lines,
      budgetTokens: 200,
      footer: 'Context reset to the origin; load a task by topic, or by line and position.',
    });
    expect(countTokens(text)).toBeLessThanOrEqual(200);
    expect(text.split('\n')[0]).toBe(
      'Origin of project "Northwind": 6 task lines, 24 tasks, latest 2024-03-12.',
    );
    for (const [i, label] of labels.entries()) {
      const entry = text.split('\n').find((l) => l.startsWith(`- ${lines[i]?.id ?? ''}: `)) ?? '';
      expect(entry, label).toMatch(new RegExp(` \\(4 tasks, Mar ${12 - i}\\)$`, 'u'));
      const shown = entry.slice(entry.indexOf(': ') + 2, entry.lastIndexOf(' ('));
      expect(shown === label || (shown.endsWith('…') && label.startsWith(shown.slice(0, -1))), entry).toBe(
        true,
      );
      expect([...shown].length, entry).toBeGreaterThanOrEqual(Math.min(50, label.length));
    }
  });

  it("gives the day alone in the newest task's year, and the year beside any other", () => {
    const newest = { ...line(0, 1), latest: { ...line(0, 1).latest!, createdAt: Date.UTC(2025, 0, 3) } };
    const older = { ...line(1, 2), latest: { ...line(1, 2).latest!, createdAt: Date.UTC(2024, 11, 30) } };
    const text = buildOrigin({
      projectName: 'P',
      profileBrief: undefined,
      lines: [newest, older],
      budgetTokens: 200,
    });
    expect(text).toContain('(1 task, Jan 3)');
    expect(text).toContain('(2 tasks, Dec 30 2024)');
    expect(text).toContain('latest 2025-01-03.');
  });

  it('folds a long line list with few token counts, keeping readable labels for the lines it shows', () => {
    const lines = Array.from({ length: 5000 }, (_, i) => ({
      ...line(i, 2),
      latest: {
        ...line(i, 2).latest!,
        taskLabel: `Rebuild the partitions of table number ${i} after the rule change`,
      },
    }));
    const started = performance.now();
    const text = buildOrigin({ projectName: 'P', profileBrief: undefined, lines, budgetTokens: 200 });
    // Not a speed test: a bound 100 times what it takes, to catch a return to quadratic work.
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(countTokens(text)).toBeLessThanOrEqual(200);
    const entries = text.split('\n').filter((l) => l.startsWith('- line-'));
    expect(entries.length).toBeGreaterThan(3);
    expect(text).toContain('- line-4999: ');
    for (const entry of entries)
      expect([...entry.slice(entry.indexOf(': ') + 2)].length).toBeGreaterThanOrEqual(24);
  });

  it('speaks in words every surface understands, never a library function', () => {
    const empty = buildOrigin({ projectName: 'Shop', profileBrief: undefined, lines: [], budgetTokens: 200 });
    const many = buildOrigin({
      projectName: 'Shop',
      profileBrief: undefined,
      lines: Array.from({ length: 300 }, (_, i) => line(i, 1)),
      budgetTokens: 200,
    });
    for (const text of [empty, many]) expect(text).not.toMatch(/\w\(\)/u);
  });

  it('shortens a long scene name so its keywords still show', () => {
    const text = buildOrigin({
      projectName: 'Shop',
      profileBrief: undefined,
      lines: [line(0, 1)],
      budgetTokens: 200,
      scene: {
        name: 'A very long scene name that goes on and on about many things',
        keywords: ['replica lag'],
      },
    });
    expect(text).toMatch(/Current scene "A very long scene name…": replica lag/u);
  });

  it('leaves out the scene keywords its name already says, and shows the name alone when none is left', () => {
    const origin = (keywords: string[]): string =>
      buildOrigin({
        projectName: 'Shop',
        profileBrief: undefined,
        lines: [line(0, 1)],
        budgetTokens: 200,
        scene: { name: 'Invoice numbers check', keywords },
      });
    expect(origin(['invoice numbers', 'staging deploy', 'Check', 'invoice', 'numbering gap'])).toContain(
      'Current scene "Invoice numbers check": staging deploy, numbering gap\n',
    );
    expect(origin(['Invoice numbers', 'check'])).toMatch(/^Current scene "Invoice numbers check"$/mu);
  });

  it('keeps one line per line even when a name or gist holds line breaks', () => {
    const odd = { ...line(1, 1), name: 'two\nlines', latest: { ...line(1, 1).latest!, sOrigin: 'a\nb' } };
    expect(originEntry(odd)).not.toContain('\n');
  });

  it('fitTokens cuts to a token limit', () => {
    const text = 'word '.repeat(500);
    expect(countTokens(fitTokens(text, 30))).toBeLessThanOrEqual(30);
    expect(fitTokens('short', 30)).toBe('short');
    expect(fitTokens('anything', 0)).toBe('');
  });
});

describe('the profile line of the origin', () => {
  const fields = [
    'name: Tern dev agent',
    'role: Coding agent for the Tern scheduling app (TypeScript, Postgres, Stripe)',
    'personality: Careful, terse, writes down why',
    'preferences: language=TypeScript, style=small pull requests, tests=vitest',
    'emotions: valence=0.30 arousal=0.40 dominance=0.50',
  ];

  /** The `; `-separated parts of the origin's Agent line. */
  function agentParts(budgetTokens: number): string[] {
    const text = buildOrigin({
      projectName: 'Tern',
      profileBrief: fields.join('\n'),
      lines: [],
      budgetTokens,
    });
    const agent = text.split('\n').find((l) => l.startsWith('Agent: '));
    return agent === undefined ? [] : agent.slice('Agent: '.length).split('; ');
  }

  it('never shows a field as a bare label, at any budget', () => {
    for (let budget = 20; budget <= 260; budget++) {
      const parts = agentParts(budget);
      for (const [i, part] of parts.entries()) {
        const field = fields[i] ?? '';
        if (part === field) continue;
        // Only the last part may be a cut, and it keeps at least 16 code points of its value.
        expect(i, `budget ${budget}: ${part}`).toBe(parts.length - 1);
        expect(part.endsWith('…')).toBe(true);
        const label = field.slice(0, field.indexOf(': ') + 2);
        expect(part.startsWith(label)).toBe(true);
        expect([...part].length - 1 - label.length, `budget ${budget}: ${part}`).toBeGreaterThanOrEqual(16);
      }
    }
  });

  it('shows every field whole when they fit, and leaves out the one that does not', () => {
    expect(agentParts(400)).toEqual(fields);
    // At the default budget the profile's 60-token share holds the first four fields, not emotions.
    expect(agentParts(200)).toEqual(fields.slice(0, 4));
  });
});
