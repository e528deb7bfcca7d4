import type { Engine } from './engine.js';

/** Texts remembered per connection between two reads of term statistics; past this, all are forgotten. */
const MAX_NOTED_TEXTS = 64;

/**
 * What this connection wrote into the recall's full-text index since term statistics were last
 * read: the texts it inserted (few, as one turn writes them), or that it changed something whose
 * words are not known (a replaced or deleted row, a bulk load, a rebuild). The statistics cache
 * (`RecallRepo.termStatistics`) then forgets only the document frequencies of the words written,
 * not all of them: counting a frequent word's documents in `fts5vocab` costs ~0.2 ms, and an
 * agent writes between any two recalls. Forgetting too much is always safe; every writer of
 * `search_fts` on SQLite reports here.
 */
export class IndexChanges {
  /** Reports so far (a change of the FTS5 index with no report since means an unknown writer). */
  reports = 0;
  texts: string[] = [];
  /** True when some change's words are unknown: forget every frequency. */
  unknown = false;

  /** An inserted index text (as given to FTS5). */
  inserted(text: string): void {
    this.reports++;
    if (this.unknown) return;
    if (this.texts.length >= MAX_NOTED_TEXTS) this.#forgetTexts();
    else this.texts.push(text);
  }

  /** A change whose words are not known (a row replaced or deleted, a rebuild). */
  changed(): void {
    this.reports++;
    this.#forgetTexts();
  }

  #forgetTexts(): void {
    this.unknown = true;
    this.texts = [];
  }

  /** Takes the noted changes (and starts a fresh list). */
  take(): { texts: string[]; unknown: boolean } {
    const taken = { texts: this.texts, unknown: this.unknown };
    this.texts = [];
    this.unknown = false;
    return taken;
  }
}

const BY_ENGINE = new WeakMap<Engine, IndexChanges>();

/** The change list of one connection. */
export function indexChanges(engine: Engine): IndexChanges {
  let changes = BY_ENGINE.get(engine);
  if (!changes) {
    changes = new IndexChanges();
    BY_ENGINE.set(engine, changes);
  }
  return changes;
}
