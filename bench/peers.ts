/**
 * Peers, on this machine only (no network):
 *
 * 1. The MCP reference memory server (`@modelcontextprotocol/server-memory`, pinned in
 *    devDependencies) and hedgehop's drop-in (`hedgehop mcp`), each a child process driven over
 *    stdio by the MCP SDK client with the same tool calls: `create_entities` (10 entities per
 *    call), `create_relations` (10 per call), `search_nodes` (one word). Calls alternate between
 *    the two servers; latency per call at 1,000 and 10,000 entities (quick: 1,000).
 * 2. mem0's TypeScript open-source mode (`mem0ai/oss`), in a child process beside hedgehop with
 *    the same deterministic embedder (see bench/children/mem0-probe.ts): add and search latency
 *    at 1,000 and 10,000 memories (quick: 1,000).
 *
 * Ratios are hedgehop / peer: below 1 hedgehop is faster, above 1 the peer is.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { SyntheticCorpus } from './corpus.js';
import { ratioRows } from './floor.js';
import { median, tempDir, type BenchModule, type BenchOptions, type BenchRow } from './harness.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const MEM0_PROBE = fileURLToPath(new URL('./children/mem0-probe.js', import.meta.url));
const NOOP_SERVER = fileURLToPath(new URL('./children/noop-mcp-server.js', import.meta.url));

/** The reference server's entry point (its `bin`), from node_modules. */
export function referenceServerPath(): string {
  const require = createRequire(import.meta.url);
  return join(
    dirname(require.resolve('@modelcontextprotocol/server-memory/package.json')),
    'dist',
    'index.js',
  );
}

/** An MCP client over a stdio child process. */
export interface McpPeer {
  readonly name: string;
  call(tool: string, args: Record<string, unknown>): Promise<unknown>;
  /** CPU time (user + system) the server process has used so far, in ms; NaN where unknown. */
  cpuMs(): number;
  close(): Promise<void>;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU time of a process from /proc/<pid>/stat (Linux), in ms; NaN elsewhere. */
function processCpuMs(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** Starts `node <args>` as an MCP server on stdio and connects a client to it. */
export async function startMcpPeer(
  name: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<McpPeer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'hedgehop-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    name,
    async call(tool, args) {
      const result = await client.callTool({ name: tool, arguments: args });
      if (result.isError === true) throw new Error(`${name} ${tool}: ${JSON.stringify(result.content)}`);
      return result;
    },
    cpuMs: () => processCpuMs(transport.pid),
    close: () => client.close(),
  };
}

const TYPES = ['person', 'project', 'service', 'team', 'decision', 'incident', 'library', 'document'];
const RELATIONS = ['works_on', 'depends_on', 'owns', 'caused', 'mentions', 'replaces'];

/** The shared workload: entity batches, relation batches and one-word queries. */
class Workload {
  readonly #corpus = new SyntheticCorpus(31);
  readonly names: string[] = [];

