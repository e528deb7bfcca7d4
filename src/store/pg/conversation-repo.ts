import type { ConversationRepository, IndexRepository } from '../seam.js';
import { PgArchiveRepo } from './archive-repo.js';
import { PgPlanRepo } from './plan-repo.js';
import { PgProfileRepo } from './profile-repo.js';
import { PgScenesRepo } from './scenes-repo.js';
import type { PgQuery } from './pg-query.js';

/**
 * Conversation memory's PostgreSQL repositories, composed as {@link ConversationRepo} composes
 * the SQLite ones. They write the recall-index rows of what they change through `index`, in the
 * caller's transaction.
 */
export class PgConversationRepo implements ConversationRepository {
  readonly profiles: PgProfileRepo;
  readonly archive: PgArchiveRepo;
  readonly scenes: PgScenesRepo;
  readonly plans: PgPlanRepo;

  constructor(db: PgQuery, index: IndexRepository) {
    this.profiles = new PgProfileRepo(db, index);
    this.archive = new PgArchiveRepo(db, index);
    this.scenes = new PgScenesRepo(db, index, this.archive);
    this.plans = new PgPlanRepo(db);
  }
}
