import { closeSync, existsSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { dumpLines, exportDump, importDump } from '../../api/dump.js';
import { exportHedgehog, importHedgehog } from '../../api/hedgehog.js';
import type { MemoryDB } from '../../api/memory-db.js';
import { exportMemoryServerJsonl, importMemoryServerJsonl } from '../../api/memory-server-graph.js';
import { escapeJsonControls } from '../../core/control-characters.js';
import { HedgehopError } from '../../core/errors.js';
import { decodeUtf8 } from '../../core/utf8.js';
import type { KnowledgeImportMode } from '../../core/model/knowledge.js';
import { defined, type RunCommand } from '../arguments.js';
import { CommandContext } from '../command-context.js';
import { existingFile, writableTarget } from '../file-arguments.js';
import type { CliIO } from '../output.js';
import { detectFormat, parseFormat, type TransferFormat } from './transfer-formats.js';

const CHUNK_BYTES = 1 << 20;

/**
 * The lines of a file, read in chunks so a large dump never sits in memory whole. Each line
 * must be UTF-8: `INVALID_INPUT` naming the byte offset in the file otherwise.
 */
function* fileLines(path: string): Generator<string> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let rest = Buffer.alloc(0);
    let restOffset = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      const bytes = Buffer.concat([rest, buffer.subarray(0, read)]);
      let start = 0;
      for (let end = bytes.indexOf(0x0a); end >= 0; end = bytes.indexOf(0x0a, start)) {
        yield decodeUtf8(bytes.subarray(start, end), `path (${path})`, restOffset + start);
        start = end + 1;
      }
      rest = Buffer.from(bytes.subarray(start));
      restOffset += start;
    }
    yield decodeUtf8(rest, `path (${path})`, restOffset);
  } finally {
    closeSync(fd);
  }
}

/** The first bytes of a file, enough to tell its format. */
function head(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

interface ImportCliOptions {
  readonly format?: string;
  readonly graph?: string;
  readonly mode?: string;
}

async function importDumpFile(ctx: CommandContext, path: string, text: string | undefined): Promise<object> {
  const progress = ctx.progress('import');
  const report = await ctx.creating(() =>
    importDump(ctx.file, text === undefined ? fileLines(resolve(path)) : dumpLines(text), {
      ...(ctx.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: ctx.busyTimeoutMs }),
      onProgress: (done, total) => progress.update(done, total),
    }),
  );
  progress.finish();
  return { format: 'jsonl', ...report };
}

async function importInto(
  ctx: CommandContext,
  format: Exclude<TransferFormat, 'jsonl'>,
  text: string,
  options: ImportCliOptions,
): Promise<object> {
  return ctx.withMemory(
    async (db) => {
      if (format === 'hedgehog')
        return { format, ...(await importHedgehog(await ctx.agent(db, { create: true }), text)) };
      const progress = ctx.progress('import');
      const report = await importMemoryServerJsonl(
        db,
        text,
        defined({
          graph: options.graph,
          mode: options.mode as KnowledgeImportMode | undefined,
          onProgress: (p: { done: number; total: number }) => progress.update(p.done, p.total),
        }),
      );
      progress.finish();
      return { format, ...report };
    },
    { create: true },
  );
}

function describeImport(report: Record<string, unknown>): string {
  switch (report.format) {
    case 'jsonl':
      return `imported ${String(report.rows)} rows in ${String(report.tables)} tables (${String(report.indexRows)} index rows rebuilt)`;
    case 'hedgehog':
      return `imported ${String(report.lines)} lines and ${String(report.nodes)} nodes (project "${String(report.projectName)}")`;
    default:
      return describeMemoryServerImport(report);
  }
}

/** How many of a thing, with the noun in the singular for one. */
function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** At most this many skipped relations are listed one by one in the human output. */
const LISTED_SKIPS = 10;

function describeMemoryServerImport(report: Record<string, unknown>): string {
  const created = (report.created as unknown[]).length;
  const skipped = (report.skippedRelations as string[] | undefined) ?? [];
  const lines = [
    `imported ${count(created, 'entity', 'entities')} and ${count(Number(report.edgesCreated), 'relation')} into graph ${String(report.graphId)}`,
  ];
  if (skipped.length > 0) {
    lines.push(
      `skipped ${count(skipped.length, 'relation')} naming an entity found neither in the file nor in the graph:`,
    );
    lines.push(...skipped.slice(0, LISTED_SKIPS).map((line) => `  ${line}`));
    if (skipped.length > LISTED_SKIPS)
      lines.push(`  … and ${skipped.length - LISTED_SKIPS} more (--json lists them all)`);
  }
  return lines.join('\n');
}

