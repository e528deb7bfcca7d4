import { z } from 'zod';

/**
 * ISO 8601 as hedgehop reads it: a date (`2026-01-05`, midnight UTC), or a date and time
 * (`2026-01-05T09:30`, `…T09:30:00.123`, with `Z` or `±hh:mm` for the zone; without one, local
 * time, as JavaScript's `Date.parse` reads it and as HedgehogMemory wrote it).
 */
const ISO_8601_RE =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/iu;

/** Milliseconds since the epoch of an ISO 8601 string; `undefined` when it is not one. */
export function parseIsoTime(text: string): number | undefined {
  const trimmed = text.trim();
  if (!ISO_8601_RE.test(trimmed)) return undefined;
  // Date.parse wants `T`, a `.` fraction of at most 3 digits and `±hh:mm`.
  const [date, time] = [trimmed.slice(0, 10), trimmed.slice(11)];
  const normal =
    time === ''
      ? date
      : `${date}T${time
          .replace(',', '.')
          .replace(/(\.\d{3})\d+/u, '$1')
          .replace(/([+-]\d{2})(\d{2})$/u, '$1:$2')
          .replace(/([+-]\d{2})$/u, '$1:00')}`;
  const ms = Date.parse(normal);
  return Number.isNaN(ms) ? undefined : ms;
}

/** What a time input may be: ms since the epoch, an ISO 8601 string, or a `Date`. */
type TimeInput = number | string | Date;

/**
 * Wraps a schema of milliseconds since the epoch so it also takes an ISO 8601 string or a
 * `Date` (converted first, then checked by `ms`). A string that is not ISO 8601 fails with a
 * message saying both forms.
 */
export function timeInput(ms: z.ZodType<number>): z.ZodType<number, TimeInput> {
  return z.preprocess((value, ctx) => {
    if (value instanceof Date) return value.getTime();
    if (typeof value !== 'string') return value;
    const parsed = parseIsoTime(value);
    if (parsed !== undefined) return parsed;
    ctx.issues.push({
      code: 'custom',
      message: `'${value.slice(0, 64)}' is not a time: give milliseconds since the epoch or an ISO 8601 date-time (e.g. 2026-01-05T09:30:00Z)`,
      input: value,
    });
    return z.NEVER;
  }, ms) as unknown as z.ZodType<number, TimeInput>;
}
