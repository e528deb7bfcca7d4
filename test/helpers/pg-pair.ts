import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../../src/store/store.js';
import type { PgQuery } from '../../src/store/pg/pg-query.js';
import { PgIndexRepo } from '../../src/store/pg/index-repo.js';
import { PgKnowledgeRepo } from '../../src/store/pg/knowledge-repo.js';
import { PgRadialRepo } from '../../src/store/pg/radial-repo.js';
import { PgRecallRepo } from '../../src/store/pg/recall-repo.js';
import { PgReindexRepo } from '../../src/store/pg/reindex-repo.js';
import { PgVectorRepo } from '../../src/store/pg/vector-repo.js';
import type {
  Awaitable,
  StoreTx,
  IndexRepository,
  KnowledgeRepository,
  RadialRepository,
  RecallRepository,
  ReindexRepository,
  VectorRepository,
} from '../../src/store/seam.js';
import { openPgMemory, type PgMemory } from './pg.js';

/** The repositories one comparison step may call, on either engine. */
export interface Repos {
  readonly index: IndexRepository;
  readonly radial: RadialRepository;
  readonly recall: RecallRepository;
  readonly knowledge: KnowledgeRepository;
  readonly reindex: ReindexRepository;
  readonly vectors: VectorRepository;
  /** Runs raw setup SQL written with `?` placeholders (rewritten to `$n` for PostgreSQL). */
  readonly exec: (sql: string, values?: readonly unknown[]) => Promise<void>;
}

/** A fresh SQLite file and a fresh PostgreSQL memory schema, to run the same calls on both. */
export interface EnginePair {
  readonly sqlite: Store;
  readonly pg: PgMemory;
  /**
   * Runs `step` on SQLite (after writing the index rows its commits leave to the next read),
   * then (in one transaction) on PostgreSQL; resolves to both results.
   */
  both<T>(step: (repos: Repos) => Awaitable<T>): Promise<{ sqlite: T; pg: T }>;
  close(): Promise<void>;
}

function pgRepos(db: PgQuery): Repos {
  const vectors = new PgVectorRepo(db);
  const index = new PgIndexRepo(db, vectors);
  return {
    index,
    vectors,
    radial: new PgRadialRepo(db, index),
    recall: new PgRecallRepo(db),
    knowledge: new PgKnowledgeRepo(db, index),
    reindex: new PgReindexRepo(db),
    exec: async (sql, values) => {
      let n = 0;
      await db.query(
        sql.replaceAll('?', () => `$${++n}`),
        values,
      );
    },
  };
}

/** The SQLite repositories of one transaction, with raw setup SQL run on the same connection. */
function sqliteRepos(store: Store, tx: StoreTx): Repos {
  return {
    index: tx.index,
    vectors: tx.vectors,
    radial: tx.radial,
    recall: tx.recall,
    knowledge: tx.knowledge,
    reindex: tx.reindex,
    exec: async (sql, values) => {
      store.engine.statement(sql).run(...(values ?? []));
      await Promise.resolve();
    },
  };
}

/** Opens both engines with agent 1 (`primary`) and agent 2 (`other`). */
export async function openPair(url: string): Promise<EnginePair> {
  const dir = mkdtempSync(join(tmpdir(), 'hedgehop-pair-'));
  const sqlite = Store.open(join(dir, 'm.db'), {
    durability: 'normal',
    mode: 'exclusive',
    busyTimeoutMs: 1000,
  });
  const pg = await openPgMemory(url);
  const onPg = pgRepos(pg.db);
  const pair: EnginePair = {
    sqlite,
    pg,
    both: async (step) => {
      // SQLite writes a commit's radial index rows before its next read (PostgreSQL with the
      // commit): each step starts from a caught-up index, as a read would.
      await sqlite.catchUpIndex();
      const fromSqlite = await settle(() =>
        sqlite.write('comparison step', (tx) => step(sqliteRepos(sqlite, tx))),
      );
      const fromPg = await settle(() => pg.tx(async () => step(onPg)));
      return { sqlite: unwrap(fromSqlite), pg: unwrap(fromPg) };
    },
    close: async () => {
      sqlite.close();
      await pg.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await pair.both(async (repos) => {
    await repos.exec("INSERT INTO agents (id, name, is_primary, created_at) VALUES (1, 'primary', 1, 1)");
    await repos.exec("INSERT INTO agents (id, name, is_primary, created_at) VALUES (2, 'other', 0, 1)");
  });
  return pair;
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: { code: unknown; message: string } };

async function settle<T>(run: () => Awaitable<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const e = error as { code?: unknown; message?: string };
    return { ok: false, error: { code: e.code, message: e.message ?? String(error) } };
  }
}

/** A failure becomes a value (`{ error: { code, message } }`), so both engines' errors compare. */
function unwrap<T>(settled: Settled<T>): T {
  return settled.ok ? settled.value : ({ error: settled.error } as T);
}
