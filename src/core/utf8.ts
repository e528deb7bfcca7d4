import { isUtf8 } from 'node:buffer';
import { HedgehopError } from './errors.js';

/**
 * Offset of the first byte that does not start (or continue) a well-formed UTF-8 sequence,
 * or -1 when all of `bytes` is valid UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF, no sequence cut short).
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    const [length, low, high] =
      b >= 0xc2 && b <= 0xdf
        ? [2, 0x80, 0xbf]
        : b === 0xe0
          ? [3, 0xa0, 0xbf]
          : b === 0xed
            ? [3, 0x80, 0x9f]
            : b >= 0xe1 && b <= 0xef
              ? [3, 0x80, 0xbf]
              : b === 0xf0
                ? [4, 0x90, 0xbf]
                : b === 0xf4
                  ? [4, 0x80, 0x8f]
                  : b >= 0xf1 && b <= 0xf3
                    ? [4, 0x80, 0xbf]
                    : [0, 0, 0];
    if (length === 0) return i;
    for (let k = 1; k < length; k++) {
      const c = bytes[i + k];
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (c === undefined || c < min || c > max) return i;
    }
    i += length;
  }
  return -1;
}

/**
 * Decodes `bytes` as UTF-8, refusing anything that is not: `INVALID_INPUT` naming `what` and
 * the byte offset (plus `baseOffset`, for a piece of a larger input). Never substitutes U+FFFD.
 */
export function decodeUtf8(bytes: Uint8Array, what: string, baseOffset = 0): string {
  const offset = invalidUtf8Offset(bytes);
  if (offset >= 0) throw invalidUtf8(what, baseOffset + offset);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The `INVALID_INPUT` error for bytes that are not UTF-8 at `offset`. */
export function invalidUtf8(what: string, offset: number): HedgehopError {
  return new HedgehopError(
    'INVALID_INPUT',
    `${what}: not valid UTF-8 (first bad byte at offset ${offset}); nothing was written`,
    { field: what },
  );
}

/**
 * Where a string holds a lone surrogate (a JSON `"\ud800"`, say), which has no UTF-8 form and
 * would be stored as U+FFFD: the UTF-8 byte offset of it, or -1 for a well-formed string.
 */
export function loneSurrogateOffset(text: string): number {
  // With the `u` flag a paired surrogate is one code point, so only a lone one matches.
  const match = LONE_SURROGATE.exec(text);
  return match ? Buffer.byteLength(text.slice(0, match.index), 'utf8') : -1;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
