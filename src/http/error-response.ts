import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { displayMessage } from '../core/echo.js';
import { HedgehopError, jsonPath, messageNaming, type ErrorCode, type ErrorRemedy } from '../core/errors.js';

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
type HttpOnlyCode = 'UNAUTHORIZED' | 'FORBIDDEN_HOST' | 'TOO_LARGE' | 'UNSUPPORTED_MEDIA_TYPE' | 'INTERNAL';

/** The body of every error response. */
export const errorBodySchema = z
  .strictObject({
    error: z.strictObject({
      code: z.string().describe('a HedgehopError code, or UNAUTHORIZED, TOO_LARGE, INTERNAL …'),
      message: z.string(),
      field: z
        .string()
        .optional()
        .describe('for INVALID_INPUT: the offending field, as a path into the request (`layers[0]`)'),
      hint: z.string().optional().describe('what would fix it, when one thing would'),
    }),
  })
  .meta({ id: 'Error' });

/** The body of every error response. */
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** An error body with a code and message. */
export function errorBody(
  code: ErrorCode | HttpOnlyCode,
  message: string,
  field?: string,
  hint?: string,
): ErrorBody {
  return {
    error: {
      code,
      message,
      ...(field === undefined ? {} : { field }),
      ...(hint === undefined ? {} : { hint }),
    },
  };
}

/**
 * The field an error names, as a place in the request: the route's own checks already say
 * `body.x`, `query.x` or `params.x`; a field the library names (`options.budgetTokens`) is
 * named by its path in the JSON sent (`budgetTokens`).
 */
function requestField(error: HedgehopError): string | undefined {
  if (error.field !== undefined && /^(?:body|query|params)(?:\.|$)/u.test(error.field)) return error.field;
  return jsonPath(error.path);
}

/** What would fix an error, in the API's words. */
function endpointRemedy(remedy: ErrorRemedy | undefined): string | undefined {
  switch (remedy) {
    case 'create-line':
      return 'POST /api/agents/{agent}/lines creates the line (or commit a task to it: POST …/lines/{lineId}/tasks)';
    case 'open-turn':
      return 'open one with POST /api/agents/{agent}/turn';
    case 'close-turn':
      return 'close it with POST /api/agents/{agent}/turn/end';
    case 'list-nodes':
      return "GET /api/agents/{agent}/lines/{lineId}/history lists the line's tasks";
    case 'list-agents':
      return 'GET /api/agents lists the agents';
    case 'list-graphs':
      return 'GET /api/knowledge lists the graphs';
    default:
      return undefined;
  }
}

/**
 * Maps any thrown value to a status and body. Unknown errors become a 500 `INTERNAL` whose
 * message does not echo internals (stack traces, SQL) to the client.
 */
export function describeError(error: unknown): { status: ContentfulStatusCode; body: ErrorBody } {
  if (HedgehopError.isInstance(error)) {
    return {
      status: STATUS_BY_CODE[error.code] ?? 500,
      body: errorBody(
        error.code,
        displayMessage(messageNaming(error, requestField(error))),
        error.field === undefined ? undefined : (requestField(error) ?? error.field),
        endpointRemedy(error.remedy),
      ),
    };
  }
  return { status: 500, body: errorBody('INTERNAL', 'internal error (see the server log)') };
}
