#!/usr/bin/env node
import { errorLine, exitCodeOf } from './output.js';
import { runCli } from './program.js';
import { invalidArgument } from './raw-arguments.js';

// A reader that stops early (`hedgehop export | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

const argv = process.argv.slice(2);
const badArgument = invalidArgument(argv.length);
if (badArgument) {
  process.stderr.write(`${errorLine(badArgument)}\n`);
  process.exitCode = exitCodeOf(badArgument);
} else {
  process.exitCode = await runCli(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdin: process.stdin,
  });
}
