import { HedgehopError } from '../../core/errors.js';
import type { PgQuery } from './pg-query.js';
import { conversationSchema } from './schema/conversation.js';
import { coreSchema } from './schema/core.js';
import { dreamSchema } from './schema/dream.js';
import { engramSchema } from './schema/engram.js';
import { indexSchema } from './schema/index.js';
import { knowledgeSchema } from './schema/knowledge.js';
import { knowledgeSearchSchema } from './schema/knowledge-search.js';
import { radialSchema } from './schema/radial.js';
import { indexPutCollationSchema } from './schema/index-put-collation.js';
import { nodeCommitSchema } from './schema/node-commit.js';
import { turnOpenSchema } from './schema/turn-open.js';
import { writeFunctionsSchema } from './schema/write-functions.js';

/** One forward-only step of a memory's PostgreSQL schema. */
export interface PgMigration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

/**
 * Every migration, in order; never edit a released one. Versions count in step with the SQLite
 * engine's (`src/store/migrations/`): PostgreSQL starts at the SQLite schema it translates whole
 * (5: core, radial, conversation, knowledge, index), so `stats().schemaVersion` and a dump's
 * `schemaVersion` mean the same on both engines, and a dump moves between them.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 5,
    name: 'initial',
    statements: [
      ...coreSchema,
      ...indexSchema,
      ...radialSchema,
      ...conversationSchema,
      ...knowledgeSchema,
      ...engramSchema,
      ...dreamSchema,
    ],
  },
  { version: 6, name: 'knowledge-search', statements: knowledgeSearchSchema },
  { version: 7, name: 'pg-write-functions', statements: writeFunctionsSchema },
  { version: 8, name: 'pg-index-put-collation', statements: indexPutCollationSchema },
  { version: 9, name: 'pg-turn-open', statements: turnOpenSchema },
  { version: 10, name: 'pg-node-commit', statements: nodeCommitSchema },
  // SQLite's version 11 keeps each archive row's speaker in its index row; PostgreSQL reads it
  // with the record, as before.
  { version: 11, name: 'index-speaker', statements: [] },
];

/** The schema version this build writes. */
export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]?.version ?? 0;

/** The table (in each memory's schema) that holds its version; never dumped. */
export const VERSION_TABLE = 'hedgehop_schema';

/** First key of hedgehop's two-key advisory locks: migrations (the second key is the schema's hash). */
export const MIGRATION_LOCK_CLASS = 0x48480001;
/** First key of the session lock `mode: 'exclusive'` and `'shared'` take. */
export const OPEN_LOCK_CLASS = 0x48480002;

/** A schema name quoted for SQL (names are validated lower-case identifiers; quoted anyway). */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** What a memory's schema holds now. */
interface SchemaState {
  readonly exists: boolean;
  readonly tables: number;
  /** The version, or undefined when there is no version table. */
  readonly version: number | undefined;
}

async function schemaState(db: PgQuery, schema: string): Promise<SchemaState> {
  const { rows } = await db.query<{ tables: number; versioned: boolean; present: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS present,
            (SELECT count(*) FROM pg_tables WHERE schemaname = $1)::int AS tables,
            to_regclass($2) IS NOT NULL AS versioned`,
    [schema, `${quoteIdent(schema)}.${VERSION_TABLE}`],
  );
  const row = rows[0];
  if (!row?.present) return { exists: false, tables: 0, version: undefined };
  if (!row.versioned) return { exists: true, tables: row.tables, version: undefined };
  const version = await db.query<{ version: number }>(
    `SELECT version FROM ${quoteIdent(schema)}.${VERSION_TABLE}`,
  );
  return { exists: true, tables: row.tables, version: version.rows[0]?.version ?? 0 };
}

/** Refuses a schema this build cannot use; returns its version (0 for none yet). */
function checkState(state: SchemaState, where: string): number {
  if (state.version === undefined) {
    if (state.exists && state.tables > 0)
      throw new HedgehopError('INVALID_INPUT', `path: ${where} holds tables but is not a hedgehop memory`, {
        field: 'path',
      });
    return 0;
  }
  if (state.version > PG_SCHEMA_VERSION)
    throw new HedgehopError(
      'VERSION',
      `${where} was written by a newer hedgehop (schema ${state.version}; this build knows up to ${PG_SCHEMA_VERSION}). Upgrade hedgehop to open it; the memory was not changed.`,
    );
  return state.version;
}

/**
 * Checks a memory opened read-only: it must exist and be at a version this build reads.
 * Returns its version.
 */
export async function checkPgVersion(db: PgQuery, schema: string, where: string): Promise<number> {
  const state = await schemaState(db, schema);
  if (!state.exists || state.version === undefined)
    throw new HedgehopError('NOT_FOUND', `${where} does not exist (cannot open read-only)`);
  return checkState(state, where);
}

/**
 * Brings the memory's schema up to date and returns the version it had before (0: created now).
 * A memory already current is only read. Otherwise the steps run in one transaction under a
 * transaction-level advisory lock on the schema's name, so two processes starting at once
 * migrate once: the second waits, then finds the work done. `db` must not be inside a transaction.
 */
export async function migratePg(db: PgQuery, schema: string, where: string): Promise<number> {
  const first = checkState(await schemaState(db, schema), where);
  if (first === PG_SCHEMA_VERSION) return first;
  await db.query('BEGIN');
  try {
    await db.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, schema]);
    const from = checkState(await schemaState(db, schema), where);
    if (from < PG_SCHEMA_VERSION) await applySteps(db, schema, from);
    await db.query('COMMIT');
    return from;
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function applySteps(db: PgQuery, schema: string, from: number): Promise<void> {
  const quoted = quoteIdent(schema);
  await db.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
  await db.query(`SET LOCAL search_path TO ${quoted}`);
  if (from === 0) {
    await db.query(
      `CREATE TABLE ${VERSION_TABLE} (
         one        integer PRIMARY KEY DEFAULT 1 CHECK (one = 1),
         version    integer NOT NULL,
         updated_at bigint NOT NULL
       )`,
    );
  }
  for (const migration of PG_MIGRATIONS) {
    if (migration.version <= from) continue;
    for (const statement of migration.statements) await db.query(statement);
  }
  await db.query(
    `INSERT INTO ${VERSION_TABLE} (one, version, updated_at) VALUES (1, $1, $2)
     ON CONFLICT (one) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at`,
    [PG_SCHEMA_VERSION, Date.now()],
  );
}
