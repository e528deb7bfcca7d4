/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// (page.evaluate callbacks run in the browser.)
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryDB } from '../../src/api/memory-db.js';
import { startServer, type RunningServer } from '../../src/http/start-server.js';
import { tempFile } from '../helpers/temp.js';
import { openDemo } from '../http/demo-memory.js';
import { browserSkipReason, launchChromium } from './browser.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const webRoot = join(root, 'dist', 'web');
const skip = browserSkipReason(webRoot);
if (skip) console.warn(`[browser tests skipped] ${skip}`);

const TYPES = ['service', 'database', 'cache', 'queue', 'person'];
const CLUSTERS = 25;
const PER_CLUSTER = 40;

/** A graph of 1,000 nodes: 25 clusters of 40 (one type each), chained inside, a few links across. */
function bigGraph() {
  const title = (c: number, i: number): string =>
    `${TYPES[c % TYPES.length]} c${String(c).padStart(2, '0')} n${String(i).padStart(2, '0')}`;
  const nodes = [];
  const edges = [];
  for (let c = 0; c < CLUSTERS; c++) {
    for (let i = 0; i < PER_CLUSTER; i++) {
      nodes.push({ title: title(c, i), type: TYPES[c % TYPES.length] as string });
      if (i > 0)
        edges.push({ kind: 'related' as const, directed: false, members: [title(c, i - 1), title(c, i)] });
      if (i > 1 && i % 4 === 0)
        edges.push({ kind: 'related' as const, directed: false, members: [title(c, 0), title(c, i)] });
    }
    if (c > 0)
      edges.push({ kind: 'dependency' as const, directed: true, members: [title(c - 1, 5), title(c, 5)] });
  }
  return { graph: 'big', nodes, edges, title };
}

