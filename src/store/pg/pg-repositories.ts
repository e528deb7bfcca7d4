import { HedgehopError } from '../../core/errors.js';
import type { StoreTx } from '../seam.js';
import { PgAgentsRepo } from './agents-repo.js';
import { PgIndexRepo } from './index-repo.js';
import { PgKnowledgeRepo } from './knowledge-repo.js';
import { PgRadialRepo } from './radial-repo.js';
import { PgRecallRepo } from './recall-repo.js';
import { PgReindexRepo } from './reindex-repo.js';
import { PgVectorRepo } from './vector-repo.js';
import { PgLeasesRepo } from './leases-repo.js';
import type { PgQuery } from './pg-query.js';

/**
 * A repository the PostgreSQL engine does not have yet: any call on it (or on a nested
 * repository, `conversation.scenes.…`) fails with a typed error naming it, so the engine runs
 * everything that exists and says plainly what does not.
 */
function unbuilt<T>(name: string): T {
  const fail = (): never => {
    throw new HedgehopError(
      'IO',
      `${name}: the PostgreSQL engine has no ${name.split('.')[0]} repository yet`,
    );
  };
  return new Proxy(fail, {
    get: (_target, property) =>
      // Not a thenable, so an `await` on the repository itself does not call it.
      property === 'then' || typeof property === 'symbol' ? undefined : unbuilt(`${name}.${property}`),
    apply: fail,
  }) as unknown as T;
}

/** The repositories of one PostgreSQL transaction, each over that transaction's client. */
export function pgRepositories(db: PgQuery): StoreTx {
  const vectors = new PgVectorRepo(db);
  const index = new PgIndexRepo(db, vectors);
  return {
    agents: new PgAgentsRepo(db),
    leases: new PgLeasesRepo(db),
    index,
    vectors,
    conversation: unbuilt('conversation'),
    radial: new PgRadialRepo(db, index),
    knowledge: new PgKnowledgeRepo(db, index),
    recall: new PgRecallRepo(db),
    reindex: new PgReindexRepo(db),
    engram: unbuilt('engram'),
    dream: unbuilt('dream'),
  };
}
