import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { IndexDoc } from './index-repo.js';
import { Store } from './store.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function openStore(): Store {
  dir = mkdtempSync(join(tmpdir(), 'hedgehop-index-'));
  return Store.open(join(dir, 'm.db'), { durability: 'normal', mode: 'shared', busyTimeoutMs: 2000 });
}

const doc = (text: string): IndexDoc => ({
  layer: 'radial',
  ref: 'node-1',
  part: 'label',
  agentId: null,
  createdAt: 1,
  text,
});

/** The index rows, and which of them the full-text index finds `word` in. */
function rows(store: Store, word: string): { docs: number[]; matches: number[] } {
  const docs = store.engine.statement('SELECT rowid FROM search_docs').pluck().all() as number[];
  const matches = store.engine
    .statement('SELECT rowid FROM search_fts WHERE search_fts MATCH ?')
    .pluck()
    .all(word) as number[];
  return { docs, matches };
}

it('a fresh row is inserted without a lookup, and a second fresh insert of it fails instead of doubling', () => {
  const store = openStore();
  try {
    const { index } = store.direct;
    const rowid = store.engine.write('test', () => index.upsert(doc('pool exhausted'), { fresh: true }));
    expect(rows(store, 'exhausted')).toEqual({ docs: [rowid], matches: [rowid] });
    expect(() => store.engine.write('test', () => index.upsert(doc('again'), { fresh: true }))).toThrow();
    expect(rows(store, 'exhausted')).toEqual({ docs: [rowid], matches: [rowid] });
    // Without `fresh` the same row is replaced in place.
    expect(store.engine.write('test', () => index.upsert(doc('pool fixed')))).toBe(rowid);
    expect(rows(store, 'exhausted')).toEqual({ docs: [rowid], matches: [] });
    expect(rows(store, 'fixed')).toEqual({ docs: [rowid], matches: [rowid] });
  } finally {
    store.close();
  }
});
