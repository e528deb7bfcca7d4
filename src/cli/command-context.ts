import { existsSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { HedgehopError } from '../core/errors.js';
import { decodeUtf8 } from '../core/utf8.js';
import type { Agent } from '../api/agent.js';
import { isServerUrl, memoryExists, openMemory, PRIMARY_AGENT, type MemoryDB } from '../api/memory-db.js';
import type { OpenOptions } from '../api/options.js';
import { type CliIO, painter, printJson, terminalText } from './output.js';
import { wholeNumber } from './arguments.js';
import { existingFile } from './file-arguments.js';
import { progressBar, type Progress } from './progress.js';

/** Options every command takes. */
export interface GlobalOptions {
  readonly file?: string;
  readonly json?: boolean;
  readonly busyTimeout?: string;
  readonly agent?: string;
}

/** What a command handler gets: output, its options and a way to open the file. */
export class CommandContext {
  readonly io: CliIO;
  readonly json: boolean;
  readonly file: string;
  /** The agent named by `--agent` (or `$HEDGEHOP_AGENT`); undefined for the primary agent. */
  readonly agentName: string | undefined;
  readonly #busyTimeoutMs: number | undefined;

  constructor(io: CliIO, options: GlobalOptions) {
    this.io = io;
    this.json = options.json === true;
    // An empty environment variable counts as unset.
    // A postgres:// URL names a memory on a server and is passed on as it is.
    const file = options.file ?? (io.env.HEDGEHOP_FILE || 'memory.db');
    this.file = isServerUrl(file) ? file : resolve(file);
    this.#busyTimeoutMs = wholeNumber('busy-timeout', options.busyTimeout);
    const agent = options.agent ?? (io.env.HEDGEHOP_AGENT || undefined);
    this.agentName = agent === undefined || agent === PRIMARY_AGENT ? undefined : agent;
  }

  /** The `--busy-timeout` given, if any. */
  get busyTimeoutMs(): number | undefined {
    return this.#busyTimeoutMs;
  }

  /** Builds the context from a commander action's command object. */
  static from(io: CliIO, command: Command): CommandContext {
    return new CommandContext(io, command.optsWithGlobals<GlobalOptions>());
  }

  /**
   * Opens the memory file. Unless `create` is set, a missing file is `NOT_FOUND` rather than
   * silently creating an empty memory.
   */
  async open(options: OpenOptions & { create?: boolean } = {}): Promise<MemoryDB> {
    const { create = false, ...rest } = options;
    if (!create && !(await memoryExists(this.file))) {
      throw new HedgehopError(
        'NOT_FOUND',
        `${this.file} does not exist (pass --file, or set HEDGEHOP_FILE)`,
        {
          remedy: 'check-path',
        },
      );
    }
    const busy = this.#busyTimeoutMs === undefined ? {} : { busyTimeoutMs: this.#busyTimeoutMs };
    return openMemory(this.file, { ...busy, ...rest });
  }

  /** Opens, runs `fn`, and always closes. */
  async withMemory<T>(
    fn: (db: MemoryDB) => Promise<T>,
    options: OpenOptions & { create?: boolean } = {},
  ): Promise<T> {
    const isNew = options.create === true && !isServerUrl(this.file) && !existsSync(this.file);
    const db = await this.open(options);
    try {
      return await fn(db);
    } catch (error) {
      if (!db.closed) await db.close();
      if (isNew) await discardIfEmpty(this.file);
      throw error;
    } finally {
      if (!db.closed) await db.close();
    }
  }

  /**
   * Runs `fn`, which may create the memory file itself (a dump import); when the file did not
   * exist before and `fn` fails, the empty file it left is removed.
   */
  async creating<T>(fn: () => Promise<T>): Promise<T> {
    const isNew = !isServerUrl(this.file) && !existsSync(this.file);
    try {
      return await fn();
    } catch (error) {
      if (isNew) await discardIfEmpty(this.file);
      throw error;
    }
  }

  /**
   * The agent the command works on: the primary agent, or the one named by `--agent`. A named
   * agent is created only when `create` is set (commands that write); reading an agent that does
   * not exist is `NOT_FOUND` rather than a silent new agent.
   */
  async agent(db: MemoryDB, options: { create?: boolean } = {}): Promise<Agent> {
    if (this.agentName === undefined) return db.primary();
    if (!options.create) {
      const known = (await db.agents()).some((agent) => agent.name === this.agentName);
      if (!known) {
        throw new HedgehopError('NOT_FOUND', `no agent named '${this.agentName}' in ${db.path}`, {
          remedy: 'list-agents',
        });
      }
    }
    return db.agent(this.agentName);
  }

  /** Reads a text argument given as a path, or `-` for standard input; it must be UTF-8. */
  async readText(source: string, what: string): Promise<string> {
    if (source === '-') return this.readStdin(what);
    const path = existingFile(source, what);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      throw new HedgehopError(
        'NOT_FOUND',
        `${what}: cannot read ${resolve(source)} (${(error as Error).message})`,
        {
          cause: error,
        },
      );
    }
    return decodeUtf8(bytes, `${what} (${resolve(source)})`);
  }

  /** True when standard input is piped (so a command may read its text from it). */
  get stdinPiped(): boolean {
    return this.io.stdin !== undefined && this.io.stdin.isTTY !== true;
  }

  /** All of standard input as UTF-8 text (`INVALID_INPUT` naming the byte offset if it is not). */
  async readStdin(what: string): Promise<string> {
    const stdin = this.io.stdin;
    if (!stdin)
      throw new HedgehopError('INVALID_INPUT', `${what}: no standard input to read`, { field: what });
    const chunks: Buffer[] = [];
    for await (const chunk of stdin)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return decodeUtf8(Buffer.concat(chunks), `${what} (standard input)`);
  }

  /** Prints `value` as JSON with `--json`, else the human text with control characters escaped. */
  output(value: unknown, human: () => string): void {
    if (this.json) printJson(this.io, value);
    else this.io.stdout.write(`${terminalText(human())}\n`);
  }

  /** A progress bar on stderr (silent with --json or when not a terminal). */
  progress(label: string): Progress {
    return progressBar(this.io, label, this.json);
  }

  get paint(): ReturnType<typeof painter> {
    return painter(this.io);
  }
}

/**
 * Removes a memory file a refused command created, with its companions, when it holds nothing:
 * it is opened exclusively first (so a file another process has begun to use is left alone) and
 * its row counts must all be zero.
 */
async function discardIfEmpty(path: string): Promise<void> {
  if (!existsSync(path)) return;
  let empty = false;
  try {
    const db = await openMemory(path, { mode: 'exclusive' });
    try {
      const stats = await db.stats();
      empty = stats.agents <= 1 && Object.values(stats.rows).every((count) => count === 0);
    } finally {
      await db.close();
    }
  } catch {
    return; // in use, damaged or not ours: leave it
  }
  if (!empty) return;
  for (const suffix of ['', '-wal', '-shm', '-journal', '-lock']) rmSync(`${path}${suffix}`, { force: true });
}
