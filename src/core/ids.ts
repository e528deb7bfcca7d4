import { randomBytes, randomUUID } from 'node:crypto';

/** A new random id with a short prefix naming its kind, e.g. `scn_3f9a0c1d2e4b5a69`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

/** A new RFC 4122 v4 UUID (radial nodes use these, as HedgehogMemory does). */
export function newUuid(): string {
  return randomUUID();
}
