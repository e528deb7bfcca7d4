import { readFileSync } from 'node:fs';
import { invalidUtf8, invalidUtf8Offset } from '../core/utf8.js';
import type { HedgehopError } from '../core/errors.js';

/**
 * Node decodes the command line as UTF-8 with U+FFFD for bad bytes, so an argument's bytes
 * can only be checked from the kernel's copy: `/proc/self/cmdline` (Linux; elsewhere this
 * check is skipped). Returns `INVALID_INPUT` naming the first argument that is not UTF-8 and
 * the offset of its bad byte, or undefined.
 */
export function invalidArgument(argumentCount: number): HedgehopError | undefined {
  let raw: Buffer;
  try {
    raw = readFileSync('/proc/self/cmdline');
  } catch {
    return undefined;
  }
  const parts: Buffer[] = [];
  let start = 0;
  for (let end = raw.indexOf(0); end >= 0; end = raw.indexOf(0, start)) {
    parts.push(raw.subarray(start, end));
    start = end + 1;
  }
  const args = parts.slice(Math.max(0, parts.length - argumentCount));
  for (const [index, bytes] of args.entries()) {
    const offset = invalidUtf8Offset(bytes);
    if (offset < 0) continue;
    const option = index > 0 ? args[index - 1]!.toString('utf8') : '';
    const what = option.startsWith('-') ? `argument ${index + 1} (after ${option})` : `argument ${index + 1}`;
    return invalidUtf8(what, offset);
  }
  return undefined;
}
