import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import type { MemoryDB } from '../api/memory-db.js';
import { HedgehopError } from '../core/errors.js';
import { parseInput } from '../core/validate.js';
import { BearerToken } from './bearer-token.js';
import { utf8Body } from './utf8-body.js';
import { describeError, errorBody } from './error-response.js';
import { buildOpenApiDocument } from './openapi.js';
import type { ReadRunner } from './read-pool.js';
import { honoPath, routeKey, type Route } from './route.js';
import { apiRoutes } from './routes/index.js';
import { serverRoutes } from './routes/server-routes.js';
import { watchRoute } from './watch.js';
import { defaultWebRoot, WebAssets } from './web-assets.js';

/** A fetch-style handler, e.g. the MCP streamable HTTP transport, mounted at `/mcp`. */
export type FetchHandler = (request: Request) => Promise<Response>;

const optionsSchema = z.strictObject({
  token: z
    .string()
    .min(16, 'must be at least 16 characters (e.g. `openssl rand -hex 32`)')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  readOnly: z.boolean().default(false),
  cors: z
    .strictObject({ origins: z.array(z.url()).min(1, 'list at least one origin') })
    .optional()
    .describe('allowed browser origins; CORS is off when absent'),
  bodyLimitBytes: z
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .default(1024 * 1024),
  mcp: z.custom<FetchHandler>((value) => typeof value === 'function', 'must be a function').optional(),
  watch: z
    .union([z.boolean(), z.strictObject({ intervalMs: z.number().int().min(20).max(60_000) })])
    .default(false),
  webRoot: z.union([z.string().min(1), z.literal(false)]).optional(),
  allowedHosts: z.array(z.string().min(1)).optional(),
  onInternalError: z.custom<(error: unknown) => void>((value) => typeof value === 'function').optional(),
  reads: z
    .custom<ReadRunner>(
      (value) =>
        typeof value === 'object' && value !== null && typeof (value as ReadRunner).run === 'function',
      'must be a ReadRunner (run(route, input))',
    )
    .optional(),
});

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  /** Bearer token required on every `/api`, `/openapi.json` and `/mcp` request (≥ 16 characters). */
  readonly token?: string;
  /** Refuse every write with 403 `READ_ONLY` (open the file read-only too). */
  readonly readOnly?: boolean;
  /** Allowed browser origins for CORS; CORS stays off when absent. */
  readonly cors?: { readonly origins: readonly string[] };
  /** Largest request body accepted, in bytes (default 1 MiB); bigger ones get 413. */
  readonly bodyLimitBytes?: number;
  /** Handler mounted at `/mcp` (the CLI composes the MCP streamable HTTP transport here). */
  readonly mcp?: FetchHandler;
  /** Serve `/api/events`, server-sent `change` events when another process writes. */
  readonly watch?: boolean | { readonly intervalMs: number };
  /** Folder of the built UI (default: the package's `dist/web`); `false` serves no UI. */
  readonly webRoot?: string | false;
  /**
   * Host names accepted in the `Host` header when no token is set (default: loopback names).
   * Refusing other names stops DNS-rebinding pages from reaching a token-less local server.
   */
  readonly allowedHosts?: readonly string[];
  /** Called with unexpected (non-hedgehop) errors, which clients see only as 500 `INTERNAL`. */
  readonly onInternalError?: (error: unknown) => void;
  /**
   * Where the read routes run instead of this thread (`startServer`'s `readWorkers` gives a
   * pool of worker threads); writes and the few inline reads always run here.
   */
  readonly reads?: ReadRunner;
}

/** Host names a token-less server answers to by default. */
export const LOOPBACK_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** Content-Security-Policy of the UI: everything from this origin, nothing from elsewhere. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

/** The request's host name as the client addressed it (Node builds the URL from `Host`). */
function hostName(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType);
}

async function readBody(c: Context, route: Route): Promise<unknown> {
  if (route.body === undefined) return undefined;
  if (!isJson(c.req.header('content-type'))) {
    throw new HTTPException(415, { message: 'send the body as application/json' });
  }
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HedgehopError('INVALID_INPUT', 'body: not valid JSON', { field: 'body' });
  }
  return parseInput(route.body, value, 'body');
}

function mountRoute(
  app: Hono,
  route: Route,
  db: MemoryDB,
  readOnly: boolean,
  reads: ReadRunner | undefined,
): void {
  const key = routeKey(route);
  const offloaded = reads !== undefined && !route.write && !route.inline;
  app.on(route.method.toUpperCase(), honoPath(route.path), async (c) => {
    if (route.write && readOnly) {
      throw new HedgehopError(
        'READ_ONLY',
        `${route.method.toUpperCase()} ${route.path}: the server is read-only`,
      );
    }
    const params = route.params ? parseInput(route.params, c.req.param(), 'params') : undefined;
    const query = route.query ? parseInput(route.query, c.req.query(), 'query') : undefined;
    const body = await readBody(c, route);
    const result = offloaded
      ? await reads.run(key, { params, query, body })
      : await route.handler({ params, query, body, db });
    // Reads run on the workers' read-only handles, which never write the index rows a commit
    // leaves out of its transaction: write them before the client hears of the write, so its
    // next request finds what it wrote (the handle would otherwise write them a turn later).
    if (route.write && reads !== undefined) await db.catchUpIndex();
    const checked = route.response.safeParse(result);
    if (!checked.success) {
      throw new Error(
        `response of ${route.method} ${route.path} did not match its schema: ${checked.error.message}`,
      );
    }
    return c.json(checked.data as object);
  });
}

