import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { HedgehopError } from '../core/errors.js';

/**
 * The absolute path of a file argument that must be an existing regular file: `NOT_FOUND` when
 * nothing is there, `INVALID_INPUT` naming the argument when it is a directory (or another
 * non-file), so `import <dir>` and `commit --context <dir>` both exit 1 with a usable message.
 */
export function existingFile(path: string, argument: string): string {
  const absolute = resolve(path);
  const stats = statSync(absolute, { throwIfNoEntry: false });
  if (stats === undefined)
    throw new HedgehopError('NOT_FOUND', `${argument}: ${absolute} does not exist`, { remedy: 'check-path' });
  if (!stats.isFile()) {
    throw new HedgehopError(
      'INVALID_INPUT',
      `${argument}: ${absolute} is ${stats.isDirectory() ? 'a directory' : 'not a regular file'}; give a file`,
      { field: argument },
    );
  }
  return absolute;
}

/**
 * The absolute path a command may write a new file at: its folder must exist (else
 * `INVALID_INPUT` naming the argument; nothing is created), and the path must not be a folder.
 */
export function writableTarget(path: string, argument: string): string {
  const absolute = resolve(path);
  const folder = statSync(dirname(absolute), { throwIfNoEntry: false });
  if (folder === undefined || !folder.isDirectory()) {
    throw new HedgehopError(
      'INVALID_INPUT',
      `${argument}: the folder ${dirname(absolute)} does not exist; create it first or choose another path`,
      { field: argument },
    );
  }
  if (statSync(absolute, { throwIfNoEntry: false })?.isDirectory() === true) {
    throw new HedgehopError('INVALID_INPUT', `${argument}: ${absolute} is a directory; give a file path`, {
      field: argument,
    });
  }
  return absolute;
}
