import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CliIO } from './output.js';
import { progressBar } from './progress.js';

function io(tty: boolean): { io: CliIO; written: () => string } {
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  let text = '';
  stderr.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { io: { stdout: new PassThrough(), stderr, env: {} }, written: () => text };
}

describe('progressBar', () => {
  it('draws counts and a rate on a terminal', async () => {
    const { io: tty, written } = io(true);
    const bar = progressBar(tty, 'import', false);
    bar.update(5, 10);
    bar.update(10, 10);
    bar.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written()).toContain('import [');
    expect(written()).toContain('10/10');
    expect(written()).toMatch(/\d+\/s/);
  });

  it('is silent when stderr is piped or output is JSON', async () => {
    for (const [tty, json] of [
      [false, false],
      [true, true],
    ] as const) {
      const { io: target, written } = io(tty);
      const bar = progressBar(target, 'export', json);
      bar.update(1, 2);
      bar.finish();
      await new Promise((resolve) => setImmediate(resolve));
      expect(written()).toBe('');
    }
  });
});
