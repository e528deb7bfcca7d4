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
export function getProfile(context: MemoryContext): Profile {
  return context.store.engine.read('getProfile', () =>
    context.store.conversation.profiles.get(context.agentId),
  );
}

/**
 * Merges `update` into the agent's profile (validated before anything is written) and returns
 * the stored result. The profile's recall-index row is rewritten in the same transaction.
 */
export function updateProfile(context: MemoryContext, update: unknown): Profile {
  const parsed = parseInput(profilePatchSchema, update, 'updateProfile');
  const merged = context.store.conversation.profiles.merge(
    context.agentId,
    toPatch(parsed),
    context.clock.now(),
  );
  return merged.profile;
}

/**
 * Writes `profile` only when the agent has none yet (`openMemory(path, { profile })`: the file is
 * the source of truth once it holds a profile). Returns whether it wrote.
 */
export function seedProfile(context: MemoryContext, profile: unknown, what = 'options.profile'): boolean {
  const parsed = parseInput(profilePatchSchema, profile, what);
  const preferences = parsed.preferences ?? {};
  for (const [key, value] of Object.entries(preferences)) {
    if (value === null) delete preferences[key];
  }
  return context.store.conversation.profiles.merge(context.agentId, toPatch(parsed), context.clock.now(), {
    onlyIfAbsent: true,
  }).changed;
}
