import type { MiddlewareHandler } from 'hono';
import { invalidUtf8Offset } from '../core/utf8.js';
import { errorBody } from './error-response.js';

/**
 * Refuses a request body that is not UTF-8 with 400 `INVALID_INPUT` naming the offset of the
 * first bad byte, before any handler runs (a JSON parser would quietly turn the bytes into
 * U+FFFD and store that). The body is read from a clone, so handlers read it as usual.
 */
export const utf8Body: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.raw.body === null) return next();
  const bytes = new Uint8Array(await c.req.raw.clone().arrayBuffer());
  const offset = invalidUtf8Offset(bytes);
  if (offset >= 0) {
    return c.json(
      errorBody(
        'INVALID_INPUT',
        `body: not valid UTF-8 (first bad byte at offset ${offset}); nothing was written`,
      ),
      400,
    );
  }
  return next();
};
