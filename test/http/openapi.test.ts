import { validate, compileErrors } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/api/memory-db.js';
import { createHttpApp, type HttpAppOptions } from '../../src/http/create-http-app.js';
import type { OpenApiDocument } from '../../src/http/openapi.js';
import { tempFile } from '../helpers/temp.js';
import { openDemo } from './demo-memory.js';

const TOKEN = 'a-very-secret-token-123';
const mcp = async (): Promise<Response> => new Response(null, { status: 405 });

const auth = (options: HttpAppOptions): Record<string, string> =>
  options.token === undefined ? {} : { authorization: `Bearer ${options.token}` };

async function documentOf(db: MemoryDB, options: HttpAppOptions): Promise<OpenApiDocument> {
  const app = createHttpApp(db, { webRoot: false, ...options });
  const response = await app.request('/openapi.json', { headers: auth(options) });
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument;
}

const CONFIGURATIONS: readonly [string, HttpAppOptions][] = [
  ['the defaults', {}],
  ['watch, MCP, read-only and a token', { watch: true, mcp, readOnly: true, token: TOKEN }],
];

/** `/api/agents/:agent` → `/api/agents/{agent}`. */
const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('the OpenAPI document', () => {
  it.each(CONFIGURATIONS)('is valid OpenAPI 3.1 to a maintained validator (%s)', async (_name, options) => {
    const db = await openMemory(tempFile());
    const document = await documentOf(db, options);
    // The validator takes its own document type; ours is the JSON the server sent.
    const result = await validate(structuredClone(document) as unknown as Parameters<typeof validate>[0], {});
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
    await db.close();
  });

  it('recurses only where the data does (a plan step has steps), never through a bare reference', async () => {
    const db = await openMemory(tempFile());
    const { schemas } = (await documentOf(db, { watch: true, mcp })).components;
    const references = (value: unknown): string[] =>
      [...JSON.stringify(value).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/gu)].map(
        (m) => m[1] ?? '',
      );
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      references(schemas[from]).some(
        (next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))),
      );
    const recursive = Object.keys(schemas).filter((name) => reaches(name, name));
    expect(recursive).toEqual(['PlanNode']);
    // A component that is only a reference (the old `Error`, a reference to itself) describes
    // nothing, and a validator that dereferences it never ends.
    for (const [name, schema] of Object.entries(schemas))
      expect(Object.keys(schema), name).not.toEqual(['$ref']);
    expect(schemas.PlanNode).toMatchObject({ properties: { children: { type: 'array' } } });
    await db.close();
  });

  it('names every shared schema for a reader, and none refers to itself', async () => {
    const db = await openMemory(tempFile());
    const document = await documentOf(db, { watch: true, mcp });
    const { schemas } = document.components;
    expect(JSON.stringify(document)).not.toMatch(/__schema|#\/\$defs\//u);
    for (const [name, schema] of Object.entries(schemas)) {
      expect(name).toMatch(/^[A-Z][A-Za-z]+$/u);
      expect(schema.$ref, name).toBeUndefined();
    }
    expect(schemas.Error).toMatchObject({ type: 'object', required: ['error'] });
    await db.close();
  });

  it.each(CONFIGURATIONS)(
    'describes every route the app serves, and only those (%s)',
    async (_name, options) => {
      const db = await openMemory(tempFile());
      const app = createHttpApp(db, { webRoot: false, ...options });
      const document = await documentOf(db, options);
      const described = new Set(
        Object.entries(document.paths).flatMap(([path, operations]) =>
          Object.keys(operations).map((method) => `${method} ${path}`),
        ),
      );
      const served = new Set<string>();
      for (const route of app.routes) {
        if (route.path.includes('*')) continue; // middleware (auth, limits) and the UI's files
        const path = openApiPath(route.path);
        if (route.method === 'ALL') {
          // Middleware on one path, or a handler of every method (`/mcp`): which it is shows in
          // what a request gets (the app's own 404 names no route).
          const probe = await app.request(path, { method: 'POST', headers: auth(options) });
          if (probe.status === 404 && (await probe.text()).includes('no route for')) continue;
          const methods = [...described].filter((key) => key.endsWith(` ${path}`));
          expect(methods, path).not.toEqual([]);
          for (const key of methods) served.add(key);
          continue;
        }
        served.add(`${route.method.toLowerCase()} ${path}`);
      }
      expect([...served].filter((key) => !described.has(key))).toEqual([]);
      expect([...described].filter((key) => !served.has(key))).toEqual([]);
      expect(described.has('get /api/events')).toBe(true);
      await db.close();
    },
  );

  it('describes the answers the server gives: live responses validate against their schemas', async () => {
    const db = await openDemo(tempFile());
    const app = createHttpApp(db, { webRoot: false, watch: { intervalMs: 50 } });
    const document = (await (await app.request('/openapi.json')).json()) as OpenApiDocument;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: document.components });
    const schemaOf = (path: string, method: string, status: string): object => {
      const operation = document.paths[path]?.[method] as
        | { responses: Record<string, { content?: Record<string, { schema: object }> }> }
        | undefined;
      const schema = operation?.responses[status]?.content?.['application/json']?.schema;
      expect(schema, `${method} ${path} ${status}`).toBeDefined();
      // References point into the document's components (`#/components/…`), here held as `doc`.
      return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')) as object;
    };
    const lineId = 'auth';
    const fill = (path: string): string =>
      path
        .replace('{agent}', 'primary')
        .replace('{lineId}', lineId)
        .replace('{position}', '1')
        .replace('{graph}', 'architecture');
    let checked = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!('get' in operations) || path === '/api/events' || path === '/openapi.json') continue;
      if (/\{(nodeId|sceneId|topicId)\}/u.test(path)) continue; // ids the memory makes up
      const response = await app.request(fill(path) + (path === '/api/knowledge/search' ? '?q=vault' : ''));
      const status = String(response.status);
      const body: unknown = await response.json();
      const valid = ajv.validate(schemaOf(path, 'get', status), body);
      expect(valid, `GET ${fill(path)} → ${status}: ${ajv.errorsText()}`).toBe(true);
      if (status === '200') checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(15);
    // Errors too: a missing line and a bad body answer with the documented Error shape.
    for (const [path, init] of [
      ['/api/agents/primary/lines/nope', undefined],
      [
        '/api/agents/primary/recall',
        { method: 'POST', body: '{"query": 5}', headers: { 'content-type': 'application/json' } },
      ],
    ] as const) {
      const response = await app.request(path, init);
      expect(response.status).toBeGreaterThanOrEqual(400);
      const template =
        init === undefined ? '/api/agents/{agent}/lines/{lineId}' : '/api/agents/{agent}/recall';
      const method = init === undefined ? 'get' : 'post';
      expect(ajv.validate(schemaOf(template, method, String(response.status)), await response.json())).toBe(
        true,
      );
    }
    await db.close();
  });
});
