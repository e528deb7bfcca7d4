import type { Engine } from './engine.js';
import { indexChanges } from './index-changes.js';
import { stem, tokenize } from '../core/index-terms.js';
import type { IndexLayer } from '../core/model/recall.js';
import {
  knowledgeText,
  nodeText,
  profileText,
  toArchiveText,
  topicText,
  type ArchiveRow,
  type KnowledgeTextRow,
  type NodeTextRow,
  type ProfileTextRow,
  type TopicTextRow,
} from './recall-rows.js';

import type { DocRow, ResolvedText } from './recall-rows.js';

export type { DocRow, ResolvedText };

/** Which index rows a query may see. `undefined` filters are not applied. */
export interface DocFilter {
  /** The asking agent; rows of other agents are never returned, file-wide rows (agent null) always are. */
  readonly agentId: number;
  readonly layers?: readonly IndexLayer[] | undefined;
  readonly lineId?: string | undefined;
  readonly sceneId?: string | undefined;
  readonly topicId?: string | undefined;
  /** Inclusive lower bound on `created_at` (ms). */
  readonly from?: number | undefined;
  /** Exclusive upper bound on `created_at` (ms). */
  readonly to?: number | undefined;
}

/** A document matched by FTS5, with its BM25 score (higher is better). */
export interface MatchedDoc extends DocRow {
  readonly bm25: number;
}

const DOC_COLUMNS =
  'd.rowid AS rowid, d.agent_id, d.layer, d.ref, d.part, d.line_id, d.scene_id, d.topic_id, d.created_at, d.speaker';

/** A row of {@link DOC_COLUMNS} read as an array (cheaper than an object per row), then more columns. */
type RawDocArray = [
  number,
  number | null,
  IndexLayer,
  string,
  string,
  string | null,
  string | null,
  string | null,
  number,
  string | null,
  ...unknown[],
];

/** The document of a raw row (objects built whole: no spread copy, no rest array per row). */
const fromArray = (row: RawDocArray): DocRow => ({
  rowid: row[0],
  agentId: row[1],
  layer: row[2],
  ref: row[3],
  part: row[4],
  lineId: row[5],
  sceneId: row[6],
  topicId: row[7],
  createdAt: row[8],
  speaker: row[9] ?? undefined,
});

/** A matched document: its row's document and its BM25 score (column 11), built whole. */
const matchedFromArray = (row: RawDocArray): MatchedDoc => ({
  rowid: row[0],
  agentId: row[1],
  layer: row[2],
  ref: row[3],
  part: row[4],
  lineId: row[5],
  sceneId: row[6],
  topicId: row[7],
  createdAt: row[8],
  speaker: row[9] ?? undefined,
  bm25: (row[10] as number | null) ?? 0,
});

/**
 * The WHERE clause and parameters of a filter: only the conditions in use are written (an
 * unused `:x IS NULL OR …` still costs its test on every matched row), so each combination of
 * filters is its own cached statement — a few dozen at most.
 */
function filterSql(filter: DocFilter): { sql: string; params: Record<string, unknown> } {
  const where = ['(d.agent_id = :agent OR d.agent_id IS NULL)'];
  const params: Record<string, unknown> = { agent: filter.agentId };
  const add = (key: string, value: unknown, clause: string): void => {
    if (value === undefined || value === null) return;
    where.push(clause);
    params[key] = value;
  };
  add(
    'layers',
    filter.layers && filter.layers.length > 0 ? JSON.stringify(filter.layers) : undefined,
    'd.layer IN (SELECT value FROM json_each(:layers))',
  );
  add('line', filter.lineId, 'd.line_id = :line');
  add('scene', filter.sceneId, 'd.scene_id = :scene');
  add('topic', filter.topicId, 'd.topic_id = :topic');
  add('from', filter.from, 'd.created_at >= :from');
  add('to', filter.to, 'd.created_at < :to');
  return { sql: where.join(' AND '), params };
}

