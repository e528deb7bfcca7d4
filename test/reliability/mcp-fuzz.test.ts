import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/harness.js';
import { createMcpServer } from '../../src/mcp/index.js';
import { fileDigest, tempFile } from '../helpers/temp.js';
import { openDemo } from '../http/demo-memory.js';
import { RawMcpChild } from '../mcp/raw-child.js';

// Seeded random tool calls against the MCP server: arguments drawn from each tool's input
// schema (right types, wrong types, missing and unknown fields, hostile strings). Set
// HEDGEHOP_FUZZ_SEED to replay a run, HEDGEHOP_FUZZ_CASES to change its size.
const SEED = Number(process.env.HEDGEHOP_FUZZ_SEED ?? 17_2026);
const CASES = Number(process.env.HEDGEHOP_FUZZ_CASES ?? 2000);
const WATCHDOG_MS = 30_000;

const STRINGS = [
  ...['auth', 'infra', 'primary', 'memory', 'Ada', 'missing', 'refresh token', 'login', 'brief', 'full'],
  ...['', ' ', '0', '-1', 'null', '{}', '*', '?', '%', '"', '!!!', 'x'.repeat(5000), 'y'.repeat(200_000)],
  ...['\u001b[2J\u001b]52;c;ZXZpbA==\u0007', 'line\nbreak', '\u202eevil', '🦔 ünï', '\ud800', 'a\u0000b'],
  ...['2026-01-01T00:00:00Z', 'utterance', 'event', 'user', 'agent', 'created', 'modified', 'done'],
];
const NUMBERS = [0, 1, 2, 3, -1, 0.5, 1e9, -1e9, Number.MAX_SAFE_INTEGER, 1e308, 4, 5];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Any JSON value, shallow: the "beyond the schema" half of the arguments. */
function anyValue(random: Random, depth = 0): Json {
  const roll = random();
  if (roll < 0.3) return pick(random, STRINGS);
  if (roll < 0.5) return pick(random, NUMBERS);
  if (roll < 0.6) return random() < 0.5;
  if (roll < 0.7) return null;
  if (depth > 2) return 'deep';
  if (roll < 0.85) return Array.from({ length: Math.floor(random() * 3) }, () => anyValue(random, depth + 1));
  return JSON.parse(
    `{${JSON.stringify(pick(random, ['a', 'path', 'name', '__proto__', 'constructor']))}:${JSON.stringify(anyValue(random, depth + 1))}}`,
  ) as Json;
}

interface JsonSchema {
  type?: string | string[];
  enum?: Json[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
}

/** A value for `schema`: usually of the right shape, sometimes anything at all. */
function valueFor(random: Random, schema: JsonSchema, depth = 0): Json {
  if (random() < 0.12) return anyValue(random);
  if (schema.enum && schema.enum.length > 0) return pick(random, schema.enum);
  if (schema.anyOf && schema.anyOf.length > 0) return valueFor(random, pick(random, schema.anyOf), depth);
  const type = Array.isArray(schema.type) ? pick(random, schema.type) : schema.type;
  switch (type) {
    case 'string':
      return pick(random, STRINGS);
    case 'number':
    case 'integer':
      return pick(random, NUMBERS);
    case 'boolean':
      return random() < 0.5;
    case 'array':
      return depth > 2
        ? []
        : Array.from({ length: Math.floor(random() * 4) }, () =>
            valueFor(random, schema.items ?? {}, depth + 1),
          );
    case 'object':
      return depth > 2 ? {} : argumentsFor(random, schema, depth + 1);
    default:
      return anyValue(random);
  }
}

/** Arguments for a tool: required fields mostly present, optional ones sometimes, extras rarely. */
function argumentsFor(random: Random, schema: JsonSchema, depth = 0): { [key: string]: Json } {
  const args: { [key: string]: Json } = {};
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (random() < (required.has(name) ? 0.93 : 0.4)) args[name] = valueFor(random, property, depth);
  }
  // (defineProperty, as JSON.parse does: an own `__proto__` key, not a new prototype.)
  if (random() < 0.08) {
    Object.defineProperty(args, pick(random, ['extra', 'lineid', '__proto__']), {
      value: anyValue(random),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return args;
}

/** A failure the model can act on: a typed hedgehop code, or the SDK's input validation. */
const TYPED_FAILURE =
  /^(INVALID_INPUT|NOT_FOUND|CONFLICT|LOCKED|BUSY|CLOSED|CORRUPT|VERSION|READ_ONLY|LLM_FAILED|IO): |^MCP error -32602: /;

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withWatchdog<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const watchdog = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`watchdog: ${what} ran over ${WATCHDOG_MS} ms`)), WATCHDOG_MS);
  });
  return Promise.race([promise, watchdog]).finally(() => clearTimeout(timer));
}

