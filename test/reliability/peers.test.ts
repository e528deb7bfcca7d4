/**
 * The MCP reference memory server (`@modelcontextprotocol/server-memory`) and hedgehop's drop-in
 * (`hedgehop mcp`) under the same faults, driven over stdio by the MCP SDK client:
 * - killed (SIGKILL) while `create_entities` calls are running: how many acknowledged entities
 *   a restarted server still has;
 * - two server processes sharing one file, each creating entities at the same time: how many
 *   acknowledged entities the file holds afterwards (the reference server rewrites its whole
 *   JSONL file on each write, so concurrent writers overwrite each other).
 * The figures for both are recorded side by side; only hedgehop's are asserted.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../bench/harness.js';
import { referenceServerPath } from '../../bench/peers.js';
import { DIST, recordFigure, requireBuild, scratch, sleep } from './helpers.js';

type Server = 'reference' | 'hedgehop';

interface Connection {
  readonly client: Client;
  readonly transport: StdioClientTransport;
}

async function connect(server: Server, dir: string): Promise<Connection> {
  const args =
    server === 'reference'
      ? [referenceServerPath()]
      : [join(DIST, 'src', 'cli', 'main.js'), 'mcp', '--file', join(dir, 'memory.db')];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'hedgehop-reliability', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function createEntity(connection: Connection, name: string): Promise<void> {
  const result = await connection.client.callTool({
    name: 'create_entities',
    arguments: { entities: [{ name, entityType: 'record', observations: [`observation of ${name}`] }] },
  });
  if (result.isError === true) throw new Error(`create_entities ${name}: ${JSON.stringify(result.content)}`);
}

/** Entity names a fresh server reads from the file, or why it cannot. */
async function readNames(server: Server, dir: string): Promise<Set<string> | string> {
  const connection = await connect(server, dir);
  try {
    const result = await connection.client.callTool({ name: 'read_graph', arguments: {} });
    if (result.isError === true) return JSON.stringify(result.content);
    const graph = result.structuredContent as { entities: { name: string }[] };
    return new Set(graph.entities.map((entity) => entity.name));
  } finally {
    await connection.client.close();
  }
}

async function killedMidWrite(
  server: Server,
  rounds: number,
): Promise<{ acknowledged: number; lost: number; unreadable: number }> {
  const dir = scratch();
  const random = seededRandom(server === 'reference' ? 11 : 12);
  const acked: string[] = [];
  let unreadable = 0;
  let lost = 0;
  for (let round = 0; round < rounds; round++) {
    const connection = await connect(server, dir);
    let stop = false;
    const writing = (async () => {
      for (let i = 0; !stop; i++) {
        const name = `${server}-r${round}-e${i}`;
        try {
          await createEntity(connection, name);
        } catch {
          return; // the server was killed mid-call: not acknowledged
        }
        acked.push(name);
      }
    })();
    await sleep(50 + Math.floor(random() * 300));
    process.kill(connection.transport.pid as number, 'SIGKILL');
    stop = true;
    await writing;
    await connection.client.close().catch(() => undefined);
    const names = await readNames(server, dir);
    if (typeof names === 'string') {
      unreadable++;
      lost = acked.length;
      break;
    }
    lost = acked.filter((name) => !names.has(name)).length;
  }
  return { acknowledged: acked.length, lost, unreadable };
}

async function twoProcessesOneFile(
  server: Server,
  callsEach: number,
): Promise<{ acknowledged: number; lost: number }> {
  const dir = scratch();
  const first = await connect(server, dir);
  const second = await connect(server, dir);
  const acked: string[] = [];
  const writer = async (connection: Connection, tag: string): Promise<void> => {
    for (let i = 0; i < callsEach; i++) {
      const name = `${server}-${tag}-${i}`;
      await createEntity(connection, name);
      acked.push(name);
    }
  };
  await Promise.all([writer(first, 'a'), writer(second, 'b')]);
  await first.client.close();
  await second.client.close();
  const names = await readNames(server, dir);
  if (typeof names === 'string') return { acknowledged: acked.length, lost: acked.length };
  return { acknowledged: acked.length, lost: acked.filter((name) => !names.has(name)).length };
}

describe('peers under the same faults', () => {
  beforeAll(() => requireBuild());

  it('a server SIGKILLed mid-write: what a restarted server still has', async () => {
    const ours = await killedMidWrite('hedgehop', 12);
    const reference = await killedMidWrite('reference', 12);
    recordFigure({ suite: 'peers', case: 'killed mid-write, 12 kills', hedgehop: ours, reference });
    expect(ours.lost).toBe(0);
    expect(ours.unreadable).toBe(0);
    expect(ours.acknowledged).toBeGreaterThan(12);
  }, 180_000);

  it('two server processes sharing one file: acknowledged entities the file keeps', async () => {
    const ours = await twoProcessesOneFile('hedgehop', 150);
    const reference = await twoProcessesOneFile('reference', 150);
    recordFigure({
      suite: 'peers',
      case: 'two processes, one file, 2 × 150 create_entities',
      hedgehop: ours,
      reference,
    });
    expect(ours.lost).toBe(0);
    expect(ours.acknowledged).toBe(300);
  }, 180_000);
});
