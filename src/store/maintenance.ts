import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { HedgehopError } from '../core/errors.js';
import type { Engine } from './engine.js';
import { schemaDifferences, schemaObjects } from './schema-check.js';

/** Sizes and live row counts of a file. */
export interface FileStats {
  readonly path: string;
  readonly fileBytes: number;
  readonly walBytes: number;
  readonly schemaVersion: number;
  readonly agents: number;
  readonly rows: Readonly<Record<string, number>>;
  readonly pending: {
    readonly summaries: number;
    readonly keywords: number;
    readonly embeddings: number;
  };
}

/** The result of `check()` on a healthy file. */
export interface CheckReport {
  readonly ok: true;
  /** The checks that ran and passed. */
  readonly checked: readonly string[];
  /** The checks that could not run on this connection, and why (e.g. read-only). */
  readonly skipped: readonly { readonly check: string; readonly reason: string }[];
}

export const COUNTED_TABLES: Readonly<Record<string, string>> = {
  lines: 'lines',
  nodes: 'nodes',
  scenes: 'scenes',
  topics: 'topics',
  archive: 'archive',
  planNodes: 'plan_nodes',
  knowledgeGraphs: 'kg_graphs',
  knowledgeNodes: 'kg_nodes',
  knowledgeEdges: 'kg_edges',
  engramNodes: 'engram_nodes',
  engramEdges: 'engram_edges',
  dreamRuns: 'dream_runs',
  indexRows: 'search_docs',
};

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/** Row counts and sizes. */
export function fileStats(engine: Engine): FileStats {
  return engine.read('stats', () => {
    const count = (sql: string): number => engine.statement(sql).pluck().get() as number;
    const rows: Record<string, number> = {};
    for (const [name, table] of Object.entries(COUNTED_TABLES))
      rows[name] = count(`SELECT count(*) FROM ${table}`);
    return {
      path: engine.path,
      fileBytes: fileSize(engine.path),
      walBytes: fileSize(`${engine.path}-wal`),
      schemaVersion: engine.pragma('stats', 'user_version') as number,
      agents: count('SELECT count(*) FROM agents'),
      rows,
      pending: {
        summaries: count("SELECT count(*) FROM nodes WHERE summaries_state = 'pending'"),
        keywords: count("SELECT count(*) FROM topics WHERE keywords_state = 'pending' AND status = 'closed'"),
        embeddings: count("SELECT count(*) FROM search_docs WHERE embed_state = 'pending'"),
      },
    };
  });
}

/**
 * Full integrity check: SQLite's page-level `integrity_check`, the schema against the one this
 * build's migrations create, foreign keys, and the FTS5 index's own check. Throws `CORRUPT` listing what was found.
 */
export function checkFile(engine: Engine): CheckReport {
  const problems: string[] = [];
  const checked: string[] = [];
  const skipped: { check: string; reason: string }[] = [];
  const attempt = (name: string, fn: () => void): void => {
    try {
      fn();
      checked.push(name);
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  };
  attempt('integrity_check', () => {
    const rows = engine.pragmaRows('check', 'integrity_check') as { integrity_check: string }[];
    const bad = rows.map((r) => r.integrity_check).filter((r) => r !== 'ok');
    if (bad.length > 0) throw new Error(bad.slice(0, 20).join('; '));
  });
  attempt('schema', () => {
    const actual = schemaObjects((sql) => engine.run('check', () => engine.statement(sql).all()));
    const differences = schemaDifferences(actual);
    if (differences.length > 0) throw new Error(differences.slice(0, 20).join('; '));
  });
  attempt('foreign_key_check', () => {
    const rows = engine.pragmaRows('check', 'foreign_key_check') as {
      table: string;
      rowid: number;
      parent: string;
    }[];
    if (rows.length > 0) {
      throw new Error(
        rows
          .slice(0, 20)
          .map((r) => `${r.table}#${r.rowid} -> ${r.parent}`)
          .join('; '),
      );
    }
  });
  // FTS5's own check is spelled as an INSERT, which a read-only connection may not run.
  if (!engine.options.readOnly) {
    attempt('fts_integrity', () => {
      engine.exec('check', "INSERT INTO search_fts(search_fts, rank) VALUES ('integrity-check', 1)");
    });
  } else {
    skipped.push({
      check: 'fts_integrity',
      reason: 'the file is open read-only, and the recall index checks itself through a write statement',
    });
  }
  if (problems.length > 0) {
    throw new HedgehopError('CORRUPT', `${engine.path} failed its integrity check: ${problems.join(' | ')}`);
  }
  return { ok: true, checked, skipped };
}

/** Moves the WAL's content into the main file. */
export function checkpointFile(engine: Engine): { walFramesCheckpointed: number; busy: boolean } {
  const rows = engine.pragmaRows('checkpoint', 'wal_checkpoint(TRUNCATE)') as {
    busy: number;
    log: number;
    checkpointed: number;
  }[];
  const row = rows[0];
  return { walFramesCheckpointed: row?.checkpointed ?? 0, busy: (row?.busy ?? 0) === 1 };
}

/** Writes a defragmented copy of the file to `target` with `VACUUM INTO`. */
export function compactFile(
  engine: Engine,
  target: string,
): { path: string; bytesBefore: number; bytesAfter: number } {
  const path = resolve(target);
  if (engine.isSameFile(path)) {
    throw new HedgehopError(
      'INVALID_INPUT',
      `path: ${path} is the open file itself; compact into a new path`,
      {
        field: 'path',
      },
    );
  }
  if (existsSync(path)) {
    throw new HedgehopError('INVALID_INPUT', `path: ${path} already exists; compactTo never overwrites`, {
      field: 'path',
    });
  }
  engine.run('compactTo', () => engine.statement('VACUUM INTO ?').run(path));
  return {
    path,
    bytesBefore: fileSize(engine.path) + fileSize(`${engine.path}-wal`),
    bytesAfter: fileSize(path),
  };
}