describe(`MCP fuzzing (seed ${SEED}, ${CASES} tool calls)`, () => {
  it('every call answers with a result or a typed error, and a refused call changes nothing', async () => {
    const path = tempFile();
    const db = await openDemo(path);
    const internal: unknown[] = [];
    const server = createMcpServer(db, { onInternalError: (error) => internal.push(error) });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'fuzz', version: '1.0.0' });
    await client.connect(clientSide);
    const tools: Tool[] = (await client.listTools()).tools;
    expect(tools.length).toBeGreaterThanOrEqual(30);
    const random = seededRandom(SEED);
    const outcomes = { ok: 0, refused: 0 };
    let before = fileDigest(path);
    for (let i = 0; i < CASES; i++) {
      const tool = random() < 0.02 ? { name: 'no_such_tool', inputSchema: {} } : pick(random, tools);
      const args = random() < 0.03 ? anyValue(random) : argumentsFor(random, tool.inputSchema as JsonSchema);
      const label = `case ${i} ${tool.name} ${JSON.stringify(args).slice(0, 200)}`;
      const call = client.callTool({ name: tool.name, arguments: args as Record<string, unknown> });
      const answer = await withWatchdog(
        call.then(
          (value) => value as CallToolResult,
          (error: unknown) => error,
        ),
        label,
      );
      if (answer instanceof McpError) {
        // Arguments that are not an object are refused by the SDK's protocol layer itself.
        expect(isPlainObject(args), `${label}: ${answer.message}`).toBe(false);
        expect(fileDigest(path), `${label} changed the file`).toBe(before);
        outcomes.refused++;
        continue;
      }
      const result = answer as CallToolResult;
      expect(Array.isArray(result.content), label).toBe(true);
      if (result.isError) {
        outcomes.refused++;
        const text = (result.content[0] as { text?: string } | undefined)?.text ?? '';
        if (tool.name !== 'no_such_tool') expect(text, label).toMatch(TYPED_FAILURE);
        expect(fileDigest(path), `${label} changed the file`).toBe(before);
      } else {
        outcomes.ok++;
        // A task's recall-index rows are written just after its commit answers: settle them, so
        // the digest is of what the next (refused) call must leave unchanged.
        await db.catchUpIndex();
        before = fileDigest(path);
      }
      expect(internal, label).toEqual([]);
    }
    expect(outcomes.ok).toBeGreaterThan(CASES / 20);
    expect(outcomes.refused).toBeGreaterThan(CASES / 20);
    expect((await db.check()).ok).toBe(true);
    await client.close();
    await server.close();
    await db.close();
  });

  it('the stdio server answers every request among random lines, bytes and oversized messages', async () => {
    const path = tempFile();
    const child = new RawMcpChild(['--file', path, '--max-message-bytes', String(256 * 1024)]);
    await child.initialize();
    const random = seededRandom(SEED + 2);
    const junk = [
      'not json',
      '{',
      '[]',
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"1.0","id":5,"method":"ping"}',
      '{"id":true,"method":7}',
      `{"jsonrpc":"2.0","method":"notifications/unknown"}`,
      'z'.repeat(300 * 1024),
    ];
    for (let i = 0; i < 200; i++) {
      if (random() < 0.5) {
        const line =
          random() < 0.8
            ? Buffer.from(pick(random, junk))
            : Buffer.from(
                Array.from({ length: 1 + Math.floor(random() * 64) }, () =>
                  Math.floor(random() * 256),
                ).filter((b) => b !== 0x0a),
              );
        child.process.stdin.write(Buffer.concat([line, Buffer.from('\n')]));
      }
      const answer = await withWatchdog(
        child.request('tools/call', {
          name: 'memory_lines',
          arguments: random() < 0.5 ? {} : { junk: anyValue(random) },
        }),
        `stdio case ${i}`,
      );
      expect(answer.result ?? answer.error, `stdio case ${i}`).toBeDefined();
    }
    child.process.stdin.end();
    expect((await child.exited).code).toBe(0);
  });
});
