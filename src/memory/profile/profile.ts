import { z } from 'zod';
import { parseInput } from '../../core/validate.js';
import type { Profile } from '../../store/conversation-rows.js';
import type { ProfilePatch } from '../../store/profile-repo.js';
import type { MemoryContext } from '../context.js';
import { boundedString, CONVERSATION_LIMITS, nameSchema } from '../conversation/limits.js';

const profileText = boundedString(CONVERSATION_LIMITS.profileTextBytes, 'profile text');

/**
 * What `updateProfile` takes. Every field is optional and a field left out keeps its stored
 * value (MemHop overwrote the whole record, so a partial update lost the rest). An empty string
 * clears `role` or `personality`; a preference set to `null` is removed, the others are merged
 * key by key.
 */
export const profilePatchSchema = z.strictObject({
  name: nameSchema.optional(),
  role: profileText.optional(),
  personality: profileText.optional(),
  preferences: z
    .record(nameSchema, z.union([profileText, z.null()]))
    .check((ctx) => {
      const count = Object.keys(ctx.value).length;
      if (count > CONVERSATION_LIMITS.preferenceCount) {
        ctx.issues.push({
          code: 'custom',
          message: `${count} preferences is over the limit of ${CONVERSATION_LIMITS.preferenceCount} (refused)`,
          input: ctx.value,
        });
      }
    })
    .optional(),
});

/** A profile change: host-owned fields only; left-out fields keep their value. */
export type ProfileUpdate = z.input<typeof profilePatchSchema>;

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
