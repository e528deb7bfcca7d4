import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HedgehopError } from '../core/errors.js';
import { existingFile, writableTarget } from './file-arguments.js';

/** The typed error `fn` throws (fails the test when it throws anything else, or nothing). */
function typedError(fn: () => unknown): HedgehopError {
  try {
    fn();
  } catch (error) {
    if (HedgehopError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a HedgehopError');
}

describe('file arguments', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hedgehop-args-'));
  const file = join(dir, 'a.txt');
  writeFileSync(file, 'x');

  it('accepts an existing file and a new path in an existing folder', () => {
    expect(existingFile(file, 'file')).toBe(file);
    expect(writableTarget(join(dir, 'new.jsonl'), '--out')).toBe(join(dir, 'new.jsonl'));
  });

  it('types every refusal, including paths the system cannot look at', () => {
    expect(typedError(() => existingFile(join(dir, 'missing'), 'file')).code).toBe('NOT_FOUND');
    expect(typedError(() => existingFile(dir, 'file'))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'file',
    });
    const tooLong = join(dir, 'x'.repeat(5000));
    expect(typedError(() => existingFile(tooLong, 'file'))).toMatchObject({
      code: 'INVALID_INPUT',
      field: 'file',
    });
    expect(typedError(() => writableTarget(join(tooLong, 'out.jsonl'), '--out'))).toMatchObject({
      code: 'INVALID_INPUT',
      field: '--out',
    });
    expect(typedError(() => existingFile(join(file, 'inside'), 'file')).code).toMatch(
      /INVALID_INPUT|NOT_FOUND/,
    );
  });
});
