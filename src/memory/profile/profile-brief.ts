import { codePointLength, oneLine, truncateText } from '../../core/text.js';
import type { Profile } from '../../core/model/conversation.js';
import type { MemoryContext } from '../context.js';

/** Bounds of the brief, in code points (MemHop's). */
const BRIEF_LIMITS = {
  /** name, role and personality lines. */
  field: 160,
  preferenceKey: 160,
  preferenceValue: 120,
  preferences: 5,
} as const;

/** Options of {@link renderProfileBrief}. */
interface ProfileBriefOptions {
  /**
   * At most this many code points in all. Lines are kept in order (name, role, personality,
   * mbti, preferences, emotions) while they fit; the first that does not fit is cut to the
   * room left when the cut keeps at least {@link MIN_CUT_VALUE} code points of its value (never
   * a bare `emotions:`), and the rest are left out.
   */
  readonly maxChars?: number | undefined;
}

/** Least code points of a field's value worth showing when the field is cut to fit. */
export const MIN_CUT_VALUE = 16;

/**
 * How many code points of `field`'s value (what follows its `label: `) survive in `kept`, a cut
 * of it (ellipsis not counted); 0 or less when the cut keeps only the label, or less.
 */
export function keptValueLength(field: string, kept: string): number {
  const colon = field.indexOf(': ');
  const label = colon > 0 && colon <= 40 ? codePointLength(field.slice(0, colon + 2)) : 0;
  return codePointLength(kept.replace(/…$/u, '').trimEnd()) - label;
}

const fmt = (value: number): string => value.toFixed(2);

function briefLines(profile: Profile): string[] {
  const field = (label: string, value: string): string[] => {
    const text = oneLine(value);
    return text.length > 0 ? [`${label}: ${truncateText(text, BRIEF_LIMITS.field)}`] : [];
  };
  const lines = [
    ...field('name', profile.name),
    ...field('role', profile.role),
    ...field('personality', profile.personality),
  ];
  if (profile.mbti.type.length > 0) lines.push(`mbti: ${profile.mbti.type}`);
  const keys = Object.keys(profile.preferences).sort().slice(0, BRIEF_LIMITS.preferences);
  if (keys.length > 0) {
    const pairs = keys.map(
      (key) =>
        `${truncateText(oneLine(key), BRIEF_LIMITS.preferenceKey)}=${truncateText(
          oneLine(profile.preferences[key] ?? ''),
          BRIEF_LIMITS.preferenceValue,
        )}`,
    );
    lines.push(`preferences: ${pairs.join(', ')}`);
  }
  const { valence, arousal, dominance } = profile.emotion;
  if (valence !== 0 || arousal !== 0 || dominance !== 0) {
    lines.push(`emotions: valence=${fmt(valence)} arousal=${fmt(arousal)} dominance=${fmt(dominance)}`);
  }
  return lines;
}

/**
 * A short, deterministic text of who the agent is, for the top of the origin: up to six lines
 * (`name: …`, `role: …`, `personality: …`, `mbti: …`, `preferences: k=v, …`, `emotions: …`),
 * each only when it has something to say; '' for an empty profile. Without `maxChars` it is
 * never longer than 2,100 code points (MemHop's bound).
 *
 * @example
 * ```ts
 * renderProfileBrief(profile, { maxChars: 200 });
 * // 'name: Ada\nrole: release engineer\npreferences: editor=vim, tz=UTC'
 * ```
 */
export function renderProfileBrief(profile: Profile, options: ProfileBriefOptions = {}): string {
  const lines = briefLines(profile);
  const max = options.maxChars;
  if (max === undefined) return lines.join('\n');
  const kept: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = codePointLength(line) + (kept.length > 0 ? 1 : 0);
    if (used + cost <= max) {
      kept.push(line);
      used += cost;
      continue;
    }
    const room = max - used - (kept.length > 0 ? 1 : 0);
    const cut = room > 1 ? truncateText(line, room) : '';
    if (keptValueLength(line, cut) >= MIN_CUT_VALUE) kept.push(cut);
    break;
  }
  return kept.join('\n');
}

/** {@link renderProfileBrief} of the agent's stored profile. */
export async function profileBrief(
  context: MemoryContext,
  options: ProfileBriefOptions = {},
): Promise<string> {
  const profile = await context.store.read('profileBrief', (tx) =>
    tx.conversation.profiles.get(context.agentId),
  );
  return renderProfileBrief(profile, options);
}
