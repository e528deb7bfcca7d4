import { profileBrief as renderStoredProfileBrief } from '../profile/profile-brief.js';
import type { MemoryContext } from '../context.js';

/** Most code points of the profile brief the origin asks for (it is then cut to its token share). */
const ORIGIN_PROFILE_CHARS = 400;

/**
 * The profile brief at the top of the origin: the conversation layer's brief of the agent's
 * profile (name, role, personality, MBTI, preferences, emotions), one field per line (the origin
 * fits them whole, so none is left as a bare label); undefined for an empty profile.
 */
export async function profileBrief(context: MemoryContext): Promise<string | undefined> {
  const brief = await renderStoredProfileBrief(context, { maxChars: ORIGIN_PROFILE_CHARS });
  const line = brief
    .split('\n')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .join('\n');
  return line.length > 0 ? line : undefined;
}
