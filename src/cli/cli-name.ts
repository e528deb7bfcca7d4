import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

let cached: string | undefined;

/**
 * How a user runs this CLI from where they are: `hedgehop` when an executable of that name is on
 * the PATH (a global install), else `npx hedgehop` (a project install, as the README's
 * `npm install` makes). Hints and the demo's suggestions print commands in this form.
 */
export function cliName(env: NodeJS.ProcessEnv = process.env): string {
  if (cached !== undefined && env === process.env) return cached;
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir.length > 0 && !dir.includes(`${join('node_modules', '.bin')}`))
    .some((dir) => existsSync(join(dir, 'hedgehop')) || existsSync(join(dir, 'hedgehop.cmd')));
  const name = onPath ? 'hedgehop' : 'npx hedgehop';
  if (env === process.env) cached = name;
  return name;
}
