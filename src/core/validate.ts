import type { z } from 'zod';
import { HedgehopError } from './errors.js';
import { loneSurrogateOffset } from './utf8.js';

/**
 * Parses `value` with `schema`; on failure throws `INVALID_INPUT` whose message names the
 * first offending field (prefixed by `what`, e.g. `completeTask.lineId`). A string holding a
 * lone surrogate (no UTF-8 form; it would be stored as U+FFFD) is refused the same way.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) {
    rejectLoneSurrogates(result.data, what);
    return result.data;
  }
  const issue = result.error.issues[0];
  const path = issue && issue.path.length > 0 ? `${what}.${issue.path.map(String).join('.')}` : what;
  const message = issue ? issue.message : 'invalid value';
  throw new HedgehopError('INVALID_INPUT', `${path}: ${message}`, {
    field: path,
    // The path inside the caller's value; `what` names the library call or argument itself.
    path:
      issue && issue.path.length > 0
        ? issue.path.map((part) => (typeof part === 'number' ? part : String(part)))
        : lastSegment(what),
    cause: result.error,
  });
}

/**
 * Names `parseInput` is called with that stand for a whole library argument or call rather than
 * one field of the caller's input (a surface has no name for them).
 */
const WHOLE_ARGUMENTS = new Set([
  'options',
  'params',
  'body',
  'patch',
  'edits',
  'batch',
  'json',
  'text',
  'update',
  'search',
  'appendArchive',
  'appendArchiveMany',
  'completeTask',
  'extendTask',
  'planNodeAdd',
  'planNodeUpdate',
  'updateProfile',
  'updateScene',
  'mergeScenes',
  'listScenes',
  'searchArchive',
  'dreamHistory',
]);

/** `completeTask.lineId` → `['lineId']`; a whole argument (`options`, `update`) → `[]`. */
function lastSegment(what: string): (string | number)[] {
  const last = what.slice(what.lastIndexOf('.') + 1);
  return WHOLE_ARGUMENTS.has(last) ? [] : [last];
}

/** Throws `INVALID_INPUT` naming the first string (or key) in `value` that is not well-formed. */
function rejectLoneSurrogates(value: unknown, path: string): void {
  if (typeof value === 'string') {
    const offset = loneSurrogateOffset(value);
    if (offset >= 0) {
      throw new HedgehopError(
        'INVALID_INPUT',
        `${path}: not valid Unicode (a lone surrogate at byte offset ${offset}, which has no UTF-8 form)`,
        { field: path },
      );
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => rejectLoneSurrogates(item, `${path}.${index}`));
    return;
  }
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype)
    return;
  for (const [key, item] of Object.entries(value)) {
    rejectLoneSurrogates(key, `${path}.${key}`);
    rejectLoneSurrogates(item, `${path}.${key}`);
  }
}
