import type { Profile } from '../../core/model/conversation.js';
import type { ProfileRepo } from '../profile-repo.js';
import {
  mergedProfile,
  profileIndexDoc,
  toProfile,
  type ProfilePatch,
  type RawProfile,
} from '../profile-rows.js';
import type { IndexRepository, Repository } from '../seam.js';
import type { PgQuery } from './pg-query.js';
import { later, lockAgent, one, run, scalar } from './rows.js';

/** Profiles in PostgreSQL: the same calls and results as {@link ProfileRepo}. */
export class PgProfileRepo implements Repository<ProfileRepo> {
  readonly #db: PgQuery;
  readonly #index: IndexRepository;

  constructor(db: PgQuery, index: IndexRepository) {
    this.#db = db;
    this.#index = index;
  }

  /** See {@link ProfileRepo.get}. Its two statements go out together (one round trip). */
  async get(agentId: number): Promise<Profile> {
    const row = later(
      one<RawProfile>(
        this.#db,
        'SELECT name, role, personality, preferences, emotion, mbti, updated_at FROM profiles WHERE agent_id = $1',
        [agentId],
      ),
    );
    const primary = later(this.#isPrimary(agentId));
    return toProfile(await row, await primary);
  }

  /** See {@link ProfileRepo.exists}. */
  async exists(agentId: number): Promise<boolean> {
    return (await scalar(this.#db, 'SELECT 1 FROM profiles WHERE agent_id = $1', [agentId])) !== undefined;
  }

  /** See {@link ProfileRepo.merge}; a read-modify-write under the agent's lock. */
  async merge(
    agentId: number,
    patch: ProfilePatch,
    now: number,
    options: { onlyIfAbsent?: boolean } = {},
  ): Promise<{ profile: Profile; changed: boolean }> {
    await lockAgent(this.#db, agentId);
    const before = await this.get(agentId);
    const exists = await this.exists(agentId);
    if (options.onlyIfAbsent && exists) return { profile: before, changed: false };
    const { next, unchanged } = mergedProfile(before, patch, exists);
    if (unchanged) return { profile: before, changed: false };
    await run(
      this.#db,
      `INSERT INTO profiles (agent_id, name, role, personality, preferences, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (agent_id) DO UPDATE SET name = excluded.name, role = excluded.role,
         personality = excluded.personality, preferences = excluded.preferences,
         updated_at = excluded.updated_at`,
      [agentId, next.name, next.role, next.personality, next.preferences, now],
    );
    const profile = await this.get(agentId);
    const doc = profileIndexDoc(agentId, profile);
    if (doc === undefined) await this.#index.remove('profile', String(agentId));
    else await this.#index.upsert(doc);
    return { profile, changed: true };
  }

  async #isPrimary(agentId: number): Promise<boolean> {
    // ::integer reads the flag alike whether the agents table stores it as 0/1 or as a boolean.
    const flag = await scalar<number>(this.#db, 'SELECT is_primary::integer FROM agents WHERE id = $1', [
      agentId,
    ]);
    return flag === 1;
  }
}
