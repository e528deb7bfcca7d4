import type { Migration } from './migration.js';
import { v1Core } from './001-core.js';
import { v2Radial } from './002-radial.js';
import { v3Conversation } from './003-conversation.js';
import { v4Knowledge } from './004-knowledge.js';
import { v5Index } from './005-index.js';
import { v6KnowledgeSearch } from './006-knowledge-search.js';
import { v7PgWriteFunctions } from './007-pg-write-functions.js';
import { v8PgIndexPutCollation } from './008-pg-index-put-collation.js';
import { v9PgTurnOpen } from './009-pg-turn-open.js';
import { v10PgNodeCommit } from './010-pg-node-commit.js';
import { v11IndexSpeaker } from './011-index-speaker.js';

/** Every migration, in order. Versions are 1..N with no gaps; never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [
  v1Core,
  v2Radial,
  v3Conversation,
  v4Knowledge,
  v5Index,
  v6KnowledgeSearch,
  v7PgWriteFunctions,
  v8PgIndexPutCollation,
  v9PgTurnOpen,
  v10PgNodeCommit,
  v11IndexSpeaker,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

export type { Migration } from './migration.js';