describe.skipIf(skip !== undefined)('web UI in Chromium: agents, tokens and large knowledge graphs', () => {
  let db: MemoryDB;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const big = bigGraph();

  beforeAll(async () => {
    db = await openDemo(tempFile());
    const reviewer = await db.agent('reviewer');
    await reviewer.radial.createLine('docs', 'Documentation');
    await reviewer.radial.completeTask({
      lineId: 'docs',
      taskLabel: 'Write the API guide',
      fullContext: 'Guide for the HTTP API.',
      conversationSummary: 'guide written',
    });
    await db.knowledge.import({ graph: big.graph, nodes: big.nodes, edges: big.edges });
    server = await startServer(db, { port: 0, webRoot });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1366, height: 900 } })).newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (db && !db.closed) await db.close();
  });

  it('switching agent drops the node selected under the previous one', async () => {
    await page.goto(server.url);
    await page.click('[data-line="auth"][data-position="3"]');
    await expect.poll(() => page.textContent('.reader-pane')).toContain('Design the user table');
    await page.selectOption('.agent-picker select', 'reviewer');
    await page.waitForSelector('[data-line="docs"][data-position="1"]');
    expect(await page.locator('[data-line="auth"]').count()).toBe(0);
    // The reader waits for a choice under the new agent instead of failing on the old one's node.
    expect(await page.locator('.reader-pane .error, .reader-pane [role=alert]').count()).toBe(0);
    expect(await page.textContent('.reader-pane')).toContain('Select the origin or a node');
    await page.click('[data-line="docs"][data-position="1"]');
    await expect.poll(() => page.textContent('.reader-pane')).toContain('Write the API guide');
    await page.selectOption('.agent-picker select', 'primary');
    await page.waitForSelector('[data-line="auth"]');
    expect(await page.locator('.reader-pane [role=alert]').count()).toBe(0);
  });

  it('large graph: 1,000 nodes drawn with no overlapping nodes or labels', async () => {
    await page.goto(`${server.url}/#/knowledge`);
    const picker = page.locator('[data-testid=graph-picker]');
    await picker.waitFor();
    const value = await picker.locator('option', { hasText: /^big / }).getAttribute('value');
    await picker.selectOption(value ?? '');
    await expect.poll(() => page.locator('[data-graph-node]').count(), { timeout: 60_000 }).toBe(1000);
    const measured = await page.evaluate(() => {
      const spots = [...document.querySelectorAll<SVGGElement>('.gnode')].map((g) => {
        const [x, y] = (/translate\(([-\d.e]+) ([-\d.e]+)\)/.exec(g.getAttribute('transform') ?? '') ?? [])
          .slice(1)
          .map(Number);
        return { x: x ?? NaN, y: y ?? NaN, r: Number(g.querySelector('circle')?.getAttribute('r')) };
      });
      let overlaps = 0;
      for (let i = 0; i < spots.length; i++)
        for (let j = i + 1; j < spots.length; j++) {
          const a = spots[i]!;
          const b = spots[j]!;
          if (Math.hypot(a.x - b.x, a.y - b.y) < a.r + b.r) overlaps++;
        }
      const labels = [...document.querySelectorAll('.glabel')].map((t) => t.getBoundingClientRect());
      let labelOverlaps = 0;
      for (let i = 0; i < labels.length; i++)
        for (let j = i + 1; j < labels.length; j++) {
          const a = labels[i]!;
          const b = labels[j]!;
          if (
            a.left < b.right - 0.5 &&
            b.left < a.right - 0.5 &&
            a.top < b.bottom - 0.5 &&
            b.top < a.bottom - 0.5
          )
            labelOverlaps++;
        }
      const xs = spots.map((s) => s.x);
      const ys = spots.map((s) => s.y);
      return {
        overlaps,
        labelOverlaps,
        labels: labels.length,
        minRadius: Math.min(...spots.map((s) => s.r)),
        inside: spots.every((s) => s.x >= 0 && s.x <= 800 && s.y >= 0 && s.y <= 800),
        spread: Math.min(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys)),
        fontPx: Math.min(...labels.map((l) => l.height)),
      };
    });
    expect(measured.overlaps).toBe(0);
    expect(measured.labelOverlaps).toBe(0);
    expect(measured.inside).toBe(true);
    expect(measured.spread).toBeGreaterThan(400); // spread over the drawing, not one hairball
    expect(measured.minRadius).toBeGreaterThanOrEqual(1.5);
    expect(measured.labels).toBeGreaterThanOrEqual(25); // readable labels, at least one per cluster
    expect(measured.fontPx).toBeGreaterThanOrEqual(10);
    if (process.env.HEDGEHOP_SHOT) await page.screenshot({ path: process.env.HEDGEHOP_SHOT });
    // Zooming in makes room for more labels, still without overlaps.
    for (let i = 0; i < 4; i++) await page.click('[aria-label="zoom in"]');
    await expect.poll(() => page.locator('.glabel').count()).toBeGreaterThan(measured.labels);
  });

  it('large graph: search finds a node, selects it and brings it into view', async () => {
    const wanted = big.title(7, 3);
    await page.fill('[data-testid=kg-search]', 'c07 n03');
    await expect.poll(() => page.textContent('[data-testid=kg-matches]')).toContain('1 match');
    await page.press('[data-testid=kg-search]', 'Enter');
    await expect.poll(() => page.textContent('[data-testid=kg-node] h2')).toBe(wanted);
    const node = page.locator('.gnode.selected');
    expect(await node.count()).toBe(1);
    expect(await page.textContent('.glabel.selected')).toBe(wanted); // its label is shown
    const box = await node.boundingBox();
    const svg = await page.locator('.graph-svg').boundingBox();
    expect(box && svg).toBeTruthy();
    // Centred in the drawing (within a tenth of its size).
    expect(Math.abs(box!.x + box!.width / 2 - (svg!.x + svg!.width / 2))).toBeLessThan(svg!.width / 10);
    expect(Math.abs(box!.y + box!.height / 2 - (svg!.y + svg!.height / 2))).toBeLessThan(svg!.height / 10);
    await page.fill('[data-testid=kg-search]', 'zzz');
    await expect.poll(() => page.textContent('[data-testid=kg-matches]')).toContain('no node matches');
  });

  it('large graph: focus on a neighbourhood, filter by type and by name', async () => {
    // c07 n03 is chained to n02 and n04 and nothing else.
    await page.selectOption('[data-testid=kg-focus]', '1');
    await expect.poll(() => page.locator('[data-graph-node]').count()).toBe(3);
    expect((await page.locator('[data-graph-node] title').allTextContents()).sort()).toEqual(
      [big.title(7, 2), big.title(7, 3), big.title(7, 4)].sort(),
    );
    expect(await page.textContent('[data-testid=kg-drawn]')).toContain('drawing 3 of 1000 nodes');
    await page.selectOption('[data-testid=kg-focus]', '2');
    await expect.poll(() => page.locator('[data-graph-node]').count()).toBe(6); // n01…n05 and n00 via n04
    await page.selectOption('[data-testid=kg-focus]', '0');
    await page.selectOption('[data-testid=kg-type]', 'cache');
    // Five clusters are caches; the selected node (a cache too: cluster 7) is among them.
    await expect.poll(() => page.locator('[data-graph-node]').count()).toBe(5 * PER_CLUSTER);
    await page.selectOption('[data-testid=kg-type]', '');
    await page.fill('[data-testid=kg-search]', 'c12 ');
    await page.check('[data-testid=kg-only-matches]');
    await expect.poll(() => page.locator('[data-graph-node]').count()).toBe(PER_CLUSTER);
    const titles = await page
      .locator('[data-graph-node]')
      .evaluateAll((gs) => gs.map((g) => g.getAttribute('aria-label') ?? ''));
    expect(titles.every((t) => t.includes(' c12 '))).toBe(true);
  });

  it('a wrong token gets a clear message, the right one opens the memory', async () => {
    const token = 'browser-token-0123456789';
    const guarded = await startServer(db, { port: 0, webRoot, token });
    const fresh = await browser.newPage();
    try {
      await fresh.goto(guarded.url);
      await fresh.waitForSelector('.token-form');
      expect(await fresh.locator('[data-testid=token-rejected]').count()).toBe(0); // first visit: just the prompt
      await fresh.fill('.token-form input', 'not-the-token-at-all');
      await fresh.press('.token-form input', 'Enter');
      await fresh.waitForSelector('[data-testid=token-rejected]');
      expect(await fresh.textContent('[data-testid=token-rejected]')).toContain('did not accept the token');
      expect(await fresh.inputValue('.token-form input')).toBe('');
      expect(await fresh.getAttribute('.token-form input', 'aria-invalid')).toBe('true');
      await fresh.fill('.token-form input', token);
      await fresh.press('.token-form input', 'Enter');
      await fresh.waitForSelector('[data-testid=hedgehog]');
      expect(await fresh.locator('[data-testid=token-rejected]').count()).toBe(0);
    } finally {
      await fresh.close();
      await guarded.close();
    }
  });

  it('loaded without page errors', () => {
    expect(errors).toEqual([]);
  });
});
