import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeUtf8, invalidUtf8Offset, loneSurrogateOffset } from './utf8.js';

const bytes = (...values: number[]): Buffer => Buffer.from(values);

describe('invalidUtf8Offset', () => {
  it('finds the first bad byte of each kind of malformed sequence', () => {
    expect(invalidUtf8Offset(Buffer.from('bad \xff\xfe bytes', 'latin1'))).toBe(4);
    expect(invalidUtf8Offset(bytes(0x61, 0xc3, 0x28))).toBe(1); // continuation missing
    expect(invalidUtf8Offset(bytes(0xc0, 0xaf))).toBe(0); // overlong '/'
    expect(invalidUtf8Offset(bytes(0xe0, 0x80, 0xaf))).toBe(0); // overlong three-byte form
    expect(invalidUtf8Offset(bytes(0x41, 0xed, 0xa0, 0x80))).toBe(1); // encoded surrogate U+D800
    expect(invalidUtf8Offset(bytes(0xf4, 0x90, 0x80, 0x80))).toBe(0); // above U+10FFFF
    expect(invalidUtf8Offset(bytes(0x41, 0x42, 0xe2, 0x82))).toBe(2); // cut short at the end
    expect(invalidUtf8Offset(bytes(0x80))).toBe(0); // stray continuation byte
  });

  it('accepts every well-formed string, and agrees with Node on random bytes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(invalidUtf8Offset(Buffer.from(text, 'utf8'))).toBe(-1);
      }),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (random) => {
        const offset = invalidUtf8Offset(random);
        const valid = Buffer.from(random).equals(Buffer.from(Buffer.from(random).toString('utf8'), 'utf8'));
        expect(offset === -1).toBe(valid);
        if (offset >= 0) expect(invalidUtf8Offset(random.subarray(0, offset))).toBe(-1);
      }),
    );
  });
});

describe('decodeUtf8 and loneSurrogateOffset', () => {
  it('refuses with INVALID_INPUT naming the field and the offset in the whole input', () => {
    expect(() => decodeUtf8(bytes(0x61, 0xff), 'context', 100)).toThrow(
      /^context: not valid UTF-8 \(first bad byte at offset 101\)/,
    );
    expect(decodeUtf8(Buffer.from('ünï ✓', 'utf8'), 'context')).toBe('ünï ✓');
  });

  it('finds a lone surrogate by its UTF-8 byte offset and passes pairs', () => {
    expect(loneSurrogateOffset('ab\ud800c')).toBe(2);
    expect(loneSurrogateOffset('é\udc00')).toBe(2);
    expect(loneSurrogateOffset('🦔 ok')).toBe(-1);
  });
});
