import { HedgehopError } from '../../core/errors.js';

/** Where a PostgreSQL memory lives: the server to connect to and the memory's own schema. */
export interface PgTarget {
  /** The connection string handed to node-postgres (the URL without `memory=`). */
  readonly connectionString: string;
  /** The memory's name (`?memory=`, default `default`). */
  readonly memory: string;
  /** The PostgreSQL schema holding the memory's tables. */
  readonly schema: string;
  /** The URL for messages, with any password replaced by `***`. */
  readonly display: string;
  /**
   * `?query_timeout=<ms>`: how long one statement may go unanswered before its connection is
   * closed and the call fails with `IO` (0: never). Undefined when the URL does not say.
   */
  readonly queryTimeoutMs?: number;
  /**
   * `?prepared_statements=false`: every statement is sent unnamed, so nothing is prepared on a
   * server session. Needed behind a pooler in transaction mode (PgBouncer before 1.21, or
   * without `max_prepared_statements`), or a server whose connections share one session, where
   * a statement prepared through one client is unknown to, or already held by, another.
   * Default true (writes' statements are prepared once per connection).
   */
  readonly preparedStatements: boolean;
}

/** The longest `?query_timeout=` taken (one hour), in milliseconds. */
const MAX_QUERY_TIMEOUT_MS = 3_600_000;

/** The memory name a URL without `?memory=` means. */
export const DEFAULT_MEMORY = 'default';

/** Prefix of every memory's schema, so a memory never lands in (or clobbers) `public`. */
const SCHEMA_PREFIX = 'hedgehop_';

/** Lower-case, a letter first, at most 40 characters: a schema name that never needs quoting. */
const MEMORY_NAME = /^[a-z][a-z0-9_]{0,39}$/;

/** `user[:password]@` `host[:port]` `/database`, the URL's authority and path. */
const AUTHORITY =
  /^(?:(?<user>[^:@/]*)(?::(?<password>[^@/]*))?@)?(?<host>\[[^\]]*\]|[^:/]*)(?::(?<port>[^/]*))?(?:\/(?<database>.*))?$/;

/** True when `path` names a PostgreSQL memory (`postgres://…` or `postgresql://…`). */
export function isPgUrl(path: string): boolean {
  return /^postgres(ql)?:\/\//i.test(path);
}

function invalid(part: string, message: string): HedgehopError {
  return new HedgehopError('INVALID_INPUT', `path: ${part} ${message}`, { field: 'path' });
}

function checkPort(port: string | undefined | null, where: string): void {
  if (port === undefined || port === null || port === '') return;
  const value = Number(port);
  if (!/^\d+$/.test(port) || value < 1 || value > 65_535)
    throw invalid(`the port${where} '${port}'`, 'must be a whole number from 1 to 65535');
}

/**
 * Parses `postgres://user[:password]@host[:port]/database?memory=<name>` (also `postgresql://`;
 * a unix socket as `?host=/run/postgresql`). Throws `INVALID_INPUT` naming the part that is wrong.
 */
export function parsePgUrl(url: string): PgTarget {
  const match = /^(postgres(?:ql)?):\/\/([^?#]*)(?:\?([^#]*))?(#.*)?$/i.exec(url);
  if (!match) throw invalid(`'${redact(url)}'`, 'is not a postgres:// URL');
  if (match[4] !== undefined) throw invalid('the URL', 'must not have a #fragment');
  const authority = AUTHORITY.exec(match[2] ?? '');
  if (!authority?.groups)
    throw invalid(`the server part '${redact(match[2] ?? '')}'`, 'is not user@host:port/database');
  const { port, database } = authority.groups;
  checkPort(port, '');
  if (database !== undefined && (database.includes('/') || database.length > 63))
    throw invalid(`the database name '${database}'`, 'must be one name of at most 63 characters');
  const params = new URLSearchParams(match[3] ?? '');
  const memories = params.getAll('memory');
  if (memories.length > 1) throw invalid('?memory=', 'is given more than once');
  const memory = memories[0] ?? DEFAULT_MEMORY;
  if (!MEMORY_NAME.test(memory))
    throw invalid(
      `the memory name '${memory}'`,
      'must be 1 to 40 lower-case letters, digits or _, starting with a letter',
    );
  checkPort(params.get('port'), ' (?port=)');
  if (params.has('host') && !params.get('host'))
    throw invalid('?host=', 'must not be empty (a host name or a socket folder)');
  const queryTimeoutMs = parseQueryTimeout(params.getAll('query_timeout'));
  const preparedStatements = parseBoolean('prepared_statements', params.getAll('prepared_statements'), true);
  params.delete('memory');
  params.delete('query_timeout');
  params.delete('prepared_statements');
  const query = params.toString();
  const connectionString = `${match[1]}://${match[2] ?? ''}${query ? `?${query}` : ''}`;
  return {
    connectionString,
    memory,
    schema: `${SCHEMA_PREFIX}${memory}`,
    display: redact(url),
    preparedStatements,
    ...(queryTimeoutMs === undefined ? {} : { queryTimeoutMs }),
  };
}

/** `?query_timeout=` in milliseconds: a whole number from 0 (no timeout) to an hour, at most once. */
function parseQueryTimeout(values: readonly string[]): number | undefined {
  if (values.length > 1) throw invalid('?query_timeout=', 'is given more than once');
  const text = values[0];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > MAX_QUERY_TIMEOUT_MS)
    throw invalid(
      `?query_timeout= '${text}'`,
      `must be a whole number of milliseconds from 0 (none) to ${MAX_QUERY_TIMEOUT_MS}`,
    );
  return value;
}

/** A `?name=true|false` parameter given at most once; `fallback` when absent. */
function parseBoolean(name: string, values: readonly string[], fallback: boolean): boolean {
  if (values.length > 1) throw invalid(`?${name}=`, 'is given more than once');
  const text = values[0];
  if (text === undefined) return fallback;
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw invalid(`?${name}= '${text}'`, 'must be true or false');
}

/** The URL with its password (in the authority or `?password=`) replaced by `***`. */
export function redact(url: string): string {
  return url
    .replace(/^(postgres(?:ql)?:\/\/[^:@/?]*:)[^@/?]*@/i, '$1***@')
    .replace(/([?&]password=)[^&#]*/i, '$1***');
}
