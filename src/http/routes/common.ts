import { z } from 'zod';
import type { Agent } from '../../api/agent.js';
import type { MemoryDB } from '../../api/memory-db.js';
import { HedgehopError } from '../../core/errors.js';

/** An agent name in a path: the same rule `MemoryDB.agent` applies. */
export const agentNameSchema = z
  .string()
  .min(1, 'must not be empty')
  .refine((name) => Buffer.byteLength(name, 'utf8') <= 256, 'at most 256 bytes')
  .describe("agent name ('primary' for the primary agent)");

/** Path parameters of every per-agent route. */
export const agentParamsSchema = z.strictObject({ agent: agentNameSchema });

/** A whole number from a query string. */
export const queryInt = (min: number, max: number): z.ZodCoercedNumber =>
  z.coerce.number().int().min(min).max(max);

/**
 * A time from a query string: milliseconds since the epoch, or an ISO 8601 date-time (the API
 * checks and converts it).
 */
export const queryTime = (): z.ZodType<number | string, string> =>
  z
    .string()
    .min(1, 'must not be empty')
    .describe('milliseconds since the epoch, or an ISO 8601 date-time such as 2026-01-05T09:30:00Z')
    .transform((value) => (/^\d+$/u.test(value) ? Number(value) : value));

/**
 * The named agent, which must already exist: a GET never creates an agent (that would be a
 * write), so an unknown name is `NOT_FOUND` here rather than a new, empty agent.
 */
export async function existingAgent(db: MemoryDB, name: string): Promise<Agent> {
  const known = await db.agents();
  if (!known.some((agent) => agent.name === name)) {
    throw new HedgehopError('NOT_FOUND', `no agent named '${name}' in this file`);
  }
  return db.agent(name);
}
