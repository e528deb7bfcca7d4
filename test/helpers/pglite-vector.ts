import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * A PostgreSQL with pgvector for the tests of the `vector` column path: PGlite (PostgreSQL
 * compiled to WebAssembly, in this process) with the pgvector extension
 * (`@electric-sql/pglite-pgvector`), served on a loopback TCP port by
 * `@electric-sql/pglite-socket`, so the engine's own node-postgres pool connects to it by URL
 * as to any server. PGlite has one backend session that every connection shares: fine for
 * tests that run one transaction at a time, not for concurrent writers, and a memory opened on it
 * needs `?prepared_statements=false` (a statement one client prepared is already held by the next).
 */
export interface PgliteServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`; add `?memory=<name>` for a memory. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Starts one, or says why it cannot (one line). */
export async function startPgliteVector(): Promise<PgliteServer | string> {
  let db: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const { vector } = await import('@electric-sql/pglite-pgvector');
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
    db = await PGlite.create({ extensions: { vector } });
    server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 64 });
    await server.start();
    const url = `postgres://postgres@${server.getServerConn()}/postgres`;
    const started = { db, server };
    return {
      url,
      stop: async () => {
        await started.server.stop();
        await started.db.close();
      },
    };
  } catch (error) {
    await server?.stop().catch(() => undefined);
    await db?.close().catch(() => undefined);
    return `no PGlite with pgvector (${(error as Error).message.split('\n')[0]})`;
  }
}
