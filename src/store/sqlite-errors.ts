import { HedgehopError } from '../core/errors.js';

interface SqliteLikeError {
  code?: unknown;
  message?: unknown;
}

/**
 * SQLite's words for a statement of ours naming something the file does not have. Our SQL is
 * fixed and user text never reaches it as syntax, so this means the file's schema is damaged.
 */
const SCHEMA_MISMATCH = /no such (table|column)|has no column named|malformed database schema/;

/** Maps an error thrown by SQLite to a `HedgehopError`; passes hedgehop errors through. */
export function wrapSqliteError(error: unknown, context: string): HedgehopError {
  if (HedgehopError.isInstance(error)) return error;
  const code = typeof (error as SqliteLikeError)?.code === 'string' ? (error as { code: string }).code : '';
  const message = error instanceof Error ? error.message : String(error);
  const text = `${context}: ${message}`;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new HedgehopError('BUSY', `${context}: the file is busy (another writer held it too long)`, {
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new HedgehopError('CORRUPT', text, { cause: error });
  }
  if (code === 'SQLITE_ERROR' && SCHEMA_MISMATCH.test(message)) {
    return new HedgehopError(
      'CORRUPT',
      `${text} (the file's schema does not match the one this hedgehop writes; its sqlite_master may be damaged)`,
      { cause: error },
    );
  }
  if (code.startsWith('SQLITE_READONLY')) return new HedgehopError('READ_ONLY', text, { cause: error });
  if (code.startsWith('SQLITE_CONSTRAINT')) return new HedgehopError('CONFLICT', text, { cause: error });
  if (
    code.startsWith('SQLITE_IOERR') ||
    code === 'SQLITE_FULL' ||
    code === 'SQLITE_CANTOPEN' ||
    code === 'SQLITE_PERM'
  ) {
    return new HedgehopError('IO', text, { cause: error });
  }
  return new HedgehopError('IO', text, { cause: error });
}

/** Runs `fn`, wrapping anything SQLite throws. */
export function guard<T>(context: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw wrapSqliteError(error, context);
  }
}
