import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { errorBodySchema } from './error-response.js';
import type { Route } from './route.js';

type JsonSchema = Record<string, unknown>;

/** An OpenAPI 3.1 document (only the parts we fill in are typed). */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: { schemas: Record<string, JsonSchema>; securitySchemes: Record<string, unknown> };
  readonly security: readonly Record<string, readonly string[]>[];
}

const ERROR_STATUSES: Readonly<Record<string, string>> = {
  '400': 'INVALID_INPUT: a path, query or body field is wrong (the message names it)',
  '401': 'UNAUTHORIZED: missing or wrong bearer token',
  '403': 'READ_ONLY (the server refuses writes) or FORBIDDEN_HOST',
  '404': 'NOT_FOUND',
  '409': 'CONFLICT or LOCKED',
  '413': 'TOO_LARGE: the body is over the limit',
  '415': 'UNSUPPORTED_MEDIA_TYPE: send application/json',
  '500': 'CORRUPT, VERSION, IO or INTERNAL',
  '502': 'LLM_FAILED',
  '503': 'BUSY (retry; see Retry-After) or CLOSED',
};

/** The package version from its package.json, above this module in `src/` or `dist/src/`. */
function packageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const json = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (json.name === 'hedgehop' && typeof json.version === 'string') return json.version;
    } catch {
      // not at this level; try the next
    }
  }
  return '0.0.0';
}

/** Rewrites zod's local `#/$defs/X` references to document-level components. */
function relocate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(relocate);
  if (typeof value !== 'object' || value === null) return value;
  const out: JsonSchema = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')) {
      out[key] = `#/components/schemas/${inner.slice('#/$defs/'.length)}`;
    } else {
      out[key] = relocate(inner);
    }
  }
  return out;
}

/** Converts zod schemas, collecting named (`.meta({ id })`) parts as shared components. */
class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  convert(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const raw = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
    const { $schema: _ignored, $defs, ...rest } = raw;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, unknown>)) {
      const relocated = relocate(definition) as JsonSchema;
      const existing = this.components[id];
      if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(relocated)) {
        // A named schema whose input and output forms differ (defaults): keep the output form
        // under the name; inputs carrying it are rare and stay correct through `rest` below.
        continue;
      }
      this.components[id] = relocated;
    }
    return relocate(rest) as JsonSchema;
  }

  /** Path or query parameters from an object schema. */
  parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): unknown[] {
    if (schema === undefined) return [];
    const converted = this.convert(schema, 'input');
    const properties = (converted.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((converted.required ?? []) as string[]);
    return Object.entries(properties).map(([name, property]) => {
      const { description, ...rest } = property;
      return {
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      };
    });
  }
}

function errorResponses(route: Route): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, description] of Object.entries(ERROR_STATUSES)) {
    if (status === '415' && route.body === undefined) continue;
    if (status === '413' && route.body === undefined) continue;
    responses[status] = {
      description,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}

function operation(route: Route, collector: SchemaCollector): Record<string, unknown> {
  return {
    summary: route.summary,
    tags: [route.tag],
    operationId: `${route.method}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    ...(route.write ? { 'x-hedgehop-write': true } : {}),
    parameters: [
      ...collector.parameters(route.params, 'path'),
      ...collector.parameters(route.query, 'query'),
    ],
    ...(route.body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: collector.convert(route.body, 'input') } },
          },
        }),
    responses: {
      '200': {
        description: 'success',
        content: { 'application/json': { schema: collector.convert(route.response, 'output') } },
      },
      ...errorResponses(route),
    },
  };
}

/**
 * The OpenAPI 3.1 document of the API, generated from the same zod schemas that validate
 * each request and response.
 */
export function buildOpenApiDocument(
  routes: readonly Route[],
  extras: { readonly watch: boolean; readonly mcp: boolean },
): OpenApiDocument {
  const collector = new SchemaCollector();
  collector.components.Error = collector.convert(errorBodySchema, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route, collector);
  }
  if (extras.watch) {
    paths['/api/events'] = {
      get: {
        summary: "Server-sent events: 'change' with { dataVersion } whenever another process writes the file",
        tags: ['file'],
        operationId: 'getApiEvents',
        responses: { '200': { description: 'an event stream', content: { 'text/event-stream': {} } } },
      },
    };
  }
  if (extras.mcp) {
    paths['/mcp'] = {
      post: {
        summary: 'MCP streamable HTTP transport (JSON-RPC; see the Model Context Protocol specification)',
        tags: ['mcp'],
        operationId: 'postMcp',
        responses: { '200': { description: 'a JSON-RPC response or an event stream' } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'hedgehop',
      version: packageVersion(),
      description:
        'HTTP API over one hedgehop memory file. Errors are { error: { code, message, field? } } with the status mapped from the code.',
    },
    paths,
    components: {
      schemas: collector.components,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearer: [] }],
  };
}
