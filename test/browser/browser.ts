import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (installed by `.ci/run`); the tests never download a browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined when they can. */
export function browserSkipReason(webRoot: string): string | undefined {
  if (!existsSync(CHROMIUM))
    return `${CHROMIUM} is absent: install Debian's chromium package (apt-get install -y chromium)`;
  if (!existsSync(`${webRoot}/index.html`))
    return `${webRoot}/index.html is absent: run 'npm run build' first`;
  return undefined;
}

/** Headless Chromium with everything that would reach the network turned off. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
