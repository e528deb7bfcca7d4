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

/**
 * What would fix an error, as a key each surface turns into its own words (a CLI command, an
 * MCP tool, an HTTP endpoint, a library call), so no message names another surface's means.
 */
export type ErrorRemedy =
  /** The line does not exist: commit a task to it (which creates it) or create it. */
  | 'create-line'
  /** No turn is open: open one (search / turn begin / memory_turn_begin). */
  | 'open-turn'
  /** A turn is still open: close it (update / turn end / memory_turn_end). */
  | 'close-turn'
  /** No task at that place: list the line's tasks. */
  | 'list-nodes'
  /** No agent of that name: list the agents of the file. */
  | 'list-agents'
  /** No knowledge graph of that id or label: list the graphs. */
  | 'list-graphs'
  /** A file or folder the caller named does not exist: check the path. */
  | 'check-path';

/** Options of a {@link HedgehopError}. */
interface HedgehopErrorOptions {
  readonly cause?: unknown;
  /** The dotted path of the offending field (see {@link HedgehopError.field}). */
  readonly field?: string;
  /**
   * The part of `field` that names the caller's input rather than the library call (`field`
   * `recall.options.layers.0` → `['layers', 0]`); defaults to `field` split at dots.
   */
  readonly path?: readonly (string | number)[];
  readonly remedy?: ErrorRemedy;
}

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
  /**
   * The offending field as a path into the caller's own input (`['layers', 0]`), without the
   * library call's name, so each surface can name it its own way (`--layer`, `layers[0]`).
   */
  readonly path: readonly (string | number)[] | undefined;
  /** What would fix it, when one thing would (each surface words it; see {@link ErrorRemedy}). */
  readonly remedy: ErrorRemedy | undefined;
  readonly [BRAND] = true;

  constructor(code: ErrorCode, message: string, options: HedgehopErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HedgehopError';
    this.code = code;
    this.field = options.field;
    this.path = options.path ?? options.field?.split('.');
    this.remedy = options.remedy;
  }

  /** The message without its leading `field: ` (what is wrong, for a surface to prefix with its own name). */
  get detail(): string {
    const prefix = this.field === undefined ? undefined : `${this.field}: `;
    return prefix !== undefined && this.message.startsWith(prefix)
      ? this.message.slice(prefix.length)
      : this.message;
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

/**
 * An error's message with its field named as a surface names it: the leading `field: ` is
 * replaced by `name: ` (or dropped when the surface has no name for it). Messages without a
 * field are returned as they are.
 */
export function messageNaming(error: HedgehopError, name: string | undefined): string {
  if (error.field === undefined || error.detail === error.message) return error.message;
  return name === undefined ? error.detail : `${name}: ${error.detail}`;
}

/** A field path as JSON arguments spell it: `['layers', 0, 'x']` → `layers[0].x`. */
export function jsonPath(path: readonly (string | number)[] | undefined): string | undefined {
  if (path === undefined || path.length === 0) return undefined;
  return path.reduce<string>(
    (out, part) => (typeof part === 'number' ? `${out}[${part}]` : out === '' ? part : `${out}.${part}`),
    '',
  );
}
