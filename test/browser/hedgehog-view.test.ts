import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryDB } from '../../src/api/memory-db.js';
import { startServer, type RunningServer } from '../../src/http/start-server.js';
import { tempFile } from '../helpers/temp.js';
import { DEMO_LINES, LOGIN_FULL_STATE, openDemo } from '../http/demo-memory.js';
import { browserSkipReason, launchChromium } from './browser.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const webRoot = join(root, 'dist', 'web');
const skip = browserSkipReason(webRoot);
if (skip) console.warn(`[browser tests skipped] ${skip}`);

describe.skipIf(skip !== undefined)('web UI in Chromium: the hedgehog view', () => {
  let db: MemoryDB;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    db = await openDemo(tempFile());
    server = await startServer(db, { port: 0, webRoot });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
    page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    // Any request leaving this server would be a bug (no CDN, no fonts from elsewhere).
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) {
        errors.push(`external request: ${request.url()}`);
      }
    });
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=hedgehog]');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (db && !db.closed) await db.close();
  });

  it('draws every line as a quill and every node on it', async () => {
    for (const line of DEMO_LINES) {
      expect(await page.locator(`[data-quill="${line.id}"]`).count(), line.id).toBe(1);
      for (let position = 1; position <= line.tasks.length; position++) {
        expect(await page.locator(`[data-line="${line.id}"][data-position="${position}"]`).count()).toBe(1);
      }
    }
    const total = DEMO_LINES.reduce((n, line) => n + line.tasks.length, 0);
    expect(await page.locator('circle.node').count()).toBe(total);
    // Older nodes are drawn smaller and farther out.
    const radius = (position: number) =>
      page.locator(`[data-line="auth"][data-position="${position}"]`).getAttribute('r').then(Number);
    expect(await radius(1)).toBeGreaterThan(await radius(3));
  });

  it('drills a node from origin level to the exact full state', async () => {
    await page.click('[data-line="auth"][data-position="2"]');
    await expect
      .poll(() => page.textContent('[data-testid=reader-title]'))
      .toBe('Implement JWT login endpoint');
    const seen: string[] = [];
    for (const level of ['origin', 'brief', 'summary', 'detailed']) {
      await expect.poll(() => page.getAttribute('[data-testid=level-text]', 'data-level')).toBe(level);
      seen.push((await page.textContent('[data-testid=level-text]')) ?? '');
      if (level === 'summary') await page.screenshot({ path: join(root, 'docs', 'hedgehog-view.png') });
      await page.click('[data-testid=drill]');
    }
    expect(seen.every((text) => text.length > 0)).toBe(true);
    // The title names the task once; the levels below the origin (which holds only the label
    // here) do not repeat it.
    expect(seen.slice(1).filter((text) => text.startsWith('Implement JWT login endpoint'))).toEqual([]);
    await page.waitForSelector('[data-testid=full-state]');
    expect(await page.textContent('[data-testid=full-state]')).toBe(LOGIN_FULL_STATE);
  });

  it('opens nodes from the keyboard', async () => {
    await page.focus('[data-line="infra"][data-position="1"]');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.textContent('[data-testid=reader-title]'))
      .toBe('Set up Postgres on staging');
  });

  it('loaded without page errors or external requests', () => {
    expect(errors).toEqual([]);
  });
});
