import { expect } from 'vitest';
import { AgentsRepo } from '../../src/store/agents-repo.js';
import { ConversationRepo } from '../../src/store/conversation-repo.js';
import { DreamRepo } from '../../src/store/dream-repo.js';
import { Engine } from '../../src/store/engine.js';
import { EngramRepo } from '../../src/store/engram-repo.js';
import { IndexRepo, type IndexDoc } from '../../src/store/index-repo.js';
import { LeasesRepo } from '../../src/store/leases-repo.js';
import { PgConversationRepo } from '../../src/store/pg/conversation-repo.js';
import { PgEngramRepo } from '../../src/store/pg/engram-repo.js';
import type { PgQuery } from '../../src/store/pg/pg-query.js';
import type {
  ConversationRepository,
  DreamRepository,
  EngramRepository,
  IndexRepository,
} from '../../src/store/seam.js';
import type { IndexLayer } from '../../src/core/model/recall.js';
import { PgTestDb, SqlIndex } from './pg-cognitive.js';
import { tempFile } from './temp.js';

/** The cognitive repositories of one engine, as a comparison step sees them. */
export interface CognitiveRepos {
  readonly conversation: ConversationRepository;
  readonly engram: EngramRepository;
  readonly dream: DreamRepository;
}

/** What a step did: its value, or the error it threw (code, message and fields). */
export type Outcome = { ok: unknown } | { error: Record<string, unknown> };

/** An index that records every write it is asked for, then passes it on. */
function recording(inner: IndexRepository, log: unknown[]): IndexRepository {
  return {
    upsert: (doc: IndexDoc) => {
      log.push(['upsert', doc]);
      return inner.upsert(doc);
    },
    // Removes are compared through the index rows left (see EnginePair.step): the SQLite scene
    // deletes remove index rows in SQL, not through the repository.
    remove: (layer: IndexLayer, ref: string) => inner.remove(layer, ref),
  };
}

async function outcome(work: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await work() };
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const { ...fields } = error as unknown as Record<string, unknown>;
    return { error: { name: error.name, message: error.message, ...fields } };
  }
}

/** Builds the PostgreSQL repositories on one transaction's client. */
export type PgReposFactory = (db: PgQuery, index: IndexRepository) => CognitiveRepos;

/**
 * The same memory on both engines: a fresh SQLite file and a fresh PostgreSQL schema, each with
 * a primary agent (id 1) and a sub-agent (id 2). {@link step} runs one call sequence against both
 * (one transaction each) and expects the same outcome; {@link expectSameTables} compares what
 * the tables hold afterwards; every index write is recorded on both sides and compared too.
 */
export class EnginePair {
  readonly engine: Engine;
  readonly sqlite: CognitiveRepos;
  readonly pg: PgTestDb;
  readonly sqliteIndexLog: unknown[] = [];
  readonly pgIndexLog: unknown[] = [];
  readonly leases: LeasesRepo;
  readonly #pgRepos: PgReposFactory;

  private constructor(engine: Engine, db: PgTestDb, pgRepos: PgReposFactory) {
    this.engine = engine;
    this.pg = db;
    this.#pgRepos = pgRepos;
    const index = recording(new IndexRepo(engine), this.sqliteIndexLog) as IndexRepo;
    const conversation = new ConversationRepo(engine, index);
    const engram = new EngramRepo(engine);
    this.sqlite = { conversation, engram, dream: new DreamRepo(engine, index, conversation) };
    this.leases = new LeasesRepo(engine);
  }

  static async open(url: string, pgRepos: PgReposFactory): Promise<EnginePair> {
    const engine = Engine.open(tempFile(), { durability: 'normal', mode: 'shared', busyTimeoutMs: 2000 });
    const agents = new AgentsRepo(engine);
    agents.ensurePrimary('main', 1);
    agents.ensure('helper', 2);
    const db = await PgTestDb.create(url);
    await db.tx(async (q) => {
      await q.query(
        "INSERT INTO agents (id, name, is_primary, created_at) VALUES (1, 'main', 1, 1), (2, 'helper', 0, 2)",
      );
    });
    return new EnginePair(engine, db, pgRepos);
  }