/**
 * How many times `limit` best matches the candidate query sorts when its filter passes most rows
 * (see {@link RecallRepo.match}): room for rows of other agents and layers before a second read.
 */
const MATCH_WINDOW_FACTOR = 2;

/**
 * True when a filter is expected to pass most matches: the agent's own rows and the file-wide
 * ones, of every layer or at least its conversation records (most of any memory's rows). A
 * scene, turn, line or time condition usually passes few, so those reads sort every match at once.
 */
function passesMost(filter: DocFilter): boolean {
  return (
    filter.lineId === undefined &&
    filter.sceneId === undefined &&
    filter.topicId === undefined &&
    filter.from === undefined &&
    filter.to === undefined &&
    (filter.layers === undefined || filter.layers.length === 0 || filter.layers.includes('archive'))
  );
}

/** An archive record's words and speaker. */
export interface ArchiveText {
  readonly content: string;
  /** Who spoke, when the record names a speaker. */
  readonly speaker: string | undefined;
  readonly role: string | undefined;
  /** Length of the content in characters. */
  readonly chars: number;
}

/** Document statistics of the index for ranking (see {@link RecallRepo.termStatistics}). */
export interface TermStatistics {
  /** An upper estimate of the number of index rows. */
  readonly documents: number;
  /**
   * How many index rows hold `term` (an FTS5-stemmed token). Defined for the stems passed to
   * {@link RecallRepo.termStatistics}; an engine may answer 0 for any other.
   */
  readonly frequency: (term: string) => number;
}

/** Terms whose document frequency is remembered per cache at most. */
const TERM_CACHE_SIZE = 20_000;

/**
 * The read side of the recall index: FTS5 matching with provenance filters, term statistics,
 * neighbours in a scene, and reading the verbatim text behind a hit. All SQL of recall lives
 * here; `src/recall/` ranks and assembles.
 */
export class RecallRepo {
  readonly #engine: Engine;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /**
   * Rows matching the FTS5 expression `match` (built by `src/recall/query.ts`, never user text),
   * best BM25 first, at most `limit`.
   */
  match(match: string, filter: DocFilter, limit: number): MatchedDoc[] {
    // The matches are scored and sorted before the join (a co-routine handing them over best
    // first; the CROSS JOIN keeps that order), so only rows up to the limit are looked up and
    // filtered. They are sorted by `bm25(search_fts)` in SQLite's own sorter rather than by
    // FTS5's `ORDER BY rank`: the same scores (rank is bm25 by default), but FTS5's rank sort
    // runs a nested query of its own over every match, ~20 % dearer (docs/benchmarks.md,
    // "Fourth round"). FTS5 scores every match either way; the sorter keeps only the best
    // `window` of them when the filter is expected to pass most rows (a sort of every match
    // costs ~0.7 ms more per query at 100,000 records, and grows with the file), and the read is
    // repeated over every match when the window held fewer than `limit` rows passing the filter.
    const where = filterSql(filter);
    const run = (window: number): MatchedDoc[] =>
      (
        this.#engine
          .statement(
            `SELECT ${DOC_COLUMNS}, -f.score AS bm25
             FROM (SELECT rowid, bm25(search_fts) AS score FROM search_fts WHERE search_fts MATCH :match
                   ORDER BY score LIMIT :window) f
             CROSS JOIN search_docs d ON d.rowid = f.rowid
             WHERE ${where.sql}
             ORDER BY f.score LIMIT :limit`,
          )
          .raw()
          .all({ ...where.params, match, limit, window }) as RawDocArray[]
      ).map(matchedFromArray);
    if (!passesMost(filter)) return run(-1);
    const window = limit * MATCH_WINDOW_FACTOR;
    const rows = run(window);
    if (rows.length >= limit || !this.#matchesMoreThan(match, window - 1)) return rows;
    return run(-1);
  }

  /** True when FTS5 holds more than `count` rows matching `match` (reads at most `count + 1`). */
  #matchesMoreThan(match: string, count: number): boolean {
    const seen = this.#engine
      .statement('SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ? LIMIT ?)')
      .pluck()
      .get(match, count + 1) as number;
    return seen > count;
  }

