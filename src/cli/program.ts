import { Command, CommanderError } from 'commander';
import { registerBench } from './commands/bench.js';
import { registerDemo } from './commands/demo.js';
import { registerDream } from './commands/dream.js';
import { registerEval } from './commands/evaluate.js';
import { registerKnowledge } from './commands/knowledge.js';
import { registerMaintenance } from './commands/maintenance.js';
import { registerMcp } from './commands/mcp.js';
import { registerRadial } from './commands/radial.js';
import { registerRecall } from './commands/recall.js';
import { registerReindex } from './commands/reindex.js';
import { registerRecover } from './commands/recover.js';
import { registerTransfer } from './commands/transfer.js';
import { registerTurn } from './commands/turn.js';
import { registerServe } from './commands/serve.js';
import { packageVersion } from '../mcp/package-version.js';
import { EXIT, errorLine, exitCodeOf, terminalText, type CliIO } from './output.js';

/** Builds the `hedgehop` command tree. */
export function buildProgram(io: CliIO, setExit: (code: number) => void): Command {
  const program = new Command('hedgehop')
    .description('Long-term memory for AI agents in one embedded file')
    .option('-f, --file <path>', 'memory file (default: $HEDGEHOP_FILE or ./memory.db)')
    .option('--json', 'print one JSON document on stdout and nothing else')
    .option('--busy-timeout <ms>', 'how long a write waits for another process before BUSY')
    .option(
      '--agent <name>',
      'work on this agent of the file (default: the primary agent, or $HEDGEHOP_AGENT)',
    )
    .version(packageVersion(), '-V, --version', 'print the version of hedgehop')
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(terminalText(text)),
      writeErr: (text) => io.stderr.write(terminalText(text)),
    });
  const run = async (fn: () => Promise<void>): Promise<void> => {
    try {
      await fn();
    } catch (error) {
      io.stderr.write(`${errorLine(error)}\n`);
      setExit(exitCodeOf(error));
    }
  };
  registerDemo(program, io, run);
  registerRadial(program, io, run);
  registerRecall(program, io, run);
  registerTurn(program, io, run);
  registerKnowledge(program, io, run);
  registerDream(program, io, run);
  registerMaintenance(program, io, run);
  registerReindex(program, io, run);
  registerRecover(program, io, run);
  registerTransfer(program, io, run);
  registerEval(program, io, run);
  registerBench(program, io, run);
  registerMcp(program, io, run);
  registerServe(program, io, run);
  return program;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    io.stderr.write(`${errorLine(error)}\n`);
    return exitCodeOf(error);
  }
  return code;
}