function guards(options: z.output<typeof optionsSchema>): {
  host: MiddlewareHandler;
  auth: MiddlewareHandler;
} {
  const token = options.token === undefined ? undefined : new BearerToken(options.token);
  const allowed = new Set((options.allowedHosts ?? LOOPBACK_NAMES).map((name) => name.toLowerCase()));
  const host: MiddlewareHandler = async (c, next) => {
    if (token === undefined && !allowed.has(hostName(c.req.url))) {
      return c.json(errorBody('FORBIDDEN_HOST', 'this server answers only to loopback host names'), 403);
    }
    return next();
  };
  const auth: MiddlewareHandler = async (c, next) => {
    if (c.req.method === 'OPTIONS') return next();
    if (token !== undefined && !token.accepts(c.req.header('authorization'))) {
      c.header('WWW-Authenticate', 'Bearer realm="hedgehop"');
      return c.json(errorBody('UNAUTHORIZED', 'send Authorization: Bearer <token>'), 401);
    }
    return next();
  };
  return { host, auth };
}

function mountWeb(app: Hono, webRoot: string | false | undefined): void {
  const assets = WebAssets.load(webRoot === false ? undefined : (webRoot ?? defaultWebRoot()));
  app.get('*', async (c, next) => {
    const asset = assets.get(c.req.path);
    if (!asset) return next();
    c.header('Content-Type', asset.contentType);
    c.header('Cache-Control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    c.header('Content-Security-Policy', CSP);
    return c.body(asset.body as Uint8Array<ArrayBuffer>);
  });
  if (!assets.available && webRoot !== false) {
    app.get('/', (c) =>
      c.text("The web UI is not built. Run 'npm run build' (it writes dist/web), then restart.", 503),
    );
  }
}

/**
 * The HTTP API and web UI over one open memory file, as a Hono app. Serve it with
 * {@link startServer} or call `app.request()` in tests.
 *
 * Every `/api/*` route validates its path, query and JSON body with zod and its response
 * against the schema published at `/openapi.json`; errors have one shape,
 * `{ error: { code, message, field? } }`, with the status mapped from the `HedgehopError` code.
 *
 * @example
 * ```ts
 * const db = await openMemory('memory.db');
 * const app = createHttpApp(db, { readOnly: true });
 * const response = await app.request('/api/stats');
 * console.log(await response.json());
 * ```
 */
export function createHttpApp(db: MemoryDB, options: HttpAppOptions = {}): Hono {
  const resolved = parseInput(optionsSchema, options, 'options');
  const info = {
    readOnly: resolved.readOnly,
    watch: resolved.watch !== false,
    mcp: resolved.mcp !== undefined,
  };
  const routes = [...serverRoutes(info), ...apiRoutes()];
  const app = new Hono();
  const { host, auth } = guards(resolved);

  app.use('*', host);
  app.use('*', async (c, next) => {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
  });
  if (resolved.cors) {
    const corsMiddleware = cors({
      origin: [...resolved.cors.origins],
      allowHeaders: ['Authorization', 'Content-Type', 'Mcp-Session-Id', 'Mcp-Protocol-Version'],
      exposeHeaders: ['Mcp-Session-Id'],
      maxAge: 600,
    });
    app.use('/api/*', corsMiddleware);
    app.use('/mcp', corsMiddleware);
  }
  const limit = bodyLimit({
    maxSize: resolved.bodyLimitBytes,
    onError: (c) => c.json(errorBody('TOO_LARGE', `request body over ${resolved.bodyLimitBytes} bytes`), 413),
  });
  for (const path of ['/api/*', '/mcp', '/openapi.json']) app.use(path, auth, limit, utf8Body);

  for (const route of routes) mountRoute(app, route, db, resolved.readOnly, resolved.reads);
  if (resolved.watch !== false) {
    const intervalMs = resolved.watch === true ? 500 : resolved.watch.intervalMs;
    app.get('/api/events', watchRoute(db, intervalMs));
  } else {
    // Described in the document either way; a client that follows it learns why it gets nothing.
    app.get('/api/events', (c) =>
      c.json(
        errorBody('NOT_FOUND', 'this server does not follow the file, so it sends no change events'),
        404,
      ),
    );
  }
  const document = buildOpenApiDocument(routes, info);
  app.get('/openapi.json', (c) => c.json(document));
  const mcp = resolved.mcp;
  if (mcp) app.all('/mcp', (c) => mcp(c.req.raw));
  mountWeb(app, resolved.webRoot);

  app.notFound((c) => c.json(errorBody('NOT_FOUND', `no route for ${c.req.method} ${c.req.path}`), 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      const code =
        error.status === 415
          ? 'UNSUPPORTED_MEDIA_TYPE'
          : error.status === 413
            ? 'TOO_LARGE'
            : 'INVALID_INPUT';
      return c.json(errorBody(code, error.message || 'bad request'), error.status);
    }
    const { status, body } = describeError(error);
    if (status === 503 && HedgehopError.isInstance(error) && error.code === 'BUSY')
      c.header('Retry-After', '1');
    if (body.error.code === 'INTERNAL') resolved.onInternalError?.(error);
    return c.json(body, status);
  });
  return app;
}
