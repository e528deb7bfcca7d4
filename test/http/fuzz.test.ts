import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/create-http-app.js';
import { fileDigest, tempFile } from '../helpers/temp.js';
import { openDemo } from './demo-memory.js';

const LIMIT = 64 * 1024;

/** Route templates of the API, with `{}` where a path segment goes. */
const TEMPLATES = [
  '/api/agents/{}/radial',
  '/api/agents/{}/lines',
  '/api/agents/primary/lines/{}',
  '/api/agents/primary/lines/{}/history',
  '/api/agents/primary/lines/auth/nodes/{}',
  '/api/agents/primary/lines/{}/nodes/1/context',
  '/api/agents/primary/nodes/{}/full',
  '/api/agents/{}/scenes',
  '/api/agents/primary/scenes/{}',
  '/api/agents/primary/turns/{}',
  '/api/agents/{}/archive',
  '/api/agents/{}/recall',
  '/api/agents/{}/navigate',
  '/api/agents/{}/turn',
  '/api/agents/primary/turn/{}',
  '/api/agents/{}/engram',
  '/api/agents/{}/dreams',
  '/api/agents/{}/dream',
  '/api/knowledge/{}',
  '/api/{}',
  '/{}',
  '/assets/{}',
];

/** Path segments that try to escape or confuse routing. */
const TRICKS = [
  '..',
  '%2e%2e',
  '..%2F..%2Fetc%2Fpasswd',
  '%2F',
  'a%2Fb',
  '%00',
  'primary%00',
  '%',
  '%E0%A4%A',
  '%ZZ',
  '....//',
  '%5c..%5c',
  'x'.repeat(5000),
  '%C0%AE%C0%AE',
  '\u202e',
  '0',
  '-1',
  '1e9999',
  'NaN',
];

const segment = fc.oneof(
  fc.constantFrom(...TRICKS),
  fc.string({ maxLength: 40 }).map(encodeURIComponent),
  fc.stringMatching(/^[a-z0-9._~-]{1,20}$/),
);

const queryString = fc.option(
  fc.dictionary(
    fc.constantFrom('level', 'limit', 'q', 'text', 'kind', 'from', 'x', '__proto__'),
    fc.string({ maxLength: 30 }),
    {
      maxKeys: 3,
    },
  ),
  { nil: undefined },
);

/** Bodies that must never be accepted: malformed JSON, wrong types, unknown fields, oversized. */
const badBody = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    'nul',
    '[1,2',
    '{"id": "x",}',
    '\u0000',
    '{"__proto__": {"x": 1}}',
    '"\ud800"',
  ),
  fc
    .oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.jsonValue(), { maxLength: 3 }))
    .map((v) => JSON.stringify(v)),
  fc
    .dictionary(
      fc.string({ minLength: 1, maxLength: 8 }).map((k) => `zz_${k}`),
      fc.jsonValue({ maxDepth: 2 }),
      {
        minKeys: 1,
        maxKeys: 4,
      },
    )
    .map((v) => JSON.stringify(v)),
  fc.integer({ min: LIMIT + 1, max: LIMIT * 3 }).map((n) => `{"query":"${'a'.repeat(n)}"}`),
);

const request = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
  template: fc.constantFrom(...TEMPLATES),
  segment,
  query: queryString,
  body: badBody,
  contentType: fc.constantFrom(
    'application/json',
    'text/plain',
    undefined,
    'application/json; charset=utf-8',
  ),
});

function url(template: string, segment: string, query: Record<string, string> | undefined): string {
  const path = template.replace('{}', segment);
  if (!query) return path;
  return `${path}?${Object.entries(query)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&')}`;
}

describe('HTTP fuzz', () => {
  it('answers malformed requests with a clean 4xx and never changes the file', async () => {
    const path = tempFile();
    const db = await openDemo(path);
    const app = createHttpApp(db, { webRoot: false, bodyLimitBytes: LIMIT });
    const before = fileDigest(path);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.contentType) headers['content-type'] = r.contentType;
        const init: RequestInit = { method: r.method, headers };
        if (r.method !== 'GET') init.body = r.body;
        const response = await app.request(url(r.template, r.segment, r.query), init);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        // Reads of well-formed paths may succeed; nothing may fail on the server side.
        expect(response.status, `${r.method} ${r.template} ${r.segment}`).toBeLessThan(500);
        if (r.method !== 'GET') expect(response.status).toBeGreaterThanOrEqual(400);
        if (response.status >= 400) {
          const body = (await response.json()) as { error?: { code?: string; message?: string } };
          expect(typeof body.error?.code).toBe('string');
          expect(typeof body.error?.message).toBe('string');
        }
      }),
      { seed: 20260109, numRuns: 600 },
    );
    expect(fileDigest(path)).toBe(before);
    await expect(db.check()).resolves.toMatchObject({ ok: true });
    expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
    await db.close();
  });

  it('rejects each classic trick with the expected status', async () => {
    const path = tempFile();
    const db = await openDemo(path);
    const app = createHttpApp(db, { webRoot: false, bodyLimitBytes: LIMIT });
    const before = fileDigest(path);
    const json = (body: string, type = 'application/json'): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': type },
      body,
    });
    const cases: [string, RequestInit | undefined, number][] = [
      ['/api/agents/..%2F..%2Fetc%2Fpasswd/lines', undefined, 404],
      ['/api/../../etc/passwd', undefined, 404],
      ['/%2e%2e/%2e%2e/etc/passwd', undefined, 404],
      ['/assets/..%2F..%2Fpackage.json', undefined, 404],
      ['/api/agents/pri%00mary/lines', undefined, 404],
      ['/api/agents/primary/lines/%2e%2e/history', undefined, 404],
      ['/api/agents/primary/lines/auth/nodes/1%2F..', undefined, 400],
      ['/api/agents/primary/lines/auth/nodes/1/context?level=%00', undefined, 400],
      ['/api/agents/primary/lines', json('{"id":'), 400],
      ['/api/agents/primary/lines', json('{"id":"ok"}', 'text/plain'), 415],
      ['/api/agents/primary/lines', json(`{"id":"${'x'.repeat(LIMIT)}"}`), 413],
      ['/api/agents/primary/lines', json('{"id":["auth"]}'), 400],
      ['/api/agents/primary/lines', json('{"id":"x","__proto__":{"admin":true}}'), 400],
      ['/api/agents/primary/recall', json('{"query":"x","budgetTokens":"10"}'), 400],
      ['/api/knowledge/import', json('{"graph":"g","nodes":[{"title":" "}]}'), 400],
    ];
    for (const [target, init, status] of cases) {
      const response = await app.request(target, init);
      expect(response.status, target).toBe(status);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBeTypeOf('string');
    }
    expect(fileDigest(path)).toBe(before);
    await db.close();
  });
});
