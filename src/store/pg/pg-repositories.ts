import type { StoreTx } from '../seam.js';
import { PgAgentsRepo } from './agents-repo.js';
import { PgConversationRepo } from './conversation-repo.js';
import { PgDreamRepo } from './dream-repo.js';
import { PgEngramRepo } from './engram-repo.js';
import { PgIndexRepo } from './index-repo.js';
import { PgKnowledgeRepo } from './knowledge-repo.js';
import { PgRadialRepo } from './radial-repo.js';
import { PgRecallRepo, type TermCounts } from './recall-repo.js';
import { PgReindexRepo } from './reindex-repo.js';
import { PgVectorRepo } from './vector-repo.js';
import { PgLeasesRepo } from './leases-repo.js';
import type { PgQuery } from './pg-query.js';

/**
 * The repositories of one PostgreSQL transaction, each over that transaction's client.
 * `termCounts`: the store's recall statistics kept across its reads (see {@link TermCounts}),
 * given for a read only: each read is one snapshot, whose rows recall keeps once read.
 */
export function pgRepositories(db: PgQuery, termCounts?: TermCounts): StoreTx {
  const vectors = new PgVectorRepo(db);
  const index = new PgIndexRepo(db, vectors);
  const conversation = new PgConversationRepo(db, index);
  return {
    agents: new PgAgentsRepo(db),
    leases: new PgLeasesRepo(db),
    index,
    vectors,
    conversation,
    radial: new PgRadialRepo(db, index),
    knowledge: new PgKnowledgeRepo(db, index),
    recall: new PgRecallRepo(db, termCounts, termCounts !== undefined),
    reindex: new PgReindexRepo(db),
    engram: new PgEngramRepo(db),
    dream: new PgDreamRepo(db, index, conversation),
  };
}
