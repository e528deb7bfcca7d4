import { statSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { HedgehopError } from '../core/errors.js';

/**
 * `stat` of a path a user gave, `undefined` when nothing is there. A path the system cannot
 * even look at (too long, a file used as a folder, a loop of links, no permission) is
 * `INVALID_INPUT` naming the argument, never an untyped system error.
 */
function statArgument(path: string, argument: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new HedgehopError(
      'INVALID_INPUT',
      `${argument}: cannot use ${path.slice(0, 200)} (${typeof code === 'string' ? code : 'unreadable path'})`,
      { field: argument, cause: error },
    );
  }
}

/**
 * The absolute path of a file argument that must be an existing regular file: `NOT_FOUND` when
 * nothing is there, `INVALID_INPUT` naming the argument when it is a directory (or another
 * non-file), so `import <dir>` and `commit --context <dir>` both exit 1 with a usable message.
 */
export function existingFile(path: string, argument: string): string {
  const absolute = resolve(path);
  const stats = statArgument(absolute, argument);
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
  const folder = statArgument(dirname(absolute), argument);
  if (folder === undefined || !folder.isDirectory()) {
    throw new HedgehopError(
      'INVALID_INPUT',
      `${argument}: the folder ${dirname(absolute)} does not exist; create it first or choose another path`,
      { field: argument },
    );
  }
  if (statArgument(absolute, argument)?.isDirectory() === true) {
    throw new HedgehopError('INVALID_INPUT', `${argument}: ${absolute} is a directory; give a file path`, {
      field: argument,
    });
  }
  return absolute;
}