  /** The bare FTS5 floor: rowids matching `match`, best first (benchmarks compare against it). */
  matchBare(match: string, limit: number): number[] {
    return this.#engine
      .statement('SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rank LIMIT ?')
      .pluck()
      .all(match, limit) as number[];
  }

  /** Index rows by rowid (in no particular order; missing rowids are skipped). */
  docs(rowids: readonly number[]): DocRow[] {
    if (rowids.length === 0) return [];
    const rows = this.#engine
      .statement(`SELECT ${DOC_COLUMNS} FROM search_docs d WHERE d.rowid IN (SELECT value FROM json_each(?))`)
      .raw()
      .all(JSON.stringify(rowids)) as RawDocArray[];
    return rows.map(fromArray);
  }

  /** Index rows that pass `filter`, newest first (recall without query words). */
  recent(filter: DocFilter, limit: number): DocRow[] {
    const where = filterSql(filter);
    const rows = this.#engine
      .statement(
        `SELECT ${DOC_COLUMNS} FROM search_docs d WHERE ${where.sql}
         ORDER BY d.created_at DESC, d.rowid DESC LIMIT :limit`,
      )
      .raw()
      .all({ ...where.params, limit }) as RawDocArray[];
    return rows.map(fromArray);
  }

  /** How many index rows hold `term` (an FTS5-stemmed token); 0 when none. */
  documentFrequency(term: string): number {
    const count = this.#engine.statement('SELECT doc FROM search_vocab WHERE term = ?').pluck().get(term) as
      | number
      | undefined;
    return count ?? 0;
  }

  /**
   * Term statistics (document count and per-term document frequencies) for ranking. Each
   * frequency is read from `search_vocab` once and remembered across queries while it holds:
   * a commit by another connection (`PRAGMA data_version`) forgets all of them; this
   * connection's own writes forget only the words of the texts they indexed (reported by the
   * index's writers to `src/store/index-changes.ts`), or all when a change's words are unknown or the
   * FTS5 index changed without a report. Inside a write transaction (whose changes may still
   * roll back) nothing is remembered. `stems` are the terms the caller will ask about: an engine
   * whose reads are asynchronous reads them in one batch; this one reads each lazily (so
   * `frequency` answers for any term). `atMost` tells the engine that the caller only needs to
   * know which frequencies exceed it: an engine may then report any frequency above it as
   * any number above it. Both engines stop counting at `atMost + 1`: here by reading at most that
   * many of the term's rows through FTS5 (a frequent word's exact count walks its whole doclist:
   * ~1.3 ms for a word in 37,000 of 1,000,000 rows, ~0.12 ms capped at 501), for a term that is
   * its own stem (FTS5 stems the words of a `MATCH`); other terms are counted exactly.
   */
  termStatistics(_stems: readonly string[], atMost?: number): TermStatistics {
    const documents = this.approximateDocCount();
    const count =
      atMost === undefined
        ? (terms: Map<string, number>, term: string): number => this.#frequencyIn(terms, term)
        : (terms: Map<string, number>, term: string): number => this.#cappedIn(terms, term, atMost);
    if (this.#engine.writing) {
      const uncached = new Map<string, number>();
      return { documents, frequency: (term) => count(uncached, term) };
    }
    const cache = this.#frequencies;
    const version = this.#engine.dataVersion();
    const structure = this.#structure();
    const changes = indexChanges(this.#engine);
    const noted = changes.take();
    if (version !== cache.version) {
      cache.terms.clear();
    } else if (
      noted.unknown ||
      (changes.reports === cache.reports && !sameBytes(structure, cache.structure))
    ) {
      cache.terms.clear();
    } else if (noted.texts.length > 0) {
      for (const text of noted.texts) for (const token of tokenize(text)) cache.terms.delete(stem(token));
    }
    cache.version = version;
    cache.structure = structure;
    cache.reports = changes.reports;
    return { documents, frequency: (term) => count(cache.terms, term) };
  }

  /**
   * The exact frequency of `term`. `terms` holds exact counts, and `-n` for a term known only to
   * be held by `n` rows or more (a capped count), which is counted again here.
   */
  #frequencyIn(terms: Map<string, number>, term: string): number {
    let count = terms.get(term);
    if (count === undefined || count < 0) {
      if (terms.size >= TERM_CACHE_SIZE) terms.clear();
      count = this.documentFrequency(term);
      terms.set(term, count);
    }
    return count;
  }

