import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ECHO_CHARS, echo } from './echo.js';

describe('echo', () => {
  it('keeps short printable text as it is', () => {
    expect(echo('refresh token 🦔 é')).toBe('refresh token 🦔 é');
  });

  it('writes control characters, DEL, C1, U+FFFD and lone surrogates as escapes', () => {
    expect(echo('a\u001b[31mb\u007f\u009b\ufffd\ud800\n')).toBe(
      'a\\u001b[31mb\\u007f\\u009b\\ufffd\\ud800\\u000a',
    );
  });

  it('cuts long input and says how long it was', () => {
    expect(echo('x'.repeat(5000))).toBe(`${'x'.repeat(ECHO_CHARS)}… (5000 characters)`);
  });

  it('never returns a control character, nor more than the limit plus its escapes and suffix', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        const out = echo(text);
        // eslint-disable-next-line no-control-regex -- these are the characters it escapes
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/u);
        expect(out.length).toBeLessThanOrEqual(ECHO_CHARS * 6 + 30);
      }),
    );
  });
});
