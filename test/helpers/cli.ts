import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built CLI (tests that spawn it run after `npm run build`). */
export const CLI = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));

/** What one CLI run gave. */
export interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built CLI with piped stdio (so stdout and stderr are not terminals), no colour, no env file. */
export function hop(args: readonly string[], input = ''): Run {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', HEDGEHOP_FILE: '', HEDGEHOP_AGENT: '' },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