  /** Runs `work` on SQLite, then on PostgreSQL in one transaction; both outcomes must be equal. */
  async step<T>(label: string, work: (repos: CognitiveRepos) => PromiseLike<T> | T): Promise<T | undefined> {
    const lite = await outcome(async () => work(this.sqlite));
    const pgOut = await outcome(() =>
      this.pg.tx(async (q) => work(this.#pgRepos(q, recording(new SqlIndex(q), this.pgIndexLog)))),
    );
    expect(pgOut, label).toStrictEqual(lite);
    expect(this.pgIndexLog, `${label}: index writes`).toStrictEqual(this.sqliteIndexLog);
    const docs = `SELECT agent_id, layer, ref, part, line_id, scene_id, topic_id, created_at FROM search_docs
      ORDER BY layer, ref, part`;
    const liteDocs = this.engine.statement(docs).pluck(false).all();
    const pgDocs = await this.pg.tx(async (q) => (await q.query(docs)).rows.map((row) => asSqliteRow(row)));
    expect(pgDocs, `${label}: index rows`).toStrictEqual(liteDocs);
    return 'ok' in lite ? (lite.ok as T) : undefined;
  }

  /** Runs raw SQL on both engines (for rows another part owns: leases, radial nodes, meta). */
  async sql(sqlite: string, postgres: string, values: readonly unknown[] = []): Promise<void> {
    this.engine.statement(sqlite).run(...values);
    await this.pg.tx(async (q) => {
      await q.query(postgres, values);
    });
  }

  /** Every row of each table on both engines, BIGINTs as numbers; they must be equal. */
  async expectSameTables(
    tables: readonly { name: string; order: string; pgOnly?: readonly string[] }[],
  ): Promise<void> {
    for (const { name, order, pgOnly = [] } of tables) {
      const lite = this.engine.statement(`SELECT * FROM ${name} ORDER BY ${order}`).pluck(false).all();
      const rows = await this.pg.tx(
        async (q) => (await q.query(`SELECT * FROM ${name} ORDER BY ${order}`)).rows,
      );
      const pgRows = rows.map((row) => asSqliteRow(row, pgOnly));
      expect(pgRows, `table ${name}`).toStrictEqual(lite);
    }
  }

  /** The same query's rows on both engines (BIGINTs as numbers) must be equal. */
  async expectSameQuery(text: string): Promise<void> {
    const lite = this.engine.statement(text).pluck(false).all();
    const rows = await this.pg.tx(async (q) => (await q.query(text)).rows.map((row) => asSqliteRow(row)));
    expect(rows, text).toStrictEqual(lite);
  }

  async close(): Promise<void> {
    this.engine.close();
    await this.pg.drop();
  }
}

/** A PostgreSQL row as SQLite would give it: BIGINT columns as numbers, PostgreSQL-only columns left out. */
function asSqliteRow(row: Record<string, unknown>, pgOnly: readonly string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (pgOnly.includes(key)) continue;
    out[key] =
      typeof value === 'string' && /^-?\d+$/.test(value) && BIGINT_NAMES.has(key) ? Number(value) : value;
  }
  return out;
}

/** Columns that are BIGINT on PostgreSQL (integers on SQLite). */
const BIGINT_NAMES: ReadonlySet<string> = new Set([
  'id',
  'agent_id',
  'created_at',
  'last_used_at',
  'opened_at',
  'closed_at',
  'user_ts',
  'agent_ts',
  'finished_at',
  'updated_at',
  'faded_at',
  'last_decay_at',
  'started_at',
  'undone_at',
]);

/** The PostgreSQL repositories of this part (Dream is added by its own test). */
export const pgCognitive =
  (dream?: (db: PgQuery, index: IndexRepository, c: PgConversationRepo) => DreamRepository) =>
  (db: PgQuery, index: IndexRepository): CognitiveRepos => {
    const conversation = new PgConversationRepo(db, index);
    const engram = new PgEngramRepo(db);
    return {
      conversation,
      engram,
      dream: dream ? dream(db, index, conversation) : (undefined as unknown as DreamRepository),
    };
  };
