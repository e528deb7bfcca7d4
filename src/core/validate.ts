import type { z } from 'zod';
import { HedgehopError } from './errors.js';

/**
 * Parses `value` with `schema`; on failure throws `INVALID_INPUT` whose message names the
 * first offending field (prefixed by `what`, e.g. `completeTask.lineId`).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
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
