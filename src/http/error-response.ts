import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { displayMessage } from '../core/echo.js';
import { HedgehopError, type ErrorCode } from '../core/errors.js';

/**
 * HTTP status of each `HedgehopError` code. `BUSY` is transient (another process held the
 * write lock past the busy timeout), so it is a 503 with `Retry-After`; `LOCKED` is a state
 * that retrying soon will not change, so it is a 409 like `CONFLICT`.
 */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, ContentfulStatusCode>> = {
  INVALID_INPUT: 400,
  READ_ONLY: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LOCKED: 409,
  BUSY: 503,
  CLOSED: 503,
  LLM_FAILED: 502,
  CORRUPT: 500,
  VERSION: 500,
  IO: 500,
};

/** Codes the HTTP layer adds to the library's own. */
export type HttpOnlyCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN_HOST'
  | 'TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INTERNAL';

/** The body of every error response. */
export const errorBodySchema = z
  .strictObject({
    error: z.strictObject({
      code: z.string().describe('a HedgehopError code, or UNAUTHORIZED, TOO_LARGE, INTERNAL …'),
      message: z.string(),
      field: z.string().optional().describe('for INVALID_INPUT: the dotted path of the offending field'),
    }),
  })
  .meta({ id: 'Error' });

/** The body of every error response. */
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** An error body with a code and message. */
export function errorBody(code: ErrorCode | HttpOnlyCode, message: string, field?: string): ErrorBody {
  return { error: field === undefined ? { code, message } : { code, message, field } };
}

/**
 * Maps any thrown value to a status and body. Unknown errors become a 500 `INTERNAL` whose
 * message does not echo internals (stack traces, SQL) to the client.
 */
export function describeError(error: unknown): { status: ContentfulStatusCode; body: ErrorBody } {
  if (HedgehopError.isInstance(error)) {
    return {
      status: STATUS_BY_CODE[error.code] ?? 500,
      body: errorBody(error.code, displayMessage(error.message), error.field),
    };
  }
  return { status: 500, body: errorBody('INTERNAL', 'internal error (see the server log)') };
}
