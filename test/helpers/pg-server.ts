import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
 * a unix socket in that folder and no TCP listener.
 */
export async function startPgServer(bin: string): Promise<PgServer> {
  const dir = mkdtempSync(join(tmpdir(), 'hedgehop-pg-'));
  const asRoot = process.getuid?.() === 0;
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const full = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, full, { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir });
  };
  if (asRoot) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), 0);
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'hedgehop', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const options = `-k ${dir} -p ${port} -c listen_addresses='' -c fsync=off -c max_connections=300`;
  const startServer = (): void =>
    run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
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
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
