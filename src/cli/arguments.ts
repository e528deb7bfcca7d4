import { echo } from '../core/echo.js';
import { HedgehopError } from '../core/errors.js';
import { DETAIL_LEVEL_NAMES, type DetailLevelName } from '../core/model/levels.js';

/** How every command module receives the shared error-mapping wrapper. */
export type RunCommand = (fn: () => Promise<void>) => Promise<void>;

/** Commander's collector for repeatable options (`--todo a --todo b`). */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** Decimal digits only: `Number()` would also take `0x1`, `1e3`, `0b1` and surrounding spaces. */
const DECIMAL = /^[0-9]+$/u;

/** A whole number (decimal digits) from an option, or `INVALID_INPUT` naming the option. */
export function wholeNumber(name: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const number = DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min) {
    throw new HedgehopError(
      'INVALID_INPUT',
      `--${name}: must be a whole number ≥ ${min} (got '${echo(value)}')`,
      {
        field: name,
      },
    );
  }
  return number;
}

/** A number in 0..1 from an option. */
export function fraction(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/u.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number < 0 || number > 1) {
    throw new HedgehopError(
      'INVALID_INPUT',
      `--${name}: must be a number between 0 and 1 (got '${echo(value)}')`,
      {
        field: name,
      },
    );
  }
  return number;
}

/** A detail level from an option: 0..4 or its name. */
export function detailLevel(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const byName = DETAIL_LEVEL_NAMES.indexOf(value as DetailLevelName);
  if (byName >= 0) return byName;
  const number = DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (Number.isInteger(number) && number >= 0 && number <= 4) return number;
  throw new HedgehopError(
    'INVALID_INPUT',
    `--${name}: must be a detail level, 0..4 or ${DETAIL_LEVEL_NAMES.join(', ')} (got '${echo(value)}')`,
    { field: name },
  );
}

/** A time from an option: milliseconds since the epoch, or an ISO 8601 date. */
export function timestamp(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (DECIMAL.test(value)) return Number(value);
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) {
    throw new HedgehopError(
      'INVALID_INPUT',
      `--${name}: must be milliseconds since the epoch or an ISO date`,
      {
        field: name,
      },
    );
  }
  return parsed;
}

/** Drops the keys whose value is undefined (for `exactOptionalPropertyTypes` option objects). */
export function defined<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]: Exclude<T[K], undefined>;
  };
}

/**
 * Cuts text to at most `max` characters on one line, for listings: at the last space when one
 * falls in the last third (so a word, time or id is not torn), never inside a surrogate pair.
 */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  let end = max - 1;
  const space = flat.lastIndexOf(' ', end);
  if (space >= Math.ceil((max * 2) / 3)) end = space;
  else if (/[\uDC00-\uDFFF]/.test(flat.charAt(end))) end -= 1;
  return `${flat.slice(0, end).trimEnd()}…`;
}
