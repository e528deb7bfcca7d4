import type {
  ArchiveText,
  DocFilter,
  DocRow,
  MatchedDoc,
  ResolvedText,
  TermStatistics,
} from '../recall-repo.js';
import {
  knowledgeText,
  nodeText,
  profileText,
  toArchiveText,
  toDoc,
  topicText,
  type ArchiveRow,
  type KnowledgeTextRow,
  type NodeTextRow,
  type ProfileTextRow,
  type RawDoc,
  type TopicTextRow,
} from '../recall-rows.js';
import { sliceCodePoints } from '../../core/text.js';
import type { RecallRepository } from '../seam.js';
import { BM25_B, BM25_K1, bm25Idf, fitLexeme, lexemeQuery, parseMatch, phrasesQuery } from './fts.js';
import { first, fromUtf8, int, intOrNull, sqlLimit } from './pg-values.js';
import type { PgQuery } from './pg-query.js';

const DOC_COLUMNS =
  'd.rowid AS rowid, d.agent_id, d.layer, d.ref, d.part, d.line_id, d.scene_id, d.topic_id, d.created_at';

/**
 * Code points of an archive record's content sent along with the index rows that name it, in
 * a read snapshot (longer contents are read when asked for): enough for the utterances recall
 * ranks and shows, bounded for tool output.
 */
const KEPT_CONTENT_CHARS = 2000;
/** Code points of a record's head sent along with it, for speaker labels (`Name: …`). */
const KEPT_HEAD_CHARS = 256;

/**
 * `query` (index rows as `d`-less columns, ordered by `order`) with the columns of the archive
 * record behind each archive row: who, what kind, its length, its content when it is at most
 * {@link KEPT_CONTENT_CHARS} long, and its head.
 */
function withArchive(query: string, order: string): string {
  return `SELECT x.*, a.id AS a_id, a.role AS a_role, a.speaker AS a_speaker, a.kind AS a_kind,
            a.event_type AS a_event_type, length(a.content) AS a_chars,
            CASE WHEN length(a.content) <= ${KEPT_CONTENT_CHARS} THEN a.content END AS a_content,
            substr(a.content, 1, ${KEPT_HEAD_CHARS}) AS a_head
          FROM (${query}) x
          LEFT JOIN archive a ON a.id = CASE WHEN x.layer = 'archive' THEN x.ref::bigint END
          ORDER BY ${order}`;
}

/** The archive columns {@link withArchive} adds (absent from rows that are not archive records). */
interface KeptColumns {
  a_id?: unknown;
  a_role?: string | null;
  a_speaker?: string | null;
  a_kind?: string;
  a_event_type?: string | null;
  a_chars?: unknown;
  a_content?: string | null;
  a_head?: string | null;
}

/** What a read snapshot knows of an archive record (its content only when it was sent whole). */
interface KeptRecord {
  readonly role: string | null;
  readonly speaker: string | null;
  readonly kind: string;
  readonly eventType: string | null;
  readonly chars: number;
  readonly content: string | null;
  readonly head: string;
}

/**
 * The provenance filter, with its values at $1..$7 (an absent filter is bound as NULL).
 * Time bounds compare as double precision, so a fractional bound behaves as in SQLite.
 */
const FILTER_SQL = `(d.agent_id = $1 OR d.agent_id IS NULL)
  AND ($2::text[] IS NULL OR d.layer = ANY($2::text[]))
  AND ($3::text IS NULL OR d.line_id = $3)
  AND ($4::text IS NULL OR d.scene_id = $4)
  AND ($5::text IS NULL OR d.topic_id = $5)
  AND ($6::float8 IS NULL OR d.created_at >= $6::float8)
  AND ($7::float8 IS NULL OR d.created_at < $7::float8)`;

function filterValues(filter: DocFilter): unknown[] {
  return [
    filter.agentId,
    filter.layers && filter.layers.length > 0 ? [...filter.layers] : null,
    filter.lineId ?? null,
    filter.sceneId ?? null,
    filter.topicId ?? null,
    filter.from ?? null,
    filter.to ?? null,
  ];
}

function doc(row: RawDoc): DocRow {
  return toDoc({
    ...row,
    rowid: int(row.rowid),
    agent_id: intOrNull(row.agent_id),
    created_at: int(row.created_at),
  });
}

