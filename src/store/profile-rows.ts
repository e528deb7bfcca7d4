import type { Profile } from '../core/model/conversation.js';
import type { IndexDoc } from './index-repo.js';
import { profileIndexText } from '../core/index-text.js';

/**
 * A change to the host-owned profile fields. A field left out keeps its stored value; a
 * preference set to `null` is removed, others are added or replaced key by key.
 */
export interface ProfilePatch {
  readonly name?: string | undefined;
  readonly role?: string | undefined;
  readonly personality?: string | undefined;
  readonly preferences?: Readonly<Record<string, string | null>> | undefined;
}

/** Profile rows as stored and their mapping to the public {@link Profile} (engine-neutral: no SQL). */
export interface RawProfile {
  name: string;
  role: string;
  personality: string;
  preferences: string;
  emotion: string;
  mbti: string;
  updated_at: number;
}

const AXES = [
  ['i_e', 'I', 'E'],
  ['n_s', 'N', 'S'],
  ['t_f', 'T', 'F'],
  ['j_p', 'J', 'P'],
] as const;

type Axes = { i_e: number; n_s: number; t_f: number; j_p: number };

/** The four-letter type from the axes: `X` for an axis at 0, '' when all are 0 (never trusted from a model). */
export function mbtiType(axes: Axes): string {
  if (AXES.every(([key]) => axes[key] === 0)) return '';
  return AXES.map(([key, negative, positive]) =>
    axes[key] === 0 ? 'X' : axes[key] < 0 ? negative : positive,
  ).join('');
}

function parseObject(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function stringRecord(json: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(parseObject(json)))
    if (typeof value === 'string') out[key] = value;
  return out;
}

export function toProfile(row: RawProfile | undefined, primary: boolean): Profile {
  const emotion = parseObject(row?.emotion ?? '{}');
  const mbti = parseObject(row?.mbti ?? '{}');
  const axes = { i_e: num(mbti.i_e), n_s: num(mbti.n_s), t_f: num(mbti.t_f), j_p: num(mbti.j_p) };
  return {
    name: row?.name ?? '',
    role: row?.role ?? '',
    personality: row?.personality ?? '',
    preferences: stringRecord(row?.preferences ?? '{}'),
    emotion: {
      valence: num(emotion.valence),
      arousal: num(emotion.arousal),
      dominance: num(emotion.dominance),
    },
    mbti: { ...axes, type: mbtiType(axes) },
    agentType: primary ? 'primary' : 'sub',
    updatedAt: row?.updated_at ?? 0,
  };
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key] as string;
  return out;
}

/**
 * The stored fields after merging `patch` into `before` (preferences as their stored JSON, keys
 * sorted), and whether that changes nothing on a profile that `exists` already.
 */
export function mergedProfile(
  before: Profile,
  patch: ProfilePatch,
  exists: boolean,
): {
  next: { name: string; role: string; personality: string; preferences: string };
  unchanged: boolean;
} {
  const preferences: Record<string, string> = { ...before.preferences };
  for (const [key, value] of Object.entries(patch.preferences ?? {})) {
    if (value === null) delete preferences[key];
    else preferences[key] = value;
  }
  const next = {
    name: patch.name ?? before.name,
    role: patch.role ?? before.role,
    personality: patch.personality ?? before.personality,
    preferences: JSON.stringify(sortedRecord(preferences)),
  };
  const unchanged =
    exists &&
    next.name === before.name &&
    next.role === before.role &&
    next.personality === before.personality &&
    next.preferences === JSON.stringify(sortedRecord(before.preferences));
  return { next, unchanged };
}

/** The profile's recall-index row; `undefined` when it has no text (its row is removed). */
export function profileIndexDoc(agentId: number, profile: Profile): IndexDoc | undefined {
  const text = profileIndexText(profile);
  if (text.length === 0) return undefined;
  return { layer: 'profile', ref: String(agentId), agentId, createdAt: profile.updatedAt, text };
}