  entities(count: number): { name: string; entityType: string; observations: string[] }[] {
    return Array.from({ length: count }, () => {
      const name = `${this.#corpus.word()} ${this.#corpus.word()} ${this.names.length}`;
      this.names.push(name);
      return {
        name,
        entityType: TYPES[this.names.length % TYPES.length] as string,
        observations: [this.#corpus.sentence(6, 14), this.#corpus.sentence(6, 14)],
      };
    });
  }

  /** Relations from the newest `count` entities to earlier ones. */
  relations(count: number): { from: string; to: string; relationType: string }[] {
    const n = this.names.length;
    return Array.from({ length: count }, (_, i) => {
      const from = this.names[n - 1 - (i % Math.min(n, count))] as string;
      const to = this.names[Math.floor(this.#corpus.word().length * 7919 * (i + 1)) % n] as string;
      return {
        from,
        to: to === from ? (this.names[0] as string) : to,
        relationType: RELATIONS[i % RELATIONS.length] as string,
      };
    });
  }

  /** One word of middling frequency (the reference server matches the whole query as a substring). */
  query(): string {
    return this.#corpus.query().split(' ')[0] as string;
  }
}

interface Timed {
  subject: number[];
  baseline: number[];
  /** The no-op tool's round trips, when a floor server took part. */
  floor: number[];
  /** Server CPU time per call (mean over the phase, ms): hedgehop, the reference, the floor. */
  cpu: { subject: number; baseline: number; floor: number };
}

async function timeCall(peer: McpPeer, tool: string, args: Record<string, unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await peer.call(tool, args);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Calls each server with the same arguments (the floor server, when given, calls its no-op
 * tool instead), the order rotating from call to call; subject = hedgehop.
 */
async function alternate(
  ours: McpPeer,
  reference: McpPeer,
  calls: readonly [string, Record<string, unknown>][],
  floor?: McpPeer,
): Promise<Timed> {
  const timed: Timed = { subject: [], baseline: [], floor: [], cpu: { subject: 0, baseline: 0, floor: 0 } };
  const lanes: { peer: McpPeer; out: number[]; noop: boolean }[] = [
    { peer: reference, out: timed.baseline, noop: false },
    { peer: ours, out: timed.subject, noop: false },
  ];
  if (floor) lanes.push({ peer: floor, out: timed.floor, noop: true });
  const cpuBefore = lanes.map((lane) => lane.peer.cpuMs());
  for (const [index, [tool, args]] of calls.entries()) {
    for (let k = 0; k < lanes.length; k++) {
      const lane = lanes[(index + k) % lanes.length] as (typeof lanes)[number];
      lane.out.push(await timeCall(lane.peer, lane.noop ? 'noop' : tool, lane.noop ? {} : args));
    }
  }
  const perCall = (i: number): number =>
    calls.length === 0
      ? Number.NaN
      : ((lanes[i]?.peer.cpuMs() ?? Number.NaN) - (cpuBefore[i] ?? 0)) / calls.length;
  timed.cpu = { baseline: perCall(0), subject: perCall(1), floor: floor ? perCall(2) : Number.NaN };
  return timed;
}

/** Server CPU time per call (mean over the phase), hedgehop against the reference server. */
function cpuRows(size: number, create: Timed, search: Timed): BenchRow[] {
  const note =
    'server process CPU (user + system, /proc/<pid>/stat) over the phase / calls; baseline: the reference server';
  return [
    ['create_entities (10)', create],
    ['search_nodes (one word)', search],
  ].map(([name, timed]) => {
    const { cpu } = timed as Timed;
    return {
      bench: 'peers',
      case: `MCP ${name as string} server CPU per call @${size} entities`,
      metric: 'mean',
      value: cpu.subject,
      unit: 'ms',
      baseline: cpu.baseline,
      ratio: cpu.subject / cpu.baseline,
      note: name === 'search_nodes (one word)' ? `${note}; no-op floor ${cpu.floor.toFixed(2)} ms` : note,
    };
  });
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** A RAM file system for the reference server's file, where this machine has one. */
const RAM_DIR = '/dev/shm';

/**
 * Where the reference server keeps its JSONL file: a folder of its own on a RAM file system
 * when there is one, else `dir`. It never fsyncs its writes, but on a disk file system
 * journalled in ordered mode (ext4's default) the journal commit that the next fsync of any
 * file makes (hedgehop's commit, the very next call) first writes them out: a 3 MB file
 * rewritten before each call (the reference's file at 10,000 entities) took hedgehop's
 * `create_entities` from 3.4 to 5.6 ms at 1,000 entities. On a RAM file system each server
 * pays for its own writes only; the reference's calls cost the same there (it writes to the
 * page cache either way).
 */
function referenceDir(dir: string, log: (line: string) => void): { dir: string; cleanup: () => void } {
  if (existsSync(RAM_DIR)) {
    try {
      const own = mkdtempSync(join(RAM_DIR, 'hedgehop-bench-reference-'));
      return { dir: own, cleanup: () => rmSync(own, { recursive: true, force: true }) };
    } catch {
      // Not writable: the shared folder below.
    }
  }
  log(`peers: no writable ${RAM_DIR}: the reference server's file shares hedgehop's file system`);
  return { dir, cleanup: () => undefined };
}

async function mcpPeers(
  options: BenchOptions,
  dir: string,
): Promise<{ rows: BenchRow[]; series: { name: string; unit: string; points: [number, number][] }[] }> {
  const sizes = options.quick ? [1_000] : [1_000, 10_000];
  const samples = options.quick ? 20 : 50;
  const referenceHome = referenceDir(dir, options.log);
  const reference = await startMcpPeer('reference', [referenceServerPath()], {
    MEMORY_FILE_PATH: join(referenceHome.dir, 'memory.jsonl'),
  });
  const ours = await startMcpPeer('hedgehop', [CLI, 'mcp', '--file', join(dir, 'memory.db')]);
  const floor = await startMcpPeer('no-op floor', [NOOP_SERVER]);
  const workload = new Workload();
  const rows: BenchRow[] = [];
  const chart = {
    oursCreate: { name: 'MCP create_entities ×10: hedgehop', unit: 'ms', points: [] as [number, number][] },
    refCreate: {
      name: 'MCP create_entities ×10: reference server',
      unit: 'ms',
      points: [] as [number, number][],
    },
    oursSearch: { name: 'MCP search_nodes: hedgehop', unit: 'ms', points: [] as [number, number][] },
    refSearch: { name: 'MCP search_nodes: reference server', unit: 'ms', points: [] as [number, number][] },
  };
  try {
    let held = 0;
    for (const size of sizes) {
      options.log(`peers: MCP servers, building ${size.toLocaleString('en')} entities`);
      const building: [string, Record<string, unknown>][] = [];
      const build = { subject: [] as number[], baseline: [] as number[] };
      while (held < size) {
        building.push(['create_entities', { entities: workload.entities(10) }]);
        building.push(['create_relations', { relations: workload.relations(10) }]);
        held += 10;
        if (building.length >= 100 || held >= size) {
          const part = await alternate(ours, reference, building.splice(0));
          build.subject.push(...part.subject);
          build.baseline.push(...part.baseline);
        }
      }
      const items = size * 2;
      rows.push({
        bench: 'peers',
        case: `MCP build to ${size} entities (+ ${size} relations), 10 per call`,
        metric: 'rate',
        value: items / (sum(build.subject) / 1000),
        unit: 'items/s',
        baseline: items / (sum(build.baseline) / 1000),
        ratio: sum(build.baseline) / sum(build.subject),
        note: 'ratio > 1: hedgehop is faster; baseline: @modelcontextprotocol/server-memory',
      });
      options.log(`peers: MCP latency per call at ${size.toLocaleString('en')} entities`);
      const creates = Array.from(
        { length: samples },
        () => ['create_entities', { entities: workload.entities(10) }] as [string, Record<string, unknown>],
      );
      const create = await alternate(ours, reference, creates);
      held += samples * 10;
      const relate = await alternate(
        ours,
        reference,
        Array.from(
          { length: samples },
          () =>
            ['create_relations', { relations: workload.relations(10) }] as [string, Record<string, unknown>],
        ),
      );
      const search = await alternate(
        ours,
        reference,
        Array.from(
          { length: samples },
          () => ['search_nodes', { query: workload.query() }] as [string, Record<string, unknown>],
        ),
        floor,
      );
      const note = 'baseline: the MCP reference memory server, same calls over stdio';
      rows.push(
        ...ratioRows('peers', `MCP create_entities (10) @${size} entities`, create, note),
        ...ratioRows('peers', `MCP create_relations (10) @${size} entities`, relate, note),
        ...ratioRows('peers', `MCP search_nodes (one word) @${size} entities`, search, note),
        ...cpuRows(size, create, search),
        {
          bench: 'peers',
          case: `MCP search_nodes of the reference server vs a no-op tool @${size} entities`,
          metric: 'median',
          value: median(search.baseline),
          unit: 'ms',
          baseline: median(search.floor),
          ratio: median(search.baseline) / median(search.floor),
          note: 'baseline: the SDK round trip floor (bench/children/noop-mcp-server.ts, same transport, calls rotated with the two servers); ratio = reference / floor',
        },
      );
      chart.oursCreate.points.push([size, median(create.subject)]);
      chart.refCreate.points.push([size, median(create.baseline)]);
      chart.oursSearch.points.push([size, median(search.subject)]);
      chart.refSearch.points.push([size, median(search.baseline)]);
    }
  } finally {
    await ours.close();
    await reference.close();
    await floor.close();
    referenceHome.cleanup();
  }
  return { rows, series: Object.values(chart) };
}

interface Mem0Point {
  readonly size: number;
  readonly add: { ours: [number, number]; theirs: [number, number] };
  readonly search: { ours: [number, number]; theirs: [number, number] };
  readonly buildSeconds: { ours: number; theirs: number };
  readonly meanHits: { ours: number; theirs: number };
}

function runMem0Probe(
  dir: string,
  sizes: readonly number[],
  samples: number,
  log: (line: string) => void,
): Promise<Mem0Point[]> {
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MEM0_PROBE, dir, JSON.stringify(sizes), String(samples)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      // No telemetry, and mem0's ~/.mem0 folder in the temporary folder.
      env: { ...process.env, MEM0_TELEMETRY: 'false', HOME: home, OPENAI_API_KEY: 'unused' },
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      for (const line of chunk.split('\n'))
        if (line.startsWith('mem0 probe:')) log(`peers: ${line.slice(12)}`);
    });
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out.trim()) as Mem0Point[]);
      else reject(new Error(`mem0 probe exited with ${code}: ${err.slice(-2000)}`));
    });
  });
}

