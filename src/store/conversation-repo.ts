import { ArchiveRepo } from './archive-repo.js';
import type { Engine } from './engine.js';
import type { IndexRepo } from './index-repo.js';
import { PlanRepo } from './plan-repo.js';
import { ProfileRepo } from './profile-repo.js';
import { ScenesRepo } from './scenes-repo.js';

/**
 * Conversation memory's repositories, one per layer: profiles, scenes and turns, archive
 * records, plan trees. Every method that must be atomic runs in one `engine.write`, and writes
 * the recall-index rows of what it changes in the same transaction.
 */
export class ConversationRepo {
  readonly profiles: ProfileRepo;
  readonly archive: ArchiveRepo;
  readonly scenes: ScenesRepo;
  readonly plans: PlanRepo;

  constructor(engine: Engine, index: IndexRepo) {
    this.profiles = new ProfileRepo(engine, index);
    this.archive = new ArchiveRepo(engine, index);
    this.scenes = new ScenesRepo(engine, index, this.archive);
    this.plans = new PlanRepo(engine);
  }
}
