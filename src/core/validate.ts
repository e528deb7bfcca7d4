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
  throw new HedgehopError('INVALID_INPUT', `${path}: ${message}`, { field: path, cause: result.error });
}
