/**
 * The one error type hedgehop throws. Every failure that crosses the public API is a
 * `HedgehopError` with a stable string `code`; SQLite and model errors are wrapped and kept
 * as `cause`.
 */
export type ErrorCode =
  | 'INVALID_INPUT'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'LOCKED'
  | 'BUSY'
  | 'CLOSED'
  | 'CORRUPT'
  | 'VERSION'
  | 'READ_ONLY'
  | 'LLM_FAILED'
  | 'IO';

const BRAND = Symbol.for('hedgehop.error');

/**
 * Error with a machine-readable `code`.
 *
 * @example
 * ```ts
 * try { await db.primary().radial.getLineOrThrow('nope'); }
 * catch (error) { if (HedgehopError.isInstance(error) && error.code === 'NOT_FOUND') { … } }
 * ```
 */
export class HedgehopError extends Error {
  readonly code: ErrorCode;
  /** For `INVALID_INPUT`: the dotted path of the offending field, when one field is to blame. */
  readonly field: string | undefined;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; field?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HedgehopError';
    this.code = code;
    this.field = options.field;
  }

  /** True for any hedgehop error, even one thrown by another copy of the package. */
  static isInstance(value: unknown): value is HedgehopError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** Shorthand for an `INVALID_INPUT` error naming one field. */
export function invalidInput(field: string, message: string): HedgehopError {
  return new HedgehopError('INVALID_INPUT', `${field}: ${message}`, { field });
}

/** Shorthand for a `NOT_FOUND` error. */
export function notFound(message: string): HedgehopError {
  return new HedgehopError('NOT_FOUND', message);
}
