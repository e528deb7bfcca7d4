import { z } from 'zod';
import type { JsonValue } from '../memory/radial/types.js';

const LONE_SURROGATE_RE = /[\uD800-\uDFFF]/u;

/**
 * True for text that is valid Unicode (no lone surrogate). Storage is UTF-8, where a lone
 * surrogate cannot be written: it would come back as U+FFFD, so it is refused up front.
 */
export function wellFormed(text: string): boolean {
  return !LONE_SURROGATE_RE.test(text);
}

/** Deepest nesting an environment snapshot may have. */
const MAX_DEPTH = 64;

/** Why `value` is not plain JSON, with the path of the first offending part; undefined when it is. */
export function jsonProblem(
  value: unknown,
  path: (string | number)[] = [],
  seen: Set<object> = new Set(),
): { path: (string | number)[]; message: string } | undefined {
  if (value === null || typeof value === 'boolean') return undefined;
  if (typeof value === 'string') {
    return wellFormed(value)
      ? undefined
      : { path, message: 'contains a lone surrogate (not valid Unicode text)' };
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? undefined : { path, message: `${value} is not a JSON number` };
  }
  if (typeof value !== 'object') return { path, message: `a ${typeof value} is not JSON-serialisable` };
  if (seen.has(value)) return { path, message: 'is a circular reference' };
  if (path.length >= MAX_DEPTH) return { path, message: `nested deeper than ${MAX_DEPTH} levels` };
  seen.add(value);
  try {
    if (Array.isArray(value)) return arrayProblem(value, path, seen);
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      const kind = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      return {
        path,
        message: `a ${kind} is not plain JSON (convert it to a string, number or plain object)`,
      };
    }
    for (const [key, child] of Object.entries(value)) {
      if (!wellFormed(key)) return { path: [...path, key], message: 'key contains a lone surrogate' };
      const problem = jsonProblem(child, [...path, key], seen);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    seen.delete(value);
  }
}

function arrayProblem(
  value: readonly unknown[],
  path: (string | number)[],
  seen: Set<object>,
): { path: (string | number)[]; message: string } | undefined {
  for (let i = 0; i < value.length; i++) {
    if (!(i in value)) return { path: [...path, i], message: 'a hole in an array is not JSON' };
    const problem = jsonProblem(value[i], [...path, i], seen);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * A plain JSON object (an environment snapshot): checked part by part so the error names the
 * exact offending key, then deep-copied so later changes to the caller's object do not leak in.
 */
export const jsonObjectSchema = z
  .unknown()
  .superRefine((value, ctx) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be a plain JSON object' });
      return;
    }
    const problem = jsonProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: problem.path });
  })
  .transform((value) => JSON.parse(JSON.stringify(value)) as { [key: string]: JsonValue });
