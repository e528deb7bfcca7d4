import { describe, expect, it } from 'vitest';
import { lineChart, shortNumber } from '../../bench/charts.js';
import { pairedRatio } from '../../bench/harness.js';
import { floorMatch } from '../../bench/raw-floor.js';
import { formatBenchmarks, formatNumber, withSection, type BenchRun } from '../../bench/run.js';

describe('bench runner', () => {
  it('inserts its generated section after the introduction and leaves the other sections intact', () => {
    const document =
      '# Benchmarks\n\nIntro.\n\n<!-- sections are filled by `npm run bench` -->\n\n## Radial\n\nTheirs.\n';
    const once = withSection(document, '## Summary\n\nfirst');
    expect(once.indexOf('## Summary')).toBeLessThan(once.indexOf('<!-- sections'));
    expect(once).toContain('## Radial\n\nTheirs.');
    const twice = withSection(once, '## Summary\n\nsecond');
    expect(twice).toContain('second');
    expect(twice).not.toContain('first');
    expect(twice.match(/bench:summary:start/gu)?.length).toBe(1);
    expect(twice).toContain('## Radial\n\nTheirs.');
  });

  it('formats numbers with three significant digits and ratios side by side', () => {
    expect(formatNumber(1234.5)).toBe('1,235');
    expect(formatNumber(12.345)).toBe('12.3');
    expect(formatNumber(0.01234)).toBe('0.012');
    expect(formatNumber(undefined)).toBe('');
    const run: BenchRun = {
      command: 'npm run bench',
      date: '2026-11-30T00:00:00.000Z',
      quick: true,
      machine: { node: 'v20', platform: 'linux-x64', cpus: 2, cpuModel: 'cpu', memoryGiB: 24 },
      seconds: 3,
      reports: [
        {
          name: 'floor',
          date: '2026-11-30T00:00:00.000Z',
          seconds: 3,
          quick: true,
          rows: [
            { bench: 'floor', case: 'append', metric: 'median', value: 2, unit: 'ms', baseline: 1, ratio: 2 },
          ],
        },
      ],
      failures: [{ name: 'peers', error: 'boom\nstack' }],
      skipped: ['locomo'],
      written: [],
    };
    const text = formatBenchmarks(run);
    expect(text).toMatch(/floor\s+append\s+median\s+2\.00 ms\s+1\.00 ms\s+2\.00×/u);
    expect(text).toContain('FAILED peers: boom');
    expect(text).toContain('Not present in this build: locomo.');
  });

  it('draws a self-contained SVG line chart with one point per measurement', () => {
    const svg = lineChart({
      title: 'recall <p50>',
      unit: 'ms',
      xLabel: 'records held',
      series: [
        {
          name: 'hedgehop',
          points: [
            [1000, 5],
            [10_000, 7],
            [1_000_000, 9],
          ],
        },
        {
          name: 'floor',
          points: [
            [1000, 0.1],
            [10_000, 0.2],
            [1_000_000, 0.4],
          ],
        },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<circle /gu)?.length).toBe(6);
    expect(svg).toContain('recall &lt;p50&gt;');
    expect(svg).toContain('(log scale)');
    expect(shortNumber(1_000_000)).toBe('1M');
    expect(shortNumber(10_000)).toBe('10k');
  });

  it('takes the median of per-pair ratios, not the ratio of medians', () => {
    // Pairs 4 and 5 ran under load (both halves slow), pair 3's subject alone: the ratio of the
    // medians would be 20 / 1.
    const subject = [2, 2, 20, 20, 20];
    const baseline = [1, 1, 1, 10, 10];
    expect(pairedRatio(subject, baseline)).toBe(2);
    expect(pairedRatio([3, 1, 8], [1, 1, 2])).toBe(3);
    expect(() => pairedRatio([1, 2], [1])).toThrow(/pairs/u);
  });

  it('quotes every query word for the floor’s FTS5 query', () => {
    expect(floorMatch('Where is "the" JWT secret?')).toBe('"where" OR "is" OR "the" OR "jwt" OR "secret"');
    expect(floorMatch('? !')).toBeUndefined();
  });
});
