import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Throwaway PostgreSQL servers from the machine's PostgreSQL binaries (Debian's `postgresql`
 * package), for the tests (`npm run test:postgres`, fsync off) and for `bench --only postgres`
 * (the server's default durability: fsync on, synchronous commit, so commits cost what they
 * cost on a real server). One starter for both, in bench/ because the build compiles bench/
 * and not test/.
 */

/** A throwaway PostgreSQL server: its URL (a unix socket) and how to stop it. */
export interface PgServer {
  readonly url: string;
  readonly dir: string;
  readonly port: number;
  /** Stops the server (fast shutdown) and keeps its folder, for a restart. */
  stopServer(): void;
  /** Starts it again after {@link PgServer.stopServer}. */
  startServer(): void;
  /** Stops the server and removes its folder. */
  stop(): void;
}

/** The folder of Debian's (or any) PostgreSQL server binaries, newest version first; undefined if none. */
export function pgBinDir(): string | undefined {
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

/** A free TCP port on the loopback (the server itself listens only on its unix socket of that number). */
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

/**
 * Starts a fresh PostgreSQL server in a temporary folder: `initdb` (as the `postgres` user when
 * running as root, since initdb refuses root), trust authentication for the user `hedgehop`,
 * a unix socket in that folder and no TCP listener. `durable` keeps the server's default
 * durability (for measuring); otherwise fsync is off (for tests). The folder is removed when
 * the server cannot be started.
 */
export async function startPgServer(bin: string, options: { durable?: boolean } = {}): Promise<PgServer> {
  const durable = options.durable === true;
  const dir = mkdtempSync(join(tmpdir(), durable ? 'hedgehop-bench-pg-' : 'hedgehop-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const full = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, full, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  try {
    if (asRoot)
      chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), 0);
    const data = join(dir, 'data');
    run('initdb', [
      '-D',
      data,
      '-A',
      'trust',
      '-U',
      'hedgehop',
      '-E',
      'UTF8',
      '--locale=C',
      ...(durable ? [] : ['--no-sync']),
    ]);
    const port = await freePort();
    const settings = durable ? '-c max_connections=100' : '-c fsync=off -c max_connections=300';
    const serverOptions = `-k ${dir} -p ${port} -c listen_addresses='' ${settings}`;
    const startServer = (): void =>
      run('pg_ctl', ['-D', data, '-o', serverOptions, '-l', join(dir, 'log'), '-w', 'start']);
    const stopServer = (): void => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    startServer();
    return {
      url: `postgres://hedgehop@/postgres?host=${encodeURIComponent(dir)}&port=${port}`,
      dir,
      port,
      stopServer,
      startServer,
      stop: () => {
        try {
          run('pg_ctl', ['-D', data, '-m', durable ? 'fast' : 'immediate', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** A server to measure on: its URL (no `memory` parameter), what it is, and how to stop it. */
export interface BenchPgServer {
  readonly url: string;
  /** What it is, for the report's notes. */
  readonly description: string;
  stop(): void;
}

/**
 * The server `bench --only postgres` measures on: `HEDGEHOP_BENCH_PG_URL` when set, else a
 * durable throwaway server, else none, with the reason (one line).
 */
export async function benchPgServer(): Promise<BenchPgServer | string> {
  const given = process.env.HEDGEHOP_BENCH_PG_URL;
  if (given) return { url: given, description: 'the server of HEDGEHOP_BENCH_PG_URL', stop: () => undefined };
  const bin = pgBinDir();
  if (!bin || !existsSync(join(bin, 'initdb')))
    return 'no PostgreSQL: set HEDGEHOP_BENCH_PG_URL or install the postgresql package';
  try {
    const server = await startPgServer(bin, { durable: true });
    const version = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
    return {
      url: server.url,
      description: `a throwaway ${version} server (initdb defaults: fsync on, synchronous_commit on; unix socket)`,
      stop: () => server.stop(),
    };
  } catch (error) {
    return `no PostgreSQL: could not start a throwaway server (${(error as Error).message.split('\n')[0]})`;
  }
}
