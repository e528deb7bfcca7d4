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

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

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
      if (id.startsWith('__schema')) {
        // zod names a recursive part it was not given a name for `__schemaN`, numbered per
        // call, so two such parts would collide and the name means nothing to a reader.
        throw new Error(`openapi: an unnamed recursive schema (${id}); name it with .meta({ id })`);
      }
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
    responses[status] = { description, content: errorContent };
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

/** The data of each `hello` and `change` event of `/api/events`. */
const changeEventSchema = z
  .strictObject({
    dataVersion: z.number().int().describe("the file's data version; it changes when another process writes"),
  })
  .meta({ id: 'ChangeEvent' });

function eventsOperation(watching: boolean): Record<string, unknown> {
  return {
    summary: 'Server-sent events: `hello`, then `change` whenever another process writes the file',
    description: [
      'A text/event-stream. The first event is `hello`, then one `change` each time another process',
      'commits to the file; the data of both is a JSON ChangeEvent. A comment line is sent every 15 s',
      'so that proxies keep an idle stream open.',
      watching
        ? 'This server follows the file.'
        : 'This server was started without following the file: the stream answers 404 NOT_FOUND.',
    ].join(' '),
    tags: ['file'],
    operationId: 'getApiEvents',
    responses: {
      '200': {
        description: 'an event stream of `hello` and `change` events',
        content: {
          'text/event-stream': {
            schema: { type: 'string', description: 'events whose data is a JSON ChangeEvent' },
          },
        },
        'x-hedgehop-event-data': { $ref: '#/components/schemas/ChangeEvent' },
      },
      '401': { description: ERROR_STATUSES['401'], content: errorContent },
      '404': { description: 'NOT_FOUND: this server does not follow the file', content: errorContent },
    },
  };
}

function mcpOperations(): Record<string, unknown> {
  const jsonRpc = {
    'application/json': { schema: { type: 'object', description: 'a JSON-RPC 2.0 message' } },
  };
  const answer = (method: string, summary: string, responses: Record<string, unknown>) => ({
    summary,
    tags: ['mcp'],
    operationId: `${method}Mcp`,
    responses: { '401': { description: ERROR_STATUSES['401'], content: errorContent }, ...responses },
  });
  return {
    post: {
      ...answer(
        'post',
        'MCP streamable HTTP transport (JSON-RPC; see the Model Context Protocol specification)',
        {
          '200': { description: 'the JSON-RPC response', content: jsonRpc },
          '202': { description: 'a notification or response was accepted' },
          '400': { description: 'not a JSON-RPC message', content: jsonRpc },
        },
      ),
      requestBody: { required: true, content: jsonRpc },
    },
    get: answer('get', 'Not served: this MCP endpoint is stateless, so it opens no server-to-client stream', {
      '405': { description: 'method not allowed', content: jsonRpc },
    }),
    delete: answer('delete', 'Not served: this MCP endpoint is stateless, so there is no session to end', {
      '405': { description: 'method not allowed', content: jsonRpc },
    }),
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
  // The error body is named (`Error`), so converting it registers the component; what the call
  // returns is only a reference to it, never the component itself.
  collector.convert(errorBodySchema, 'output');
  collector.convert(changeEventSchema, 'output');
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operation(route, collector);
  }
  paths['/api/events'] = { get: eventsOperation(extras.watch) };
  paths['/openapi.json'] = {
    get: {
      summary: 'This document',
      tags: ['file'],
      operationId: 'getOpenApiDocument',
      responses: {
        '200': {
          description: 'the OpenAPI 3.1 document of this server',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
        '401': { description: ERROR_STATUSES['401'], content: errorContent },
      },
    },
  };
  if (extras.mcp) paths['/mcp'] = mcpOperations();
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