async function mem0Peer(
  options: BenchOptions,
  dir: string,
): Promise<{ rows: BenchRow[]; series: { name: string; unit: string; points: [number, number][] }[] }> {
  const sizes = options.quick ? [1_000] : [1_000, 10_000];
  options.log(`peers: mem0 (oss, infer: false) beside hedgehop at ${sizes.join(', ')} memories`);
  const points = await runMem0Probe(join(dir, 'mem0'), sizes, options.quick ? 20 : 50, options.log);
  const rows: BenchRow[] = [];
  const note = 'baseline: mem0ai/oss, memory vector store + SQLite history, same hashing embedder';
  for (const p of points) {
    rows.push(
      {
        bench: 'peers',
        case: `mem0 add @${p.size} memories`,
        metric: 'median',
        value: p.add.ours[0],
        unit: 'ms',
        baseline: p.add.theirs[0],
        ratio: p.add.ours[0] / p.add.theirs[0],
        note: `${note}; hedgehop: appendArchive, durability full; mem0: add(text, { infer: false })`,
      },
      {
        bench: 'peers',
        case: `mem0 add @${p.size} memories`,
        metric: 'p99',
        value: p.add.ours[1],
        unit: 'ms',
        baseline: p.add.theirs[1],
        ratio: p.add.ours[1] / p.add.theirs[1],
      },
      {
        bench: 'peers',
        case: `mem0 search @${p.size} memories`,
        metric: 'median',
        value: p.search.ours[0],
        unit: 'ms',
        baseline: p.search.theirs[0],
        ratio: p.search.ours[0] / p.search.theirs[0],
        note: `hedgehop: recall (BM25 + vectors, limit 10), mean hits ${p.meanHits.ours.toFixed(1)}; mem0: search (topK 10), mean hits ${p.meanHits.theirs.toFixed(1)}`,
      },
      {
        bench: 'peers',
        case: `mem0 search @${p.size} memories`,
        metric: 'p99',
        value: p.search.ours[1],
        unit: 'ms',
        baseline: p.search.theirs[1],
        ratio: p.search.ours[1] / p.search.theirs[1],
      },
    );
  }
  return {
    rows,
    series: [
      {
        name: 'mem0 comparison add: hedgehop',
        unit: 'ms',
        points: points.map((p) => [p.size, p.add.ours[0]]),
      },
      { name: 'mem0 comparison add: mem0', unit: 'ms', points: points.map((p) => [p.size, p.add.theirs[0]]) },
      {
        name: 'mem0 comparison search: hedgehop',
        unit: 'ms',
        points: points.map((p) => [p.size, p.search.ours[0]]),
      },
      {
        name: 'mem0 comparison search: mem0',
        unit: 'ms',
        points: points.map((p) => [p.size, p.search.theirs[0]]),
      },
    ],
  };
}

