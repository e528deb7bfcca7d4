import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { HedgehopError } from '../core/errors.js';
import { openMemory, type MemoryDB } from '../api/memory-db.js';
import type { OpenOptions } from '../api/options.js';
import type { CliIO } from './output.js';
import { painter, printJson } from './output.js';
import { progressBar, type Progress } from './progress.js';

/** Options every command takes. */
export interface GlobalOptions {
  readonly file?: string;
  readonly json?: boolean;
  readonly busyTimeout?: string;
}

/** What a command handler gets: output, its options and a way to open the file. */
export class CommandContext {
  readonly io: CliIO;
  readonly json: boolean;
  readonly file: string;
  readonly #busyTimeoutMs: number | undefined;

  constructor(io: CliIO, options: GlobalOptions) {
    this.io = io;
    this.json = options.json === true;
    this.file = resolve(options.file ?? io.env.HEDGEHOP_FILE ?? 'memory.db');
    const timeout = options.busyTimeout === undefined ? undefined : Number(options.busyTimeout);
    if (timeout !== undefined && (!Number.isInteger(timeout) || timeout < 0)) {
      throw new HedgehopError('INVALID_INPUT', '--busy-timeout: must be a whole number of milliseconds', {
        field: 'busyTimeout',
      });
    }
    this.#busyTimeoutMs = timeout;
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
    if (!create && !existsSync(this.file)) {
      throw new HedgehopError('NOT_FOUND', `${this.file} does not exist (pass --file, or set HEDGEHOP_FILE)`);
    }
    const busy = this.#busyTimeoutMs === undefined ? {} : { busyTimeoutMs: this.#busyTimeoutMs };
    return openMemory(this.file, { ...busy, ...rest });
  }

  /** Opens, runs `fn`, and always closes. */
  async withMemory<T>(
    fn: (db: MemoryDB) => Promise<T>,
    options: OpenOptions & { create?: boolean } = {},
  ): Promise<T> {
    const db = await this.open(options);
    try {
      return await fn(db);
    } finally {
      if (!db.closed) await db.close();
    }
  }

  /** Prints `value` as JSON with `--json`, else the human text. */
  output(value: unknown, human: () => string): void {
    if (this.json) printJson(this.io, value);
    else this.io.stdout.write(`${human()}\n`);
  }

  /** A progress bar on stderr (silent with --json or when not a terminal). */
  progress(label: string): Progress {
    return progressBar(this.io, label, this.json);
  }

  get paint(): ReturnType<typeof painter> {
    return painter(this.io);
  }
}
