import type { Command } from 'commander';
import { DEFAULT_PORT, startServer } from '../../http/start-server.js';
import { createMcpHttpHandler } from '../../mcp/http-handler.js';
import { wholeNumber } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import { terminalText, type CliIO } from '../output.js';

interface ServeOptions {
  readonly host: string;
  readonly port: string;
  readonly token?: string;
  readonly readOnly?: boolean;
  readonly watch?: boolean;
  readonly cors?: string[];
  readonly bodyLimit?: string;
  readonly mcp: boolean;
  readonly readWorkers: string;
}

/**
 * Read workers of `hedgehop serve` by default: two, so one long read leaves a thread for the
 * next (each holds its own read connection; SQLite's WAL lets them read beside the writer).
 */
const DEFAULT_READ_WORKERS = 2;

/** Resolves when the process is asked to stop (Ctrl-C or a service manager's TERM). */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** `serve`: the HTTP API, the web UI and MCP over HTTP, until interrupted. */
export function registerServe(
  program: Command,
  io: CliIO,
  run: (fn: () => Promise<void>) => Promise<void>,
): void {
  program
    .command('serve')
    .description('serve the HTTP API, the web UI at / and MCP at /mcp (Ctrl-C to stop)')
    .option('--host <address>', 'address to bind; anything but loopback requires --token', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', String(DEFAULT_PORT))
    .option('--token <token>', 'bearer token required on every API and MCP request (or $HEDGEHOP_TOKEN)')
    .option('--read-only', 'open the file read-only and refuse every write with 403')
    .option('--watch', 'push a change event to the web UI whenever another process writes')
    .option('--cors <origins...>', 'browser origins allowed to call the API (CORS is off otherwise)')
    .option('--body-limit <bytes>', 'largest request body accepted (default 1048576)')
    .option('--no-mcp', 'do not mount MCP at /mcp')
    .option(
      '--read-workers <n>',
      'worker threads answering reads, so a long recall keeps no other request waiting (0: all on the event loop)',
      String(DEFAULT_READ_WORKERS),
    )
    .action((options: ServeOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const port = wholeNumber('port', options.port);
        const bodyLimitBytes = wholeNumber('body-limit', options.bodyLimit);
        const readWorkers = wholeNumber('read-workers', options.readWorkers) ?? DEFAULT_READ_WORKERS;
        const token = options.token ?? io.env.HEDGEHOP_TOKEN;
        const readOnly = options.readOnly === true;
        const db = await ctx.open({ mode: 'shared', readOnly });
        try {
          const onInternalError = (error: unknown): void => {
            io.stderr.write(`${terminalText(`hedgehop serve: internal error: ${String(error)}`)}\n`);
          };
          // The CLI is the one place that composes two adapters: MCP mounted on the HTTP app.
          const mcp = options.mcp
            ? createMcpHttpHandler(db, {
                readOnly,
                onInternalError,
                ...(ctx.agentName === undefined ? {} : { agent: ctx.agentName }),
              })
            : undefined;
          const server = await startServer(db, {
            host: options.host,
            ...(port === undefined ? {} : { port }),
            ...(token === undefined ? {} : { token }),
            ...(bodyLimitBytes === undefined ? {} : { bodyLimitBytes }),
            ...(options.cors === undefined ? {} : { cors: { origins: options.cors } }),
            ...(mcp === undefined ? {} : { mcp }),
            readOnly,
            watch: options.watch === true,
            onInternalError,
            readPool: {
              workers: readWorkers,
              file: ctx.file,
              ...(ctx.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: ctx.busyTimeoutMs }),
            },
          });
          const notes = [readOnly ? 'read-only' : '', options.watch ? 'watching' : '', token ? 'token' : '']
            .filter(Boolean)
            .join(', ');
          ctx.output(
            { url: server.url, readOnly, watch: options.watch === true, mcp: mcp !== undefined },
            () => `hedgehop serve: ${db.path} on ${server.url}${notes ? ` (${notes})` : ''}`,
          );
          await stopSignal();
          await server.close();
        } finally {
          if (!db.closed) await db.close();
        }
      }),
    );
}
