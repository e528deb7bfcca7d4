import { createHash, timingSafeEqual } from 'node:crypto';

const PREFIX = /^Bearer +/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Checks `Authorization: Bearer <token>` headers against one secret in constant time.
 * Both sides are hashed first so `timingSafeEqual` compares equal-length buffers and the
 * time taken does not depend on where, or whether, the lengths differ.
 */
export class BearerToken {
  readonly #expected: Buffer;

  constructor(token: string) {
    this.#expected = digest(token);
  }

  /** True when `header` carries exactly the configured token. */
  accepts(header: string | undefined): boolean {
    const presented = header !== undefined && PREFIX.test(header) ? header.replace(PREFIX, '') : '';
    // Always compare, even for a missing header, so the two cases take the same time.
    const same = timingSafeEqual(digest(presented), this.#expected);
    return same && presented.length > 0;
  }
}
