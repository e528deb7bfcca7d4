import type { Profile } from '../core/model/conversation.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import {
  mergedProfile,
  profileIndexDoc,
  toProfile,
  type ProfilePatch,
  type RawProfile,
} from './profile-rows.js';

export { mbtiType, type ProfilePatch } from './profile-rows.js';

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
      const { next, unchanged } = mergedProfile(before, patch, this.exists(agentId));
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
    const doc = profileIndexDoc(agentId, profile);
    if (doc === undefined) this.#index.remove('profile', String(agentId));
    else this.#index.upsert(doc);
  }

  #isPrimary(agentId: number): boolean {
    return (
      this.#engine.statement('SELECT is_primary FROM agents WHERE id = ?').pluck(true).get(agentId) === 1
    );
  }
}
