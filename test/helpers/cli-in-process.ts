import { PassThrough, Readable } from 'node:stream';
import { runCli } from '../../src/cli/program.js';

/** What one in-process CLI run printed and returned. */
export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A sink that collects what is written to it, as a piped (non-terminal) stream. */
function sink(): { stream: PassThrough & { isTTY?: boolean }; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/**
 * Runs the CLI's program in this process (the same `runCli` the binary calls), with piped
 * stdio and a clean environment. Much faster than a child process; commands that serve
 * (`mcp`, `serve`) or exit the process are for child-process tests.
 */
export async function runCliInProcess(
  args: readonly string[],
  options: { stdin?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  const out = sink();
  const err = sink();
  const stdin =
    options.stdin === undefined
      ? undefined
      : (Readable.from([Buffer.from(options.stdin)]) as Readable & { isTTY?: boolean });
  const status = await runCli(args, {
    stdout: out.stream,
    stderr: err.stream,
    env: { NO_COLOR: '1', ...options.env },
    ...(stdin === undefined ? {} : { stdin }),
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { status, stdout: out.text(), stderr: err.text() };
}