/** The phrase table of a general match: each lexeme with its phrase's index, IDF and size. */
function phraseColumns(phrases: readonly (readonly string[])[], idf: readonly number[]): unknown[] {
  const phraseOf: number[] = [];
  const lexemes: string[] = [];
  const idfOf: number[] = [];
  const sizeOf: number[] = [];
  phrases.forEach((phrase, i) => {
    for (const lexeme of phrase) {
      phraseOf.push(i);
      lexemes.push(lexeme);
      idfOf.push(idf[i] ?? 1e-6);
      sizeOf.push(phrase.length);
    }
  });
  return [phraseOf, lexemes, idfOf, sizeOf];
}

/** Relations whose bytes are verbatim records (the rest of `search_*` is the derived index). */
const VERBATIM = new Set([
  'archive',
  'nodes',
  'topics',
  'scenes',
  'lines',
  'kg_nodes',
  'kg_edges',
  'profiles',
]);

/** Lexemes whose counts a {@link TermCounts} keeps at most (then it starts afresh). */
const TERM_COUNTS_SIZE = 20_000;

/**
 * Document counts of lexemes kept across the reads of one store (one memory) for as long as
 * nothing changed: they belong to one snapshot (`pg_current_snapshot()`, its xmin, xmax and
 * in-progress transactions), and a read whose snapshot is the same sees the same rows, so their
 * counts are the same. Any commit that took a transaction id anywhere on the server makes a new
 * snapshot and so a fresh cache: it pays in bursts of reads (a server answering recall after
 * recall), as SQLite's cache does until the file changes, and costs nothing otherwise.
 */
export class TermCounts {
  snapshot: string | undefined;
  readonly counts = new Map<string, { readonly count: number; readonly exact: boolean }>();

  /** The counts of `snapshot`, emptied when it is another one. */
  at(snapshot: string): Map<string, { readonly count: number; readonly exact: boolean }> {
    if (this.snapshot !== snapshot || this.counts.size >= TERM_COUNTS_SIZE) {
      this.snapshot = snapshot;
      this.counts.clear();
    }
    return this.counts;
  }
}

/**
 * The read side of the recall index on PostgreSQL (SQLite: src/store/recall-repo.ts), with the
 * same calls and results. Candidates come from the GIN index on `search_docs.body`; each is
 * scored in SQL with FTS5's BM25 (k1 = 1.2, b = 0.75, FTS5's IDF floored at 1e-6, its row and
 * token totals from `search_totals`), so the ranking in `src/recall/` receives the same scores
 * as from SQLite (up to the last bits of a floating-point sum). Ties in score are broken by
 * rowid here; FTS5's order among equal scores is not defined.
 */
export class PgRecallRepo implements RecallRepository {
  readonly #db: PgQuery;
  readonly #shared: TermCounts | undefined;
  /** True in a read snapshot: archive records read once are kept for the rest of it. */
  readonly #snapshot: boolean;
  /** Archive records sent along with index rows in this snapshot, by id (see {@link withArchive}). */
  readonly #kept = new Map<number, KeptRecord>();

  /**
   * `shared`: counts kept across this store's reads (see {@link TermCounts}); none: this
   * transaction's only. `snapshot`: the transaction is one read snapshot (`REPEATABLE READ READ
   * ONLY`), so a row read once reads the same for the rest of it: the index rows of a match, a
   * turn or a neighbourhood come with their archive records, and ranking's and the context's
   * later reads of those records (their words, speakers, texts) are answered without asking
   * the server again.
   */
  constructor(db: PgQuery, shared?: TermCounts, snapshot = false) {
    this.#db = db;
    this.#shared = shared;
    this.#snapshot = snapshot;
  }

