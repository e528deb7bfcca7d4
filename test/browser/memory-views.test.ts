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

describe.skipIf(skip !== undefined)('web UI in Chromium: scenes, knowledge, engram, recall, Dream', () => {
  let db: MemoryDB;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    db = await openDemo(tempFile());
    server = await startServer(db, { port: 0, webRoot });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
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

  it('recall returns ranked hits and the context for the budget', async () => {
    await page.goto(`${server.url}/#/recall`);
    await page.fill('[data-testid=recall-query]', 'JWT signing secret');
    await page.fill('[data-testid=recall-budget]', '150');
    await page.click('[data-testid=recall-submit]');
    await page.waitForSelector('[data-testid=recall-hits] li');
    expect(await page.locator('[data-testid=recall-hits] li').count()).toBeGreaterThan(0);
    expect(await page.textContent('[data-testid=recall-context]')).toContain('vault');
  });

  it('shows a scene as a timeline whose turns open to utterances and events', async () => {
    await page.goto(`${server.url}/#/scenes`);
    await page.waitForSelector('[data-testid=timeline]');
    expect(await page.locator('[data-testid=timeline] > li').count()).toBe(1); // the current scene, Token audit
    await page.click('button.scene:has-text("Login work")');
    await expect.poll(() => page.locator('[data-testid=timeline] > li').count()).toBe(2);
    await page.click('[data-testid=timeline] > li:first-child summary');
    await page.waitForSelector('.record.event');
    expect(await page.textContent('.turn-body')).toContain('grep -rn JWT_SECRET config/');
    expect(await page.textContent('.turn-body')).toContain('Where is the JWT signing secret kept?');
  });

  it('draws a knowledge graph and opens a node from the keyboard', async () => {
    await page.goto(`${server.url}/#/knowledge`);
    await page.waitForSelector('[data-graph-node]');
    expect(await page.locator('[data-graph-node]').count()).toBe(4);
    const vault = page.locator('[data-graph-node]', { hasText: 'Vault' });
    await vault.focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-testid=kg-node]');
    expect(await page.textContent('[data-testid=kg-node]')).toContain('API → Vault');
  });

  it('draws the engram of scenes and lists Dream passes with their reports', async () => {
    await page.goto(`${server.url}/#/engram`);
    await page.waitForSelector('[data-graph-node]');
    expect(await page.locator('[data-graph-node]').count()).toBe(2);
    await page.locator('[data-graph-node]', { hasText: 'Token audit' }).click();
    await page.waitForSelector('[data-testid=engram-scene]');
    expect(await page.textContent('[data-testid=engram-scene]')).toContain('importance');

    await page.goto(`${server.url}/#/dream`);
    await page.waitForSelector('[data-testid=dreams] > li');
    expect(await page.locator('[data-testid=dreams] > li').count()).toBe(1);
    await page.click('text=Run a Dream pass now');
    await expect.poll(() => page.locator('[data-testid=dreams] > li').count()).toBe(2);
    await page.click('[data-testid=dreams] > li:first-child summary');
    expect(await page.textContent('[data-testid=dreams] > li:first-child table')).toContain('engram');
  });

  it('names a scene its host did not name "Unnamed scene", never by its internal name', async () => {
    const agent = db.primary();
    const { scene } = await agent.search({ newScene: true });
    await agent.update({
      input: 'Which port does the exporter use?',
      output: 'Port 9464.',
      createdAt: Date.now(),
    });
    await page.goto(`${server.url}/#/scenes`);
    await page.waitForSelector('button.scene');
    const names = await page.locator('button.scene strong').allTextContents();
    expect(names).toContain(`Unnamed scene ${scene.id.slice(0, 12)}`);
    expect(names.join(' ')).not.toContain('session:');
  });

  it('loaded without page errors', () => {
    expect(errors).toEqual([]);
  });
});
