import type { z } from 'zod';
import type { MemoryDB } from '../api/memory-db.js';

/** HTTP methods the API uses. */
export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** `T` with every array and property read-only, so handlers may return the API's readonly types. */
type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** What a route handler receives: validated inputs and the open memory. */
interface RouteInput<P, Q, B> {
  readonly params: Output<P>;
  readonly query: Output<Q>;
  readonly body: Output<B>;
  readonly db: MemoryDB;
}

/** A handler's input with its types erased. */
export interface ErasedInput {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly db: MemoryDB;
}

/**
 * One endpoint, declared once: its schemas drive request validation, response validation and
 * the OpenAPI document, so the three cannot drift apart.
 */
interface RouteSpec<
  P extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
  B extends z.ZodType | undefined,
  R extends z.ZodType,
> {
  readonly method: RouteMethod;
  /** OpenAPI-style path, e.g. `/api/agents/{agent}/lines`. */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  /** True when the route changes the file; refused with 403 `READ_ONLY` in read-only mode. */
  readonly write: boolean;
  /**
   * A read answered on the main thread even when the server has read workers: it is cheap, or
   * its answer belongs to the server's own connection (the data version).
   */
  readonly inline?: boolean;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  readonly response: R;
  readonly handler: (input: RouteInput<P, Q, B>) => Promise<DeepReadonly<z.input<R>>>;
}

/** A route with its types erased, as the app and the OpenAPI generator hold it. */
export interface Route {
  readonly method: RouteMethod;
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  readonly write: boolean;
  readonly inline: boolean;
  readonly params: z.ZodType | undefined;
  readonly query: z.ZodType | undefined;
  readonly body: z.ZodType | undefined;
  readonly response: z.ZodType;
  readonly handler: (input: ErasedInput) => Promise<unknown>;
}

/**
 * Declares a route; the handler's parameter and return types follow from the schemas.
 *
 * @example
 * ```ts
 * const stats = defineRoute({
 *   method: 'get', path: '/api/stats', summary: 'File statistics', tag: 'file', write: false,
 *   response: fileStatsSchema,
 *   handler: ({ db }) => db.stats(),
 * });
 * ```
 */
export function defineRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType = z.ZodType,
>(spec: RouteSpec<P, Q, B, R>): Route {
  return {
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    tag: spec.tag,
    write: spec.write,
    inline: spec.inline ?? false,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    response: spec.response,
    handler: spec.handler as Route['handler'],
  };
}

/** `/api/agents/{agent}` → `/api/agents/:agent` (Hono's syntax). */
export function honoPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** A route's key across threads: `'get /api/stats'`. */
export function routeKey(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}
