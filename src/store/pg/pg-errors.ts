import { HedgehopError } from '../../core/errors.js';
import { isQueryTimeout } from './pg-connection.js';

interface PgLikeError {
  code?: unknown;
  message?: unknown;
}

/** Operating-system errors of a socket that is gone or never came up. */
const SOCKET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOENT',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** node-postgres' own words for a connection that ended under it. */
const ENDED =
  /Connection terminated|connection ended|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect/i;

/** SQLSTATEs meaning another transaction was in the way (safe to run again later). */
const BUSY_STATES: ReadonlySet<string> = new Set(['40001', '40P01', '55P03', '57014']);

/** SQLSTATEs meaning our fixed SQL names something the memory's schema does not have. */
const SCHEMA_STATES: ReadonlySet<string> = new Set(['42P01', '42703', '3F000', '42883', '42704']);

const codeOf = (error: unknown): string =>
  typeof (error as PgLikeError)?.code === 'string' ? ((error as { code: string }).code ?? '') : '';

/**
 * True when `error` means the connection to the server failed or was lost (refused, reset,
 * the server shutting down, too many connections). Such a failure is safe to retry only when
 * nothing could have been committed by it.
 */
export function isConnectionError(error: unknown): boolean {
  if (HedgehopError.isInstance(error)) return false;
  if (isQueryTimeout(error)) return true;
  const code = codeOf(error);
  if (SOCKET_CODES.has(code)) return true;
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300')
    return true;
  const message = error instanceof Error ? error.message : String(error);
  return code === '' && ENDED.test(message);
}

/** True for a serialization failure or deadlock: the transaction was rolled back whole. */
export function isSerializationFailure(error: unknown): boolean {
  const code = codeOf(error);
  return code === '40001' || code === '40P01';
}

/**
 * Maps an error thrown by node-postgres to a `HedgehopError`; passes hedgehop errors through.
 * `where` is the server, for messages (its password already hidden).
 */
export function wrapPgError(error: unknown, context: string, where: string): HedgehopError {
  if (HedgehopError.isInstance(error)) return error;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const text = `${context}: ${message}`;
  if (isQueryTimeout(error)) {
    return new HedgehopError(
      'IO',
      `${text} (PostgreSQL at ${where} stopped answering: a network partition or a stalled server; nothing of a write that failed this way before its COMMIT was committed, and it was not retried; raise ?query_timeout= in the URL if statements legitimately run longer)`,
      { cause: error },
    );
  }
  if (isConnectionError(error)) {
    return new HedgehopError(
      'IO',
      `${text} (cannot reach PostgreSQL at ${where}: check that the server is up and the URL's host, port and user; a write that failed this way was not retried)`,
      { cause: error },
    );
  }
  if (BUSY_STATES.has(code)) {
    return new HedgehopError(
      'BUSY',
      `${context}: the memory is busy (${message}); another transaction held the rows it needed, nothing of this call was committed, try it again`,
      { cause: error },
    );
  }
  if (SCHEMA_STATES.has(code)) {
    return new HedgehopError(
      'CORRUPT',
      `${text} (the memory's schema does not match the one this hedgehop writes; was a table dropped or altered by hand?)`,
      { cause: error },
    );
  }
  if (code === 'XX001' || code === 'XX002') return new HedgehopError('CORRUPT', text, { cause: error });
  if (code === '25006') return new HedgehopError('READ_ONLY', text, { cause: error });
  if (code.startsWith('23')) return new HedgehopError('CONFLICT', text, { cause: error });
  if (code === '22021' || code === '22P05') {
    return new HedgehopError(
      'INVALID_INPUT',
      `${text} (PostgreSQL text cannot hold a NUL character (\\u0000) or invalid UTF-8)`,
      { cause: error },
    );
  }
  if (code.startsWith('28') || code === '3D000') {
    return new HedgehopError('IO', `${text} (PostgreSQL at ${where} refused the login or database)`, {
      cause: error,
    });
  }
  return new HedgehopError('IO', text, { cause: error });
}
