import type { CliIO } from './output.js';

/** Reports progress of long work; silent unless stderr is a terminal and output is not JSON. */
export interface Progress {
  update(done: number, total?: number): void;
  finish(): void;
}

const silent: Progress = { update: () => undefined, finish: () => undefined };

/**
 * A one-line progress bar with counts and rate, redrawn at most ten times a second.
 * Returns a silent reporter when piped or with `--json`.
 */
export function progressBar(io: CliIO, label: string, json: boolean): Progress {
  if (json || io.stderr.isTTY !== true) return silent;
  const started = performance.now();
  let last = 0;
  let drawn = false;
  const draw = (done: number, total: number | undefined): void => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? Math.round(done / seconds) : 0;
    const width = 24;
    const bar =
      total && total > 0
        ? `[${'#'.repeat(Math.round((done / total) * width)).padEnd(width, '.')}] ${done}/${total}`
        : `${done}`;
    io.stderr.write(`\r${label} ${bar} ${rate}/s `);
    drawn = true;
  };
  return {
    update(done, total) {
      const now = performance.now();
      if (now - last < 100 && done !== total) return;
      last = now;
      draw(done, total);
    },
    finish() {
      if (drawn) io.stderr.write('\n');
    },
  };
}