function registerImport(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('import')
    .description(
      'import a hedgehop JSONL dump (into a new file), a Hedgehog origin.json or a memory-server JSONL file',
    )
    .argument('<path>', 'the file to import, or - for stdin')
    .option('--format <format>', 'jsonl (our dump), hedgehog or memory-server (default: detected)')
    .option('--graph <label>', 'memory-server: the knowledge graph to fill (default "memory")')
    .option('--mode <mode>', 'memory-server: existing entities are merged, skipped or overwritten', 'merge')
    .action((path: string, options: ImportCliOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const file = path === '-' ? undefined : existingFile(path, '<path>');
        const text = file === undefined ? await ctx.readStdin('<path>') : undefined;
        const format =
          options.format === undefined
            ? detectFormat(text ?? head(file ?? path))
            : parseFormat(options.format);
        const report =
          format === 'jsonl'
            ? await importDumpFile(ctx, path, text)
            : await importInto(ctx, format, text ?? (await ctx.readText(path, '<path>')), options);
        ctx.output(report, () => describeImport(report as Record<string, unknown>));
      }),
    );
}

interface ExportCliOptions {
  readonly format: string;
  readonly out?: string;
  readonly force?: boolean;
  readonly graph?: string;
}

/** The system error code (`EACCES`, `ENOSPC` …) of a failed file operation, or its message. */
function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : String(error);
}

/** Where export text goes: a file written whole then renamed into place, or stdout. */
class ExportSink {
  readonly #target: string | undefined;
  readonly #temp: string | undefined;
  readonly #fd: number | undefined;
  readonly #collect: boolean;
  readonly #io: CliIO;
  #text = '';
  bytes = 0;

  constructor(io: CliIO, out: string | undefined, force: boolean, collect: boolean) {
    this.#io = io;
    this.#collect = collect;
    if (out === undefined) return;
    this.#target = writableTarget(out, '--out');
    if (existsSync(this.#target) && !force) {
      throw new HedgehopError('INVALID_INPUT', `--out: ${this.#target} exists (pass --force to replace it)`, {
        field: 'out',
      });
    }
    this.#temp = `${this.#target}.${process.pid}.tmp`;
    try {
      this.#fd = openSync(this.#temp, 'w');
    } catch (error) {
      throw new HedgehopError('IO', `--out: cannot write ${this.#target} (${errorCodeOf(error)})`, {
        cause: error,
      });
    }
  }

  get path(): string | undefined {
    return this.#target;
  }

  write(text: string): void {
    this.bytes += Buffer.byteLength(text);
    if (this.#fd !== undefined) writeSync(this.#fd, text);
    else if (this.#collect) this.#text += text;
    else this.#io.stdout.write(escapeJsonControls(text));
  }

  get text(): string {
    return this.#text;
  }

  finish(ok: boolean): void {
    if (this.#fd === undefined || this.#temp === undefined || this.#target === undefined) return;
    closeSync(this.#fd);
    if (ok) renameSync(this.#temp, this.#target);
    else rmSync(this.#temp, { force: true });
  }
}

async function exportTo(
  ctx: CommandContext,
  db: MemoryDB,
  format: TransferFormat,
  sink: ExportSink,
  graph?: string,
): Promise<object> {
  if (format === 'jsonl') {
    const progress = ctx.progress('export');
    const header = await exportDump(db, (line) => sink.write(line), {
      onProgress: (d, t) => progress.update(d, t),
    });
    progress.finish();
    return { rows: header.tables.reduce((sum, t) => sum + t.rows, 0), tables: header.tables.length };
  }
  if (format === 'hedgehog') {
    sink.write(await exportHedgehog(await ctx.agent(db)));
    return {};
  }
  sink.write(await exportMemoryServerJsonl(db, defined({ graph })));
  return { graph: graph ?? 'memory' };
}

function registerExport(program: Command, io: CliIO, run: RunCommand): void {
  program
    .command('export')
    .description(
      'export the whole file as our JSONL dump, the radial memory as Hedgehog origin.json, or a graph as memory-server JSONL',
    )
    .option('--format <format>', 'jsonl (whole file), hedgehog or memory-server', 'jsonl')
    .option('--out <path>', 'write to this file (default: stdout)')
    .option('--force', 'replace --out if it exists')
    .option('--graph <label>', 'memory-server: the graph to export (default "memory")')
    .action((options: ExportCliOptions, command: Command) =>
      run(async () => {
        const ctx = CommandContext.from(io, command);
        const format = parseFormat(options.format);
        const sink = new ExportSink(
          io,
          options.out,
          options.force === true,
          ctx.json && options.out === undefined,
        );
        let ok = false;
        try {
          const details = await ctx.withMemory((db) => exportTo(ctx, db, format, sink, options.graph));
          ok = true;
          if (sink.path === undefined && !ctx.json) return;
          const report = {
            format,
            ...details,
            bytes: sink.bytes,
            ...(sink.path === undefined ? { content: sink.text } : { path: sink.path }),
          };
          ctx.output(report, () => `exported ${format} (${sink.bytes} bytes) to ${sink.path ?? 'stdout'}`);
        } finally {
          sink.finish(ok);
        }
      }),
    );
}

/** `import` and `export`. */
export function registerTransfer(program: Command, io: CliIO, run: RunCommand): void {
  registerImport(program, io, run);
  registerExport(program, io, run);
}
