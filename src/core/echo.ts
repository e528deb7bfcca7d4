import { codePointLength, sliceCodePoints } from './text.js';

/** At most this many characters of a caller's input are quoted back in an error message. */
export const ECHO_CHARS = 200;

/** Control characters (C0, DEL, C1), lone surrogates, the replacement character and line separators. */
// eslint-disable-next-line no-control-regex -- these are the characters it escapes
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufffd]|\p{Cs}/gu;

/**
 * A caller's input made fit to quote in a message meant for people: at most `max` characters
 * (the rest replaced by `… (N characters)`), and every control character, lone surrogate or
 * undecodable byte (U+FFFD) written as a `\uXXXX` escape, so binary input never reaches a
 * terminal or a log raw.
 *
 * @example
 * ```ts
 * echo('a\u001b[31mb'); // 'a\\u001b[31mb'
 * ```
 */
export function echo(value: string, max = ECHO_CHARS): string {
  const length = codePointLength(value);
  const head = length <= max ? value : sliceCodePoints(value, max);
  const safe = head.replace(
    UNPRINTABLE,
    (char) => `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
  return length <= max ? safe : `${safe}… (${length} characters)`;
}

/** At most this many characters of an error message reach a person (any surface). */
const MESSAGE_CHARS = 1000;

/**
 * An error message as a surface shows it: one line, within {@link MESSAGE_CHARS}, with no raw
 * control character or undecodable byte, whatever input an inner layer quoted into it.
 */
export function displayMessage(message: string): string {
  return echo(message.replace(/[\t\n\r\v\f ]+/gu, ' ').trim(), MESSAGE_CHARS);
}
