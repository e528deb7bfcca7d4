import type { Profile } from '../core/model/conversation.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
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

interface RawProfile {
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

function toProfile(row: RawProfile | undefined, primary: boolean): Profile {
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

/** Profiles (one per agent) and their row in the recall index. */
export class ProfileRepo {
  readonly #engine: Engine;
  readonly #index: IndexRepo;

  constructor(engine: Engine, index: IndexRepo) {
    this.#engine = engine;
    this.#index = index;
  }

  /** The agent's profile; an empty profile when none was ever written. */
  get(agentId: number): Profile {
    const row = this.#engine
      .statement(
        'SELECT name, role, personality, preferences, emotion, mbti, updated_at FROM profiles WHERE agent_id = ?',
      )
      .pluck(false)
      .get(agentId) as RawProfile | undefined;
    return toProfile(row, this.#isPrimary(agentId));
  }

  /** True when the agent has a stored profile row. */
  exists(agentId: number): boolean {
    return (
      this.#engine.statement('SELECT 1 FROM profiles WHERE agent_id = ?').pluck(true).get(agentId) !==
      undefined
    );
  }

  /**
   * Merges `patch` into the stored profile in one transaction and re-indexes it. Writes nothing
   * (not even the time) when the patch changes nothing. With `onlyIfAbsent`, writes only when the
   * agent has no profile yet (seeding at open).
   */
  merge(
    agentId: number,
    patch: ProfilePatch,
    now: number,
    options: { onlyIfAbsent?: boolean } = {},
  ): { profile: Profile; changed: boolean } {
    return this.#engine.write('update profile', () => {
      const before = this.get(agentId);
      if (options.onlyIfAbsent && this.exists(agentId)) return { profile: before, changed: false };
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
        this.exists(agentId) &&
        next.name === before.name &&
        next.role === before.role &&
        next.personality === before.personality &&
        next.preferences === JSON.stringify(sortedRecord(before.preferences));
      if (unchanged) return { profile: before, changed: false };
      this.#engine
        .statement(
          `INSERT INTO profiles (agent_id, name, role, personality, preferences, updated_at)
           VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (agent_id) DO UPDATE SET name = excluded.name, role = excluded.role,
             personality = excluded.personality, preferences = excluded.preferences,
             updated_at = excluded.updated_at`,
        )
        .run(agentId, next.name, next.role, next.personality, next.preferences, now);
      const profile = this.get(agentId);
      this.#reindex(agentId, profile);
      return { profile, changed: true };
    });
  }

  #reindex(agentId: number, profile: Profile): void {
    const text = profileIndexText(profile);
    if (text.length === 0) {
      this.#index.remove('profile', String(agentId));
      return;
    }
    this.#index.upsert({
      layer: 'profile',
      ref: String(agentId),
      agentId,
      createdAt: profile.updatedAt,
      text,
    });
  }

  #isPrimary(agentId: number): boolean {
    return (
      this.#engine.statement('SELECT is_primary FROM agents WHERE id = ?').pluck(true).get(agentId) === 1
    );
  }
}