  /** The frequency of `term`, exact up to `atMost`, any number above it past that. */
  #cappedIn(terms: Map<string, number>, term: string, atMost: number): number {
    const known = terms.get(term);
    if (known !== undefined && (known >= 0 || -known > atMost)) return Math.abs(known);
    if (stem(term) !== term) return this.#frequencyIn(terms, term);
    if (terms.size >= TERM_CACHE_SIZE) terms.clear();
    const count = this.#engine
      .statement('SELECT count(*) FROM (SELECT 1 FROM search_fts WHERE search_fts MATCH ? LIMIT ?)')
      .pluck()
      .get(`"${term.replaceAll('"', '""')}"`, atMost + 1) as number;
    terms.set(term, count <= atMost ? count : -count);
    return count;
  }

  /** The FTS5 index's structure record: it changes whenever the index does (a flushed write, a merge). */
  #structure(): Uint8Array | undefined {
    return this.#engine.statement('SELECT block FROM search_fts_data WHERE id = 10').pluck().get() as
      | Uint8Array
      | undefined;
  }

  readonly #frequencies: {
    version: number | undefined;
    structure: Uint8Array | undefined;
    reports: number;
    readonly terms: Map<string, number>;
  } = { version: undefined, structure: undefined, reports: 0, terms: new Map() };

  /** An upper estimate of the number of index rows, in constant time (the largest rowid). */
  approximateDocCount(): number {
    return (this.#engine.statement('SELECT max(rowid) FROM search_docs').pluck().get() as number | null) ?? 0;
  }

  /**
   * The neighbours of many rows in one query (insertion order is conversation order): for each seed (a row and its scene), the
   * archive rows of its scene just before and after it, at most `window` on each side, in rowid
   * order. Seeds without neighbours are absent from the result.
   */
  sceneNeighboursOf(
    seeds: readonly { readonly rowid: number; readonly sceneId: string }[],
    window: number,
  ): Map<number, DocRow[]> {
    const out = new Map<number, DocRow[]>();
    if (seeds.length === 0 || window <= 0) return out;
    const side = (op: '<' | '>', order: 'DESC' | 'ASC'): string =>
      `SELECT ${DOC_COLUMNS}, s.seed FROM s JOIN search_docs d ON d.rowid IN (
         SELECT x.rowid FROM search_docs x
         WHERE x.scene_id = s.scene AND x.rowid ${op} s.seed AND x.layer = 'archive'
         ORDER BY x.rowid ${order} LIMIT :window)`;
    const rows = this.#engine
      .statement(
        // The seeds are parsed once (MATERIALIZED, `->>`), not once per side and per use.
        `WITH s AS MATERIALIZED (SELECT value ->> 0 AS scene, value ->> 1 AS seed FROM json_each(:seeds))
         ${side('<', 'DESC')} UNION ALL ${side('>', 'ASC')}`,
      )
      .raw()
      .all({
        seeds: JSON.stringify(seeds.map((seed) => [seed.sceneId, seed.rowid])),
        window,
      }) as RawDocArray[];
    for (const row of rows) {
      // The seed is the column after the document's.
      const seed = row[10] as number;
      const doc = fromArray(row);
      const list = out.get(seed);
      if (list) list.push(doc);
      else out.set(seed, [doc]);
    }
    for (const list of out.values()) list.sort((a, b) => a.rowid - b.rowid);
    return out;
  }

  /**
   * For the archive records among `ids` that can name a speaker: the speaker column, or else the
   * first `headChars` characters of the content when they hold a `:` (a `Name:` label). Records
   * with neither are left out, so a query over records without labels reads no text.
   */
  speakerHeads(ids: readonly number[], headChars: number): Map<number, { speaker?: string; head?: string }> {
    const out = new Map<number, { speaker?: string; head?: string }>();
    if (ids.length === 0) return out;
    const rows = this.#engine
      .statement(
        `SELECT id, speaker, CASE WHEN speaker IS NULL THEN substr(content, 1, :head) END AS head
         FROM archive
         WHERE id IN (SELECT value FROM json_each(:ids))
           AND (speaker IS NOT NULL OR instr(substr(content, 1, :head), ':') > 0)`,
      )
      .raw()
      .all({ ids: JSON.stringify(ids), head: headChars }) as [number, string | null, string | null][];
    for (const [id, speaker, head] of rows) {
      out.set(id, speaker !== null ? { speaker } : head !== null ? { head } : {});
    }
    return out;
  }

  /** Archive records by id (one query): what was said and by whom, for ranking by their words. */
  archiveRecords(ids: readonly number[]): Map<number, ArchiveText> {
    const out = new Map<number, ArchiveText>();
    if (ids.length === 0) return out;
    const rows = this.#engine
      .statement(
        `SELECT id, content, speaker, role, length(content) AS chars
         FROM archive WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .raw()
      .all(JSON.stringify(ids)) as [number, string, string | null, string | null, number][];
    for (const [id, content, speaker, role, chars] of rows) {
      out.set(id, { content, speaker: speaker ?? undefined, role: role ?? undefined, chars });
    }
    return out;
  }

  /** The first `limit` archive rows of a topic (a turn's records), in slot order. */
  topicRecords(topicId: string, limit: number): DocRow[] {
    const rows = this.#engine
      .statement(
        `SELECT ${DOC_COLUMNS} FROM search_docs d WHERE d.topic_id = ? AND d.layer = 'archive' ORDER BY d.rowid LIMIT ?`,
      )
      .raw()
      .all(topicId, limit) as RawDocArray[];
    return rows.map(fromArray);
  }

  /**
   * The archive rows of each of `topicIds` (the first `limitEach` written of each), ordered by
   * topic then rowid: the turns a recall context shows, read at once.
   */
  topicsRecords(topicIds: readonly string[], limitEach: number): DocRow[] {
    // One indexed read per topic through the same prepared statement: SQLite has no round trip
    // to save, and a single `topic_id IN (…)` query was planned on the (layer) index, reading
    // every archive row of the file (~1 s a recall at 1,000,000 records).
    const ids = [...new Set(topicIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return ids.flatMap((id) => this.topicRecords(id, limitEach));
  }

  /**
   * Bytes on disk (SQLite pages) of the recall index (`search_*` tables and their indexes)
   * and of the verbatim tables it is derived from, for size reports.
   */
  footprint(): { indexBytes: number; verbatimBytes: number; byTable: Record<string, number> } {
    const rows = this.#engine
      .statement('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name')
      .all() as { name: string; bytes: number }[];
    const verbatim = new Set([
      'archive',
      'nodes',
      'topics',
      'scenes',
      'lines',
      'kg_nodes',
      'kg_edges',
      'profiles',
    ]);
    let indexBytes = 0;
    let verbatimBytes = 0;
    const byTable: Record<string, number> = {};
    for (const row of rows) {
      byTable[row.name] = row.bytes;
      if (row.name.startsWith('search_') || row.name.startsWith('sqlite_autoindex_search_'))
        indexBytes += row.bytes;
      else if (verbatim.has(row.name)) verbatimBytes += row.bytes;
    }
    return { indexBytes, verbatimBytes, byTable };
  }

  /** Reads the verbatim text behind each row (rows whose record is gone are skipped). */
  resolve(docs: readonly DocRow[]): Map<number, ResolvedText> {
    const out = new Map<number, ResolvedText>();
    // Archive rows (most hits) are read in one query; the other layers one by one.
    const archive = this.#archiveRows(
      docs.filter((doc) => doc.layer === 'archive').map((doc) => Number(doc.ref)),
    );
    for (const doc of docs) {
      const resolved =
        doc.layer === 'archive' ? toArchiveText(doc, archive.get(Number(doc.ref))) : this.#resolveOne(doc);
      if (resolved) out.set(doc.rowid, resolved);
    }
    return out;
  }

  /** Archive rows by id, in one query. */
  #archiveRows(ids: readonly number[]): Map<number, ArchiveRow> {
    const out = new Map<number, ArchiveRow>();
    if (ids.length === 0) return out;
    const rows = this.#engine
      .statement(
        'SELECT id, content, role, speaker, kind, event_type FROM archive WHERE id IN (SELECT value FROM json_each(?))',
      )
      .raw()
      .all(JSON.stringify(ids)) as [number, string, string | null, string | null, string, string | null][];
    for (const [id, content, role, speaker, kind, eventType] of rows) {
      out.set(id, { content, role, speaker, kind, event_type: eventType });
    }
    return out;
  }

  #resolveOne(doc: DocRow): ResolvedText | undefined {
    switch (doc.layer) {
      case 'archive':
        return this.#resolveArchive(doc);
      case 'radial':
        return this.#resolveNode(doc);
      case 'topic':
        return this.#resolveTopic(doc);
      case 'knowledge':
        return this.#resolveKnowledge(doc);
      case 'profile':
        return this.#resolveProfile(doc);
      default:
        return undefined;
    }
  }

  #resolveArchive(doc: DocRow): ResolvedText | undefined {
    const row = this.#engine
      .statement('SELECT content, role, speaker, kind, event_type FROM archive WHERE id = ?')
      .get(Number(doc.ref)) as ArchiveRow | undefined;
    return toArchiveText(doc, row);
  }

  #resolveNode(doc: DocRow): ResolvedText | undefined {
    const row = this.#engine
      .statement(
        `SELECT n.task_label, n.conversation_summary, n.full_context, n.s_origin, n.s_brief, n.s_summary,
                n.s_detailed, l.next_seq - n.line_seq AS position
         FROM nodes n JOIN lines l ON l.agent_id = n.agent_id AND l.id = n.line_id WHERE n.id = ?`,
      )
      .get(doc.ref) as NodeTextRow | undefined;
    return row ? nodeText(doc, row) : undefined;
  }

  #resolveTopic(doc: DocRow): ResolvedText | undefined {
    const row = this.#engine
      .statement('SELECT name, keywords, outcome FROM topics WHERE id = ?')
      .get(doc.ref) as TopicTextRow | undefined;
    return row ? topicText(doc, row) : undefined;
  }

  #resolveKnowledge(doc: DocRow): ResolvedText | undefined {
    const row = this.#engine
      .statement(
        `SELECT n.title, n.type, n.content, n.observations, g.label AS graph
         FROM kg_nodes n JOIN kg_graphs g ON g.id = n.graph_id WHERE n.id = ?`,
      )
      .get(doc.ref) as KnowledgeTextRow | undefined;
    return row ? knowledgeText(doc, row) : undefined;
  }

  #resolveProfile(doc: DocRow): ResolvedText | undefined {
    const row = this.#engine
      .statement('SELECT name, role, personality, preferences FROM profiles WHERE agent_id = ?')
      .get(doc.agentId ?? Number(doc.ref)) as ProfileTextRow | undefined;
    return row ? profileText(doc, row) : undefined;
  }
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Buffer.compare(a, b) === 0;
}
