import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemory } from '../../src/api/memory-db.js';
import { startServer } from '../../src/http/start-server.js';
import { tempFile } from '../helpers/temp.js';
import { openDemo } from '../http/demo-memory.js';
import { browserSkipReason, launchChromium } from './browser.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const webRoot = join(root, 'dist', 'web');
const skip = browserSkipReason(webRoot);
if (skip) console.warn(`[browser tests skipped] ${skip}`);

describe.skipIf(skip !== undefined)('web UI in Chromium: watching and tokens', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('redraws when another process writes (serve --watch)', async () => {
    const path = tempFile();
    const db = await openDemo(path);
    const server = await startServer(db, { port: 0, webRoot, watch: { intervalMs: 50 } });
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector('[data-testid=hedgehog]');
      await expect.poll(() => page.textContent('.live')).toContain('live');
      expect(await page.locator('[data-quill="ops"]').count()).toBe(0);
      const writer = await openMemory(path);
      await writer.primary().radial.createLine('ops', 'Operations');
      await writer.primary().radial.completeTask({
        lineId: 'ops',
        taskLabel: 'Rotate the TLS certificate',
        fullContext: 'certbot renew; reload nginx',
        conversationSummary: 'renewed',
      });
      await writer.close();
      await page.waitForSelector('[data-line="ops"][data-position="1"]', { timeout: 10_000 });
    } finally {
      await page.close();
      await server.close();
      await db.close();
    }
  });

  it('asks for the token and then shows the memory', async () => {
    const db = await openDemo(tempFile());
    const token = 'browser-token-0123456789';
    const server = await startServer(db, { port: 0, webRoot, token });
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await page.waitForSelector('.token-form');
      await page.fill('.token-form input', token);
      await page.press('.token-form input', 'Enter');
      await page.waitForSelector('[data-testid=hedgehog]');
      expect(await page.locator('circle.node').count()).toBeGreaterThan(0);
    } finally {
      await page.close();
      await server.close();
      await db.close();
    }
  });
});