  /**
   * Runs `query` (index rows ordered by `order`, in terms of its output columns as `x.…`); in a
   * snapshot, with the archive records behind its rows, which are kept.
   */
  async #docRows<R extends RawDoc>(query: string, order: string, values: readonly unknown[]): Promise<R[]> {
    if (!this.#snapshot) return (await this.#db.query<R>(query, values)).rows;
    const { rows } = await this.#db.query<R & KeptColumns>(withArchive(query, order), values);
    for (const row of rows) {
      if (row.a_id === null || row.a_id === undefined) continue;
      this.#kept.set(int(row.a_id), {
        role: row.a_role ?? null,
        speaker: row.a_speaker ?? null,
        kind: row.a_kind ?? 'utterance',
        eventType: row.a_event_type ?? null,
        chars: int(row.a_chars ?? 0),
        content: row.a_content ?? null,
        head: row.a_head ?? '',
      });
    }
    return rows;
  }

  /** The kept record `id` with its whole content, if this snapshot has it. */
  #keptWhole(id: number): (KeptRecord & { readonly content: string }) | undefined {
    const kept = this.#kept.get(id);
    return kept && kept.content !== null ? (kept as KeptRecord & { readonly content: string }) : undefined;
  }

  /**
   * What this transaction has counted so far: the index's totals, its largest rowid, and each
   * lexeme's document count (`exact` false when counting stopped at a cap). Reused only when
   * the transaction is one snapshot that cannot change under it (a `REPEATABLE READ READ ONLY`
   * read, as every `store.read` is); in a write each call counts afresh.
   */
  #stable = false;
  #known: { readonly rows: number; readonly tokens: number; readonly maxRowid: number } | undefined;
  readonly #counts = new Map<string, { readonly count: number; readonly exact: boolean }>();

  /**
   * The totals, the largest rowid and the document counts of `lexemes` (each counted up to
   * `atMost + 1` rows when `atMost` is given), in one statement; cached for the snapshot.
   */
  async #statistics(
    lexemes: readonly string[],
    atMost?: number,
  ): Promise<{ rows: number; tokens: number; maxRowid: number; counts: Map<string, number> }> {
    const counts = new Map<string, number>();
    const wanted: string[] = [];
    for (const lexeme of new Set(lexemes)) {
      const cached = this.#stable ? this.#counts.get(lexeme) : undefined;
      if (cached && (cached.exact || (atMost !== undefined && cached.count > atMost)))
        counts.set(lexeme, cached.count);
      else wanted.push(lexeme);
    }
    if (this.#stable && this.#known && wanted.length === 0) return { ...this.#known, counts };
    const cap = atMost === undefined ? null : Math.max(0, Math.floor(atMost)) + 1;
    // Counts kept from an earlier read are sent back unless its snapshot is this one's.
    const shared = this.#shared?.snapshot === undefined ? undefined : this.#shared;
    const kept = wanted.map((lexeme) => {
      const entry = shared?.counts.get(lexeme);
      return entry && (entry.exact || (cap !== null && entry.count >= cap)) ? entry.count : null;
    });
    const row = await first<{
      rows: unknown;
      tokens: unknown;
      max: unknown;
      stable: boolean;
      snapshot: string;
      counts: unknown[];
    }>(
      this.#db,
      `WITH s AS MATERIALIZED (
         SELECT pg_current_snapshot()::text AS snapshot,
                current_setting('transaction_read_only') = 'on'
                  AND current_setting('transaction_isolation') IN ('repeatable read', 'serializable') AS stable)
       SELECT (SELECT coalesce(sum(docs), 0) FROM search_totals) AS rows,
              (SELECT coalesce(sum(tokens), 0) FROM search_totals) AS tokens,
              (SELECT max(rowid) FROM search_docs) AS max,
              s.stable, s.snapshot,
              ARRAY(SELECT CASE WHEN t.kept IS NOT NULL AND s.stable AND s.snapshot = $4 THEN t.kept
                           ELSE (SELECT count(*) FROM (SELECT 1 FROM search_docs WHERE body @@ t.q::tsquery LIMIT $2) c) END
                    FROM unnest($1::text[], $3::bigint[]) WITH ORDINALITY AS t(q, kept, i) ORDER BY t.i) AS counts
       FROM s`,
      [wanted.map(lexemeQuery), cap, kept, shared?.snapshot ?? null],
    );
    const known = {
      rows: int(row?.rows ?? 0),
      tokens: int(row?.tokens ?? 0),
      maxRowid: intOrNull(row?.max ?? null) ?? 0,
    };
    this.#stable = row?.stable === true;
    if (this.#stable) this.#known = known;
    const reused = this.#stable && shared !== undefined && row?.snapshot === shared.snapshot;
    const keptExact = wanted.map((lexeme) => shared?.counts.get(lexeme)?.exact ?? false);
    const keep = this.#stable && row ? this.#shared?.at(row.snapshot) : undefined;
    wanted.forEach((lexeme, i) => {
      const count = int(row?.counts[i] ?? 0);
      counts.set(lexeme, count);
      if (!this.#stable) return;
      const exact = reused && kept[i] !== null ? (keptExact[i] ?? false) : cap === null || count < cap;
      const entry = { count, exact };
      this.#counts.set(lexeme, entry);
      keep?.set(lexeme, entry);
    });
    return { ...known, counts };
  }

  /**
   * Rows matching the FTS5-style expression `match` (built by `src/recall/query.ts`, never user
   * text; see {@link parseMatch}), best BM25 first, at most `limit`. Two statements at most:
   * the phrases' document counts and the totals (none when this snapshot counted them already,
   * as {@link termStatistics} does for the words recall searches), then the scoring, which
   * reads the matching rows once and looks at each row's query lexemes only (`setweight` marks
   * them, `ts_filter` keeps them, so a row's other words are never unnested).
   */
  async match(match: string, filter: DocFilter, limit: number): Promise<MatchedDoc[]> {
    const phrases = parseMatch(match);
    if (phrases.length === 0) return [];
    const single = phrases.every((phrase) => phrase.length === 1);
    const cached = single && this.#stable && this.#known !== undefined;
    let hits: number[];
    let totals: { rows: number; tokens: number };
    const exact = (lexeme: string): number | undefined => {
      const entry = this.#counts.get(lexeme);
      return entry?.exact ? entry.count : undefined;
    };
    if (cached && phrases.every((phrase) => exact(phrase[0] as string) !== undefined)) {
      hits = phrases.map((phrase) => exact(phrase[0] as string) as number);
      totals = this.#known as { rows: number; tokens: number };
    } else if (single) {
      const statistics = await this.#statistics(phrases.map((phrase) => phrase[0] as string));
      hits = phrases.map((phrase) => statistics.counts.get(phrase[0] as string) ?? 0);
      totals = statistics;
    } else {
      const row = await first<{ rows: unknown; tokens: unknown; hits: unknown[] }>(
        this.#db,
        `SELECT (SELECT coalesce(sum(docs), 0) FROM search_totals) AS rows,
                (SELECT coalesce(sum(tokens), 0) FROM search_totals) AS tokens,
                ARRAY(SELECT (SELECT count(*) FROM search_docs WHERE body @@ t.q::tsquery)
                      FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i) ORDER BY t.i) AS hits`,
        [phrases.map((phrase) => phrasesQuery([phrase]))],
      );
      totals = { rows: int(row?.rows ?? 0), tokens: int(row?.tokens ?? 0) };
      hits = phrases.map((_, i) => int(row?.hits[i] ?? 0));
    }
    if (totals.rows <= 0) return [];
    const idf = hits.map((count) => bm25Idf(totals.rows, count));
    const constants = [BM25_K1 + 1.0, BM25_K1, 1 - BM25_B, BM25_B, totals.tokens / totals.rows];
    const all = [...new Set(phrases.flat())];
    // A lexeme named by several phrases counts once per phrase, as in FTS5's sum.
    const idfOfLexeme = new Map<string, number>();
    if (single)
      phrases.forEach((phrase, i) => {
        const lexeme = phrase[0] as string;
        idfOfLexeme.set(lexeme, (idfOfLexeme.get(lexeme) ?? 0) + (idf[i] ?? 1e-6));
      });
    const rows = single
      ? await this.#docRows<RawDoc & { bm25: unknown }>(
          `SELECT * FROM (
             SELECT ${DOC_COLUMNS},
               (SELECT sum(($10::float8[])[array_position($9::text[], u.lexeme)] * (f.tf * $11::float8)
                         / (f.tf + $12::float8 * ($13::float8 + $14::float8 * d.body_len / $15::float8)))
                FROM unnest(ts_filter(setweight(d.body, 'A', $9::text[]), '{a}')) AS u
                CROSS JOIN LATERAL (SELECT coalesce((d.heavy ->> u.lexeme)::float8, cardinality(u.positions)::float8) AS tf) f
               ) AS bm25
             FROM search_docs d
             WHERE d.body @@ $8::tsquery AND ${FILTER_SQL}) s
           ORDER BY s.bm25 DESC, s.rowid LIMIT $16`,
          'x.bm25 DESC, x.rowid',
          [
            ...filterValues(filter),
            phrasesQuery(phrases),
            [...idfOfLexeme.keys()],
            [...idfOfLexeme.values()],
            ...constants,
            sqlLimit(limit),
          ],
        )
      : await this.#docRows<RawDoc & { bm25: unknown }>(
          `WITH q (phrase, lexeme, idf, size) AS (SELECT * FROM unnest($9::int[], $10::text[], $11::float8[], $12::int[]))
           SELECT * FROM (
             SELECT ${DOC_COLUMNS},
               (SELECT sum((p.idf * (p.tf * $14::float8))
                         / (p.tf + $15::float8 * ($16::float8 + $17::float8 * d.body_len / $18::float8)))
                FROM (SELECT max(q.idf) AS idf, count(*) AS n, max(q.size) AS size,
                             min(coalesce((d.heavy ->> u.lexeme)::float8, cardinality(u.positions)::float8)) AS tf
                      FROM unnest(ts_filter(setweight(d.body, 'A', $13::text[]), '{a}')) AS u
                      JOIN q ON q.lexeme = u.lexeme
                      GROUP BY q.phrase) p
                WHERE p.n = p.size) AS bm25
             FROM search_docs d
             WHERE d.body @@ $8::tsquery AND ${FILTER_SQL}) s
           WHERE s.bm25 IS NOT NULL
           ORDER BY s.bm25 DESC, s.rowid LIMIT $19`,
          'x.bm25 DESC, x.rowid',
          [
            ...filterValues(filter),
            phrasesQuery(phrases),
            ...phraseColumns(phrases, idf),
            all,
            ...constants,
            sqlLimit(limit),
          ],
        );
    return rows.map((row) => ({ ...doc(row), bm25: Number(row.bm25 ?? 0) }));
  }

  /**
   * The bare full-text floor: rowids matching `match`, best first by PostgreSQL's own
   * `ts_rank` (benchmarks compare against it, as SQLite's compares against FTS5's `rank`).
   */
  async matchBare(match: string, limit: number): Promise<number[]> {
    const phrases = parseMatch(match);
    if (phrases.length === 0) return [];
    const { rows } = await this.#db.query<{ rowid: unknown }>(
      `SELECT rowid FROM search_docs WHERE body @@ $1::tsquery
       ORDER BY ts_rank(body, $1::tsquery) DESC LIMIT $2`,
      [phrasesQuery(phrases), sqlLimit(limit)],
    );
    return rows.map((row) => int(row.rowid));
  }

  /** Index rows by rowid (in no particular order; missing rowids are skipped). */
  async docs(rowids: readonly number[]): Promise<DocRow[]> {
    if (rowids.length === 0) return [];
    const rows = await this.#docRows<RawDoc>(
      `SELECT ${DOC_COLUMNS} FROM search_docs d WHERE d.rowid = ANY($1::bigint[])`,
      'x.rowid',
      [rowids.map((r) => Math.trunc(r))],
    );
    return rows.map(doc);
  }

  /** Index rows that pass `filter`, newest first (recall without query words). */
  async recent(filter: DocFilter, limit: number): Promise<DocRow[]> {
    const rows = await this.#docRows<RawDoc>(
      `SELECT ${DOC_COLUMNS} FROM search_docs d WHERE ${FILTER_SQL}
       ORDER BY d.created_at DESC, d.rowid DESC LIMIT $8`,
      'x.created_at DESC, x.rowid DESC',
      [...filterValues(filter), sqlLimit(limit)],
    );
    return rows.map(doc);
  }

  /** How many index rows hold `term` (a stemmed token, as FTS5's vocabulary holds it); 0 when none. */
  async documentFrequency(term: string): Promise<number> {
    if (term.length === 0) return 0;
    const row = await first<{ count: unknown }>(
      this.#db,
      'SELECT count(*) AS count FROM search_docs WHERE body @@ $1::tsquery',
      [lexemeQuery(fitLexeme(term))],
    );
    return int(row?.count ?? 0);
  }

  /**
   * Term statistics for ranking: the document count, and the document frequencies of `stems`
   * (the terms the caller will ask about), read in one statement with the index totals, and kept
   * for the rest of the snapshot (a later {@link match} of the same words counts nothing again).
   * With `atMost`, a frequency above it may be reported as any number above it (counting stops
   * at `atMost + 1`, so a common word costs no more than a rare one). `frequency` answers 0 for any other term, as
   * the seam allows (a server cannot be asked synchronously).
   */
  async termStatistics(stems: readonly string[], atMost?: number): Promise<TermStatistics> {
    const wanted = [...new Set(stems)].filter((t) => t.length > 0);
    const lexemeOfStem = new Map(wanted.map((t) => [t, fitLexeme(t)]));
    const statistics = await this.#statistics([...lexemeOfStem.values()], atMost);
    const known = new Map<string, number>();
    for (const [term, lexeme] of lexemeOfStem) known.set(term, statistics.counts.get(lexeme) ?? 0);
    return { documents: statistics.maxRowid, frequency: (term) => known.get(term) ?? 0 };
  }

  /** An upper estimate of the number of index rows, in constant time (the largest rowid). */
  async approximateDocCount(): Promise<number> {
    const row = await first<{ max: unknown }>(this.#db, 'SELECT max(rowid) AS max FROM search_docs');
    return intOrNull(row?.max ?? null) ?? 0;
  }

  /**
   * The neighbours of many rows in one query (insertion order is conversation order): for each
   * seed (a row and its scene), the archive rows of its scene just before and after it, at most
   * `window` on each side, in rowid order. Seeds without neighbours are absent from the result.
   */
  async sceneNeighboursOf(
    seeds: readonly { readonly rowid: number; readonly sceneId: string }[],
    window: number,
  ): Promise<Map<number, DocRow[]>> {
    const out = new Map<number, DocRow[]>();
    if (seeds.length === 0 || window <= 0) return out;
    const rows = await this.#docRows<RawDoc & { seed: unknown }>(
      `SELECT s.seed, n.* FROM unnest($1::text[], $2::bigint[]) AS s(scene, seed)
       CROSS JOIN LATERAL (
         (SELECT ${DOC_COLUMNS} FROM search_docs d
            WHERE d.scene_id = s.scene AND d.rowid < s.seed AND d.layer = 'archive' ORDER BY d.rowid DESC LIMIT $3)
         UNION ALL
         (SELECT ${DOC_COLUMNS} FROM search_docs d
            WHERE d.scene_id = s.scene AND d.rowid > s.seed AND d.layer = 'archive' ORDER BY d.rowid ASC LIMIT $3)
       ) n`,
      'x.seed, x.rowid',
      [seeds.map((seed) => seed.sceneId), seeds.map((seed) => Math.trunc(seed.rowid)), sqlLimit(window)],
    );
    for (const row of rows) {
      const seed = int(row.seed);
      const list = out.get(seed) ?? [];
      list.push(doc(row));
      out.set(seed, list);
    }
    for (const list of out.values()) list.sort((x, y) => x.rowid - y.rowid);
    return out;
  }

  /**
   * For the archive records among `ids` that can name a speaker: the speaker column, or else the
   * first `headChars` characters (code points) of the content when they hold a `:`.
   */
  async speakerHeads(
    ids: readonly number[],
    headChars: number,
  ): Promise<Map<number, { speaker?: string; head?: string }>> {
    const out = new Map<number, { speaker?: string; head?: string }>();
    if (ids.length === 0) return out;
    const chars = Math.trunc(headChars);
    const missing: number[] = [];
    for (const id of ids.map((value) => Math.trunc(value))) {
      const kept = chars <= KEPT_HEAD_CHARS ? this.#kept.get(id) : undefined;
      if (!kept) missing.push(id);
      else if (kept.speaker !== null) out.set(id, { speaker: kept.speaker });
      else {
        const head = sliceCodePoints(kept.head, chars);
        if (head.includes(':')) out.set(id, { head });
      }
    }
    if (missing.length === 0) return out;
    const { rows } = await this.#db.query<{ id: unknown; speaker: string | null; head: string | null }>(
      `SELECT id, speaker, CASE WHEN speaker IS NULL THEN substr(content, 1, $2::int) END AS head
       FROM archive
       WHERE id = ANY($1::bigint[]) AND (speaker IS NOT NULL OR strpos(substr(content, 1, $2::int), ':') > 0)`,
      [missing, chars],
    );
    for (const row of rows) {
      out.set(
        int(row.id),
        row.speaker !== null ? { speaker: row.speaker } : row.head !== null ? { head: row.head } : {},
      );
    }
    return out;
  }

  /** Archive records by id (one query): what was said and by whom, for ranking by their words. */
  async archiveRecords(ids: readonly number[]): Promise<Map<number, ArchiveText>> {
    const out = new Map<number, ArchiveText>();
    if (ids.length === 0) return out;
    const missing: number[] = [];
    for (const id of ids.map((value) => Math.trunc(value))) {
      const kept = this.#keptWhole(id);
      if (!kept) missing.push(id);
      else
        out.set(id, {
          content: kept.content,
          speaker: kept.speaker ?? undefined,
          role: kept.role ?? undefined,
          chars: kept.chars,
        });
    }
    if (missing.length === 0) return out;
    const { rows } = await this.#db.query<{
      id: unknown;
      content: string;
      speaker: string | null;
      role: string | null;
      chars: unknown;
    }>(
      `SELECT id, content, speaker, role, length(content) AS chars
       FROM archive WHERE id = ANY($1::bigint[])`,
      [missing],
    );
    for (const row of rows) {
      out.set(int(row.id), {
        content: row.content,
        speaker: row.speaker ?? undefined,
        role: row.role ?? undefined,
        chars: int(row.chars),
      });
    }
    return out;
  }

  /**
   * The first `limit` archive rows of a topic (a turn's records), in slot order. The topic is
   * named as a range of one value, so that the `(topic_id, rowid)` index gives the order: with
   * `topic_id = $1` the planner may walk the primary key in rowid order instead, filtering every
   * row before the topic's (a late turn of a large memory: O(rows) instead of O(limit)).
   */
  async topicRecords(topicId: string, limit: number): Promise<DocRow[]> {
    const rows = await this.#docRows<RawDoc>(
      `SELECT ${DOC_COLUMNS} FROM search_docs d
       WHERE d.topic_id >= $1 AND d.topic_id <= $1 AND d.layer = 'archive'
       ORDER BY d.topic_id, d.rowid LIMIT $2`,
      'x.rowid',
      [topicId, sqlLimit(limit)],
    );
    return rows.map(doc);
  }

  /**
   * The archive rows of each of `topicIds` (the first `limitEach` written of each), in one
   * query, ordered by topic then rowid: the turns a recall context shows, read at once. Each
   * topic is a walk of the `(topic_id, rowid)` index that stops after `limitEach` rows (named as
   * a range of one value, as in {@link topicRecords}); numbering every row of the topics and
   * keeping the first ones read all of each turn (~80 ms for turns of 5,000 records).
   */
  async topicsRecords(topicIds: readonly string[], limitEach: number): Promise<DocRow[]> {
    if (topicIds.length === 0) return [];
    const rows = await this.#docRows<RawDoc>(
      `SELECT n.* FROM unnest($1::text[]) AS t(topic)
       CROSS JOIN LATERAL (
         SELECT ${DOC_COLUMNS} FROM search_docs d
         WHERE d.topic_id >= t.topic AND d.topic_id <= t.topic AND d.layer = 'archive'
         ORDER BY d.topic_id, d.rowid LIMIT $2
       ) n
       ORDER BY n.topic_id COLLATE "C", n.rowid`,
      'x.topic_id COLLATE "C", x.rowid',
      [[...new Set(topicIds)], sqlLimit(limitEach)],
    );
    return rows.map(doc);
  }

  /**
   * Bytes on disk of the recall index (`search_*` relations) and of the verbatim tables, for
   * size reports: each table with its TOAST data, each index on its own (SQLite counts pages
   * of each b-tree alike). Relations of the memory's schema only.
   */
  async footprint(): Promise<{ indexBytes: number; verbatimBytes: number; byTable: Record<string, number> }> {
    const { rows } = await this.#db.query<{ name: string; bytes: unknown }>(
      `SELECT c.relname AS name,
              CASE WHEN c.relkind = 'i' THEN pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i', 'm', 'p')`,
    );
    let indexBytes = 0;
    let verbatimBytes = 0;
    const byTable: Record<string, number> = {};
    for (const row of rows) {
      const bytes = int(row.bytes);
      byTable[row.name] = bytes;
      if (row.name.startsWith('search_')) indexBytes += bytes;
      else if (VERBATIM.has(row.name)) verbatimBytes += bytes;
    }
    return { indexBytes, verbatimBytes, byTable };
  }

  /**
   * Reads the verbatim text behind each row (rows whose record is gone are skipped): one
   * statement per layer present, sent together (the connection pipelines them, so they cost
   * one round trip); archive records this snapshot holds already are not read again.
   */
  async resolve(docs: readonly DocRow[]): Promise<Map<number, ResolvedText>> {
    const refs = (layer: string): string[] => [
      ...new Set(docs.filter((d) => d.layer === layer).map((d) => d.ref)),
    ];
    const profileAgents = [
      ...new Set(
        docs
          .filter((d) => d.layer === 'profile')
          .map((d) => d.agentId ?? Number(d.ref))
          .filter((agent) => Number.isSafeInteger(agent)),
      ),
    ];
    const [archive, nodes, topics, knowledge, profiles] = await Promise.all([
      this.#archiveRows(refs('archive').map(Number)),
      this.#nodeRows(refs('radial')),
      this.#byKey<TopicTextRow>(
        'SELECT id AS key, name, keywords, outcome FROM topics WHERE id = ANY($1::text[])',
        refs('topic'),
      ),
      this.#byKey<KnowledgeTextRow>(
        `SELECT n.id AS key, n.title, n.type, n.content, n.observations, g.label AS graph
         FROM kg_nodes n JOIN kg_graphs g ON g.id = n.graph_id WHERE n.id = ANY($1::text[])`,
        refs('knowledge'),
      ),
      this.#byKey<ProfileTextRow>(
        'SELECT agent_id::text AS key, name, role, personality, preferences FROM profiles WHERE agent_id = ANY($1::bigint[])',
        profileAgents,
      ),
    ]);
    const out = new Map<number, ResolvedText>();
    for (const one of docs) {
      const resolved = this.#resolved(one, archive, nodes, topics, knowledge, profiles);
      if (resolved) out.set(one.rowid, resolved);
    }
    return out;
  }

  #resolved(
    one: DocRow,
    archive: ReadonlyMap<number, ArchiveRow>,
    nodes: ReadonlyMap<string, NodeTextRow>,
    topics: ReadonlyMap<string, TopicTextRow>,
    knowledge: ReadonlyMap<string, KnowledgeTextRow>,
    profiles: ReadonlyMap<string, ProfileTextRow>,
  ): ResolvedText | undefined {
    switch (one.layer) {
      case 'archive':
        return toArchiveText(one, archive.get(Number(one.ref)));
      case 'radial': {
        const row = nodes.get(one.ref);
        return row ? nodeText(one, row) : undefined;
      }
      case 'topic': {
        const row = topics.get(one.ref);
        return row ? topicText(one, row) : undefined;
      }
      case 'knowledge': {
        const row = knowledge.get(one.ref);
        return row ? knowledgeText(one, row) : undefined;
      }
      case 'profile': {
        const agent = one.agentId ?? Number(one.ref);
        const row = Number.isSafeInteger(agent) ? profiles.get(String(agent)) : undefined;
        return row ? profileText(one, row) : undefined;
      }
      default:
        return undefined;
    }
  }

  /** Rows of one statement keyed by its `key` column; no statement when there are no keys. */
  async #byKey<R extends object>(sql: string, keys: readonly unknown[]): Promise<Map<string, R>> {
    const out = new Map<string, R>();
    if (keys.length === 0) return out;
    const { rows } = await this.#db.query<R & { key: unknown }>(sql, [keys]);
    for (const row of rows) out.set(String(row.key), row);
    return out;
  }

  async #nodeRows(ids: readonly string[]): Promise<Map<string, NodeTextRow>> {
    const rows = await this.#byKey<Omit<NodeTextRow, 'full_context'> & { full_context: unknown }>(
      `SELECT n.id AS key, n.task_label, n.conversation_summary, n.full_context, n.s_origin, n.s_brief, n.s_summary,
              n.s_detailed, l.next_seq - n.line_seq AS position
       FROM nodes n JOIN lines l ON l.agent_id = n.agent_id AND l.id = n.line_id WHERE n.id = ANY($1::text[])`,
      ids,
    );
    const out = new Map<string, NodeTextRow>();
    for (const [id, row] of rows)
      out.set(id, { ...row, full_context: fromUtf8(row.full_context), position: int(row.position) });
    return out;
  }

  /** Archive records by id: those this snapshot holds whole, and one statement for the others. */
  async #archiveRows(ids: readonly number[]): Promise<Map<number, ArchiveRow>> {
    const out = new Map<number, ArchiveRow>();
    const missing: number[] = [];
    for (const id of ids.filter((value) => Number.isSafeInteger(value))) {
      const kept = this.#keptWhole(id);
      if (!kept) missing.push(id);
      else
        out.set(id, {
          content: kept.content,
          role: kept.role,
          speaker: kept.speaker,
          kind: kept.kind,
          event_type: kept.eventType,
        });
    }
    if (missing.length === 0) return out;
    const { rows } = await this.#db.query<ArchiveRow & { id: unknown }>(
      'SELECT id, content, role, speaker, kind, event_type FROM archive WHERE id = ANY($1::bigint[])',
      [missing],
    );
    for (const row of rows) out.set(int(row.id), row);
    return out;
  }
}
