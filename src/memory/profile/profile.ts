import type { z } from 'zod';
import { parseInput } from '../../core/validate.js';
import { type Profile, profilePatchSchema } from '../../core/model/conversation.js';
import type { ProfilePatch } from '../../store/profile-repo.js';
import type { MemoryContext } from '../context.js';

function toPatch(parsed: z.output<typeof profilePatchSchema>): ProfilePatch {
  return {
    name: parsed.name,
    role: parsed.role,
    personality: parsed.personality,
    preferences: parsed.preferences,
  };
}

/** The agent's profile (an empty profile, not an error, when none was written). */
export function getProfile(context: MemoryContext): Promise<Profile> {
  return context.store.read('getProfile', (tx) => tx.conversation.profiles.get(context.agentId));
}

/**
 * Merges `update` into the agent's profile (validated before anything is written) and returns
 * the stored result. The profile's recall-index row is rewritten in the same transaction.
 */
export async function updateProfile(context: MemoryContext, update: unknown): Promise<Profile> {
  const parsed = parseInput(profilePatchSchema, update, 'updateProfile');
  const now = context.clock.now();
  const merged = await context.store.write('updateProfile', (tx) =>
    tx.conversation.profiles.merge(context.agentId, toPatch(parsed), now),
  );
  return merged.profile;
}

/**
 * Writes `profile` only when the agent has none yet (`openMemory(path, { profile })`: the file is
 * the source of truth once it holds a profile). Returns whether it wrote.
 */
export async function seedProfile(
  context: MemoryContext,
  profile: unknown,
  what = 'options.profile',
): Promise<boolean> {
  const parsed = parseInput(profilePatchSchema, profile, what);
  const preferences = parsed.preferences ?? {};
  for (const [key, value] of Object.entries(preferences)) {
    if (value === null) delete preferences[key];
  }
  const now = context.clock.now();
  const merged = await context.store.write('seedProfile', (tx) =>
    tx.conversation.profiles.merge(context.agentId, toPatch(parsed), now, { onlyIfAbsent: true }),
  );
  return merged.changed;
}