/** The peers benchmark module. */
export const runPeers: BenchModule = async (options) => {
  const { dir, cleanup } = tempDir('hedgehop-bench-peers-');
  try {
    const mcp = await mcpPeers(options, dir);
    const mem0 = await mem0Peer(options, dir);
    return {
      name: 'peers',
      rows: [...mcp.rows, ...mem0.rows],
      series: [...mcp.series, ...mem0.series],
      notes: [
        "MCP: both servers are child processes driven over stdio by the MCP SDK client; calls alternate between them. hedgehop runs as `hedgehop mcp --file <file>` (durability full: every write fsynced); the reference server rewrites its whole JSONL file on each write (write to a temporary file, then rename; no fsync), kept on a RAM file system (/dev/shm) where there is one, so that hedgehop's fsyncs do not wait for its unsynced writes (ext4 in ordered mode writes them out in the journal commit of the next fsync of any file).",
        'mem0: `add(text, { userId, infer: false })` stores the text as a memory without an LLM (with `infer: true` each add is an LLM extraction call and needs a model server, so it is not measured); its `memory` vector store scans every vector of the user on each search. Both sides use the same 256-dimension feature-hashing embedder; telemetry is off (MEM0_TELEMETRY=false) and the LLM points at a closed loopback port.',
      ],
    };
  } finally {
    cleanup();
  }
};
