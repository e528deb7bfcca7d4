import { describe, expect, it } from 'vitest';
import { HedgehopError } from '../../core/errors.js';
import { isPgUrl, parsePgUrl, redact } from './pg-url.js';

function refusal(url: string): HedgehopError {
  try {
    parsePgUrl(url);
  } catch (error) {
    if (HedgehopError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`accepted ${url}`);
}

describe('PostgreSQL URLs', () => {
  it('tells a server URL from a file path', () => {
    expect(isPgUrl('postgres://u@h/db')).toBe(true);
    expect(isPgUrl('postgresql://u@h/db')).toBe(true);
    expect(isPgUrl('POSTGRES://u@h/db')).toBe(true);
    expect(isPgUrl('memory.db')).toBe(false);
    expect(isPgUrl('./postgres://x')).toBe(false);
    expect(isPgUrl('mysql://u@h/db')).toBe(false);
  });

  it('reads the memory name (default `default`) and hands the rest to node-postgres', () => {
    const plain = parsePgUrl('postgres://alice@db.internal:5433/team');
    expect(plain).toMatchObject({
      memory: 'default',
      schema: 'hedgehop_default',
      connectionString: 'postgres://alice@db.internal:5433/team',
    });
    const named = parsePgUrl('postgresql://alice@db/team?sslmode=require&memory=fleet_2');
    expect(named.memory).toBe('fleet_2');
    expect(named.schema).toBe('hedgehop_fleet_2');
    expect(named.connectionString).toBe('postgresql://alice@db/team?sslmode=require');
  });

  it('takes a unix socket folder as ?host=', () => {
    const target = parsePgUrl('postgres://hedgehop@/postgres?host=%2Ftmp%2Fpg&port=55440&memory=a');
    expect(target.connectionString).toBe('postgres://hedgehop@/postgres?host=%2Ftmp%2Fpg&port=55440');
    expect(target.memory).toBe('a');
  });

  it('reads ?query_timeout= (milliseconds) for the engine and keeps it from node-postgres', () => {
    const target = parsePgUrl('postgres://u@h/db?query_timeout=2500&memory=a&sslmode=require');
    expect(target.queryTimeoutMs).toBe(2500);
    expect(target.connectionString).toBe('postgres://u@h/db?sslmode=require');
    expect(parsePgUrl('postgres://u@h/db?query_timeout=0').queryTimeoutMs).toBe(0);
    expect(parsePgUrl('postgres://u@h/db').queryTimeoutMs).toBeUndefined();
  });

  it('reads ?prepared_statements= (default true) for the engine and keeps it from node-postgres', () => {
    expect(parsePgUrl('postgres://u@h/db').preparedStatements).toBe(true);
    const off = parsePgUrl('postgres://u@h/db?prepared_statements=false&memory=a&sslmode=require');
    expect(off.preparedStatements).toBe(false);
    expect(off.connectionString).toBe('postgres://u@h/db?sslmode=require');
    expect(parsePgUrl('postgres://u@h/db?prepared_statements=true').preparedStatements).toBe(true);
  });

  it('hides a password in messages', () => {
    expect(parsePgUrl('postgres://u:s3cret@h/db').display).toBe('postgres://u:***@h/db');
    expect(redact('postgres://u@h/db?password=s3cret&memory=x')).toBe(
      'postgres://u@h/db?password=***&memory=x',
    );
    expect(refusal('postgres://u:s3cret@h:99999/db').message).not.toContain('s3cret');
  });

  it.each([
    ['postgres://u@h:99999/db', 'port'],
    ['postgres://u@h:abc/db', 'port'],
    ['postgres://u@h/db?port=0', 'port'],
    ['postgres://u@h/db?memory=Upper', 'memory name'],
    ['postgres://u@h/db?memory=', 'memory name'],
    ['postgres://u@h/db?memory=1abc', 'memory name'],
    ['postgres://u@h/db?memory=a;drop', 'memory name'],
    [`postgres://u@h/db?memory=${'m'.repeat(41)}`, 'memory name'],
    ['postgres://u@h/db?memory=a&memory=b', 'more than once'],
    ['postgres://u@h/a/b', 'database name'],
    ['postgres://u@h/db#x', 'fragment'],
    ['postgres://u@h/db?host=', 'host'],
    ['postgres://u@h/db?query_timeout=', 'query_timeout'],
    ['postgres://u@h/db?query_timeout=1.5', 'query_timeout'],
    ['postgres://u@h/db?query_timeout=-1', 'query_timeout'],
    ['postgres://u@h/db?query_timeout=3600001', 'query_timeout'],
    ['postgres://u@h/db?query_timeout=1&query_timeout=2', 'query_timeout'],
    ['postgres://u@h/db?prepared_statements=no', 'prepared_statements'],
    ['postgres://u@h/db?prepared_statements=', 'prepared_statements'],
    ['postgres://u@h/db?prepared_statements=false&prepared_statements=true', 'prepared_statements'],
  ])('refuses %s, naming the %s', (url, part) => {
    const error = refusal(url);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.field).toBe('path');
    expect(error.message).toContain(part);
  });
});
