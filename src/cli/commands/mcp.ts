import type { Command } from 'commander';
import { serveStdio } from '../../mcp/stdio-server.js';
import { wholeNumber, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import { terminalText, type CliIO } from '../output.js';

interface McpOptions {
  readonly graph?: string;
  readonly readOnly?: boolean;
  readonly maxMessageBytes?: string;
}

/** Sends console output to stderr while MCP owns stdout, so no stray line breaks the protocol. */
function consoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  return () => Object.assign(console, saved);
}

/** Aborts on SIGTERM or SIGINT (a client or service manager stopping the server). */
function stopOnSignals(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals): void => controller.abort(signal);
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    },
  };
}

/** `mcp`: an MCP server on stdio. */
export function registerMcp(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('mcp')
    .description(
      'serve the memory file to an MCP client over stdio (stdout carries only protocol; logs go to stderr)',
    )
    .option(
      '--graph <label>',
      'knowledge graph behind the memory-server tools (create_entities, …)',
      'memory',
    )
    .option('--read-only', 'open the file read-only and offer only tools that read')
    .option(
      '--max-message-bytes <n>',
      'largest MCP message read (default 64 MiB); a longer one gets an error answer and the server stays up',
    )
    .action((options: McpOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const readOnly = options.readOnly === true;
        const maxMessageBytes = wholeNumber('max-message-bytes', options.maxMessageBytes, 1024);
        const restoreConsole = consoleToStderr();
        const stop = stopOnSignals();
        const db = await ctx.open({ mode: 'shared', readOnly, create: !readOnly });
        try {
          // A read-only server cannot create the agent it is to serve: refuse now (NOT_FOUND,
          // exit 2) rather than start and fail every tool call.
          if (readOnly) await ctx.agent(db);
          const log = (line: string): void => void io.stderr.write(`${terminalText(line)}\n`);
          log(`hedgehop mcp: serving ${db.path} on stdio`);
          const { reason } = await serveStdio(db, {
            ...(ctx.agentName === undefined ? {} : { agent: ctx.agentName }),
            ...(options.graph === undefined ? {} : { graph: options.graph }),
            ...(io.stdin === undefined ? {} : { stdin: io.stdin }),
            stdout: io.stdout,
            readOnly,
            ...(maxMessageBytes === undefined ? {} : { maxMessageBytes }),
            log,
            signal: stop.signal,
          });
          log(`hedgehop mcp: stopped (${reason})`);
        } finally {
          stop.dispose();
          if (!db.closed) await db.close();
          restoreConsole();
        }
      }),
    );
}
