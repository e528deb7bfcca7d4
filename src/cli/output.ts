import { randomUUID } from 'node:crypto';
import { styleText } from 'node:util';
import { escapeControlCharacters, escapeJsonControls } from '../core/control-characters.js';
import { displayMessage } from '../core/echo.js';
import { HedgehopError, messageNaming, type ErrorCode } from '../core/errors.js';
import { cliName } from './cli-name.js';
import { cliFieldName, cliRemedy } from './error-names.js';

/** Where a command writes, and how. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  /** Where `-` (and a piped context for `commit`) is read from; absent in embedded uses. */
  readonly stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** Exit codes, as documented in the README. */
export const EXIT = {
  ok: 0,
  usage: 1,
  notFound: 2,
  locked: 3,
  corrupt: 4,
  model: 5,
  other: 6,
} as const;

const EXIT_BY_CODE: Partial<Record<ErrorCode, number>> = {
  INVALID_INPUT: EXIT.usage,
  NOT_FOUND: EXIT.notFound,
  LOCKED: EXIT.locked,
  BUSY: EXIT.locked,
  CORRUPT: EXIT.corrupt,
  VERSION: EXIT.corrupt,
  LLM_FAILED: EXIT.model,
};

const HINTS: Partial<Record<ErrorCode, string>> = {
  INVALID_INPUT: 'see --help for the arguments this command takes',
  LOCKED: 'another process holds the file exclusively; close it or wait',
  BUSY: 'another writer held the file too long; retry, or raise --busy-timeout',
  CORRUPT: `run '${cliName()} check' and restore from a copy made with '${cliName()} compact'`,
  VERSION: 'upgrade hedgehop to open this file',
  LLM_FAILED: 'the verbatim record is kept; derived fields stay pending until a later pass',
  CLOSED: 'the file was closed before the command finished',
  READ_ONLY: 'the file is open read-only',
};

/** Exit code for an error. */
export function exitCodeOf(error: unknown): number {
  if (HedgehopError.isInstance(error)) return EXIT_BY_CODE[error.code] ?? EXIT.other;
  return EXIT.other;
}

/** One line for stderr: the code, the message and a hint. */
export function errorLine(error: unknown): string {
  if (HedgehopError.isInstance(error)) {
    // The remedy fits this error; the code's hint fits every error of its kind.
    const hint = cliRemedy(error.remedy) ?? HINTS[error.code];
    const message = messageNaming(error, cliFieldName(error));
    return terminalText(
      `hedgehop: ${error.code}: ${displayMessage(message)}${hint ? ` (hint: ${hint})` : ''}`,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return terminalText(`hedgehop: ERROR: ${displayMessage(message)}`);
}

/**
 * Stands for ESC in the painter's own styling until {@link terminalText} has escaped the text
 * around it: random per process, so stored text cannot spell it.
 */
const PAINT_ESC = `\u{E000}${randomUUID()}\u{E001}`;

/**
 * The one escaping step of the CLI's human output: every control character in the text (C0
 * but tab and line feed, DEL, C1, bidi controls) is shown as a visible `\uXXXX` escape, so
 * nothing stored in a file can drive the terminal; then the painter's colours are restored.
 */
export function terminalText(text: string): string {
  return escapeControlCharacters(text).replaceAll(PAINT_ESC, '\u001b');
}

/** Colours only when writing to a terminal (and NO_COLOR is unset). */
export function painter(io: CliIO): (style: Parameters<typeof styleText>[0], text: string) => string {
  const colour = io.stdout.isTTY === true && io.env.NO_COLOR === undefined;
  // The decision is made here, for io.stdout (which need not be process.stdout).
  return (style, text) =>
    colour ? styleText(style, text, { validateStream: false }).replaceAll('\u001b', PAINT_ESC) : text;
}

/**
 * Writes one JSON document to stdout, with DEL, C1 and bidi controls as `\uXXXX` escapes
 * (JSON.stringify leaves them raw; a terminal would act on them).
 */
export function printJson(io: CliIO, value: unknown): void {
  io.stdout.write(`${escapeJsonControls(JSON.stringify(value, null, 2))}\n`);
}
