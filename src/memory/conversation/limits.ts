/**
 * The limits of conversation memory (MemHop's, in bytes of UTF-8) and the zod pieces that
 * enforce them. Over-limit input is refused with `INVALID_INPUT` naming the limit; nothing is
 * ever truncated.
 */
import { z } from 'zod';

/** Every size limit of conversation memory. */
export const CONVERSATION_LIMITS = {
  /** An event's `eventType` plus `content` (MemHop: 4 KiB). */
  eventBytes: 4096,
  /** One utterance's content (MemHop: 64 KiB). */
  utteranceBytes: 65_536,
  /** Names: scene, topic, speaker, profile name, preference key. */
  nameBytes: 256,
  /** Profile role, personality and each preference value. */
  profileTextBytes: 4096,
  /** Preferences a profile may hold. */
  preferenceCount: 256,
  /** A plan step's title. */
  planTitleBytes: 4096,
  /** A plan step's summary. */
  planSummaryBytes: 65_536,
  /** Records in one `appendArchiveMany` call. */
  batchRecords: 10_000,
  /** Records one `searchArchive` may return. */
  searchLimit: 10_000,
} as const;

/** UTF-8 size of `text`. */
export const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The message of an over-limit refusal. */
export function overLimit(bytes: number, limit: number, what: string): string {
  return `${bytes} bytes is over the ${what} limit of ${limit} bytes (refused; hedgehop never truncates)`;
}

/** A string of at most `limit` UTF-8 bytes. */
export function boundedString(limit: number, what: string): z.ZodString {
  return z.string().check((ctx) => {
    const bytes = byteLength(ctx.value);
    if (bytes > limit)
      ctx.issues.push({ code: 'custom', message: overLimit(bytes, limit, what), input: ctx.value });
  });
}

/** A name: trimmed, not empty, at most 256 bytes. */
export const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .check((ctx) => {
    const bytes = byteLength(ctx.value);
    if (bytes > CONVERSATION_LIMITS.nameBytes) {
      ctx.issues.push({
        code: 'custom',
        message: overLimit(bytes, CONVERSATION_LIMITS.nameBytes, 'name'),
        input: ctx.value,
      });
    }
  });

/** Seconds since the epoch fall in this band for dates 2001..5138; refused as a unit mistake. */
const SECONDS_BAND: readonly [number, number] = [1e9, 1e11];
/** Values above this are microseconds (or nanoseconds), not milliseconds. */
const MICROSECONDS_FROM = 1e14;

/** A timestamp in milliseconds since the epoch; the seconds and microseconds bands are refused. */
export const timestampSchema = z
  .number({ error: 'must be a number of milliseconds since the epoch' })
  .int('must be a whole number of milliseconds since the epoch')
  .positive('must be a positive number of milliseconds since the epoch')
  .check((ctx) => {
    const value = ctx.value;
    if (value >= SECONDS_BAND[0] && value < SECONDS_BAND[1]) {
      ctx.issues.push({
        code: 'custom',
        message: `${value} looks like seconds since the epoch; timestamps are milliseconds (multiply by 1000)`,
        input: value,
      });
    } else if (value > MICROSECONDS_FROM) {
      ctx.issues.push({
        code: 'custom',
        message: `${value} looks like microseconds since the epoch; timestamps are milliseconds (divide by 1000)`,
        input: value,
      });
    }
  });

/** An id hedgehop issued (scene, topic, knowledge graph). */
export const idSchema = z.string().min(1, 'must not be empty').max(128, 'is not an id (too long)');

/** A positive 32-bit ordinal (slots, plan steps). */
export const ordinalSchema = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be 1 or more')
  .max(2 ** 31 - 1);
