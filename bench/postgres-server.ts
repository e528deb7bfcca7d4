/**
 * The PostgreSQL server `bench --only postgres` measures on: `HEDGEHOP_BENCH_PG_URL` when set,
 * else a throwaway server from the machine's PostgreSQL binaries (Debian's `postgresql`
 * package) with the server's default durability settings (fsync on, synchronous commit), so
 * commits cost what they cost on a real server; else none, with the reason.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A server to measure on: its URL (no `memory` parameter) and how to stop it. */
export interface BenchPgServer {
  readonly url: string;
  /** What it is, for the report's notes. */
  readonly description: string;
  stop(): void;
}

function binaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return join(root, versions[0], 'bin');
  }
  try {
    return execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The server to measure on, or why there is none (one line). */
export async function benchPgServer(): Promise<BenchPgServer | string> {
  const given = process.env.HEDGEHOP_BENCH_PG_URL;
  if (given) return { url: given, description: 'the server of HEDGEHOP_BENCH_PG_URL', stop: () => undefined };
  const bin = binaries();
  if (!bin || !existsSync(join(bin, 'initdb')))
    return 'no PostgreSQL: set HEDGEHOP_BENCH_PG_URL or install the postgresql package';
  const dir = mkdtempSync(join(tmpdir(), 'hedgehop-bench-pg-'));
  // initdb refuses to run as root: the server runs as the `postgres` user then.
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const full = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, full, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  const data = join(dir, 'data');
  try {
    if (asRoot)
      chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), 0);
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'hedgehop', '-E', 'UTF8', '--locale=C']);
    const port = await freePort();
    const options = `-k ${dir} -p ${port} -c listen_addresses='' -c max_connections=100`;
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
    const version = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
    return {
      url: `postgres://hedgehop@/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
      description: `a throwaway ${version} server (initdb defaults: fsync on, synchronous_commit on; unix socket)`,
      stop: () => {
        try {
          run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `no PostgreSQL: could not start a throwaway server (${(error as Error).message.split('\n')[0]})`;
  }
}
