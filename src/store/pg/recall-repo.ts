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
import type { RecallRepository } from '../seam.js';
import { BM25_B, BM25_K1, bm25Idf, fitLexeme, lexemeQuery, parseMatch, phrasesQuery } from './fts.js';
import { first, fromUtf8, int, intOrNull, sqlLimit } from './pg-values.js';
import type { PgQuery } from './pg-query.js';

const DOC_COLUMNS =
  'd.rowid AS rowid, d.agent_id, d.layer, d.ref, d.part, d.line_id, d.scene_id, d.topic_id, d.created_at';

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

  constructor(db: PgQuery) {
    this.#db = db;
  }

  /** Rows FTS5 would count in its averages record: documents and tokens. */
  async #totals(): Promise<{ rows: number; tokens: number }> {
    const row = await first<{ rows: unknown; tokens: unknown }>(
      this.#db,
      'SELECT coalesce(sum(docs), 0) AS rows, coalesce(sum(tokens), 0) AS tokens FROM search_totals',
    );
    return { rows: int(row?.rows ?? 0), tokens: int(row?.tokens ?? 0) };
  }

  /**
   * Rows matching the FTS5-style expression `match` (built by `src/recall/query.ts`, never user
   * text; see {@link parseMatch}), best BM25 first, at most `limit`.
   */
  async match(match: string, filter: DocFilter, limit: number): Promise<MatchedDoc[]> {
    const phrases = parseMatch(match);
    if (phrases.length === 0) return [];
    const totals = await this.#totals();
    if (totals.rows <= 0) return [];
    const { rows: hits } = await this.#db.query<{ hits: unknown }>(
      `SELECT (SELECT count(*) FROM search_docs WHERE body @@ q::tsquery) AS hits
       FROM unnest($1::text[]) WITH ORDINALITY AS t(q, i) ORDER BY i`,
      [phrases.map((phrase) => phrasesQuery([phrase]))],
    );
    const idf = hits.map((row) => bm25Idf(totals.rows, int(row.hits)));
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
    const { rows } = await this.#db.query<RawDoc & { bm25: unknown }>(
      `WITH q (phrase, lexeme, idf, size) AS (SELECT * FROM unnest($8::int[], $9::text[], $10::float8[], $11::int[])),
       scored AS (
         SELECT d.rowid, sum((p.idf * (p.tf * $12::float8))
                  / (p.tf + $13::float8 * ($14::float8 + $15::float8 * d.body_len / $16::float8))) AS bm25
         FROM search_docs d
         CROSS JOIN LATERAL (
           SELECT q.phrase, max(q.idf) AS idf, count(*) AS n, max(q.size) AS size,
                  min(coalesce((d.heavy ->> u.lexeme)::float8, cardinality(u.positions)::float8)) AS tf
           FROM unnest(d.body) AS u JOIN q ON q.lexeme = u.lexeme
           GROUP BY q.phrase
         ) p
         WHERE d.body @@ $17::tsquery AND ${FILTER_SQL} AND p.n = p.size
         GROUP BY d.rowid
       )
       SELECT ${DOC_COLUMNS}, s.bm25 FROM scored s JOIN search_docs d ON d.rowid = s.rowid
       ORDER BY s.bm25 DESC, d.rowid LIMIT $18`,
      [
        ...filterValues(filter),
        phraseOf,
        lexemes,
        idfOf,
        sizeOf,
        BM25_K1 + 1.0,
        BM25_K1,
        1 - BM25_B,
        BM25_B,
        totals.tokens / totals.rows,
        phrasesQuery(phrases),
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
    const { rows } = await this.#db.query<RawDoc>(
      `SELECT ${DOC_COLUMNS} FROM search_docs d WHERE d.rowid = ANY($1::bigint[])`,
      [rowids.map((r) => Math.trunc(r))],
    );
    return rows.map(doc);
  }

  /** Index rows that pass `filter`, newest first (recall without query words). */
  async recent(filter: DocFilter, limit: number): Promise<DocRow[]> {
    const { rows } = await this.#db.query<RawDoc>(
      `SELECT ${DOC_COLUMNS} FROM search_docs d WHERE ${FILTER_SQL}
       ORDER BY d.created_at DESC, d.rowid DESC LIMIT $8`,
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
   * (the terms the caller will ask about), read in one statement. `frequency` answers 0 for any
   * other term, as the seam allows (a server cannot be asked synchronously).
   */
  async termStatistics(stems: readonly string[]): Promise<TermStatistics> {
    const documents = await this.approximateDocCount();
    const wanted = [...new Set(stems)].filter((t) => t.length > 0);
    const known = new Map<string, number>();
    if (wanted.length > 0) {
      const { rows } = await this.#db.query<{ term: string; count: unknown }>(
        `SELECT t.term, (SELECT count(*) FROM search_docs WHERE body @@ t.q::tsquery) AS count
         FROM unnest($1::text[], $2::text[]) AS t(term, q)`,
        [wanted, wanted.map((t) => lexemeQuery(fitLexeme(t)))],
      );
      for (const row of rows) known.set(row.term, int(row.count));
    }
    return { documents, frequency: (term) => known.get(term) ?? 0 };
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
    const { rows } = await this.#db.query<RawDoc & { seed: unknown }>(
      `SELECT s.seed, n.* FROM unnest($1::text[], $2::bigint[]) AS s(scene, seed)
       CROSS JOIN LATERAL (
         (SELECT ${DOC_COLUMNS} FROM search_docs d
            WHERE d.scene_id = s.scene AND d.rowid < s.seed AND d.layer = 'archive' ORDER BY d.rowid DESC LIMIT $3)
         UNION ALL
         (SELECT ${DOC_COLUMNS} FROM search_docs d
            WHERE d.scene_id = s.scene AND d.rowid > s.seed AND d.layer = 'archive' ORDER BY d.rowid ASC LIMIT $3)
       ) n`,
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
    const { rows } = await this.#db.query<{ id: unknown; speaker: string | null; head: string | null }>(
      `SELECT id, speaker, CASE WHEN speaker IS NULL THEN substr(content, 1, $2::int) END AS head
       FROM archive
       WHERE id = ANY($1::bigint[]) AND (speaker IS NOT NULL OR strpos(substr(content, 1, $2::int), ':') > 0)`,
      [ids.map((id) => Math.trunc(id)), Math.trunc(headChars)],
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
    const { rows } = await this.#db.query<{
      id: unknown;
      content: string;
      speaker: string | null;
      role: string | null;
      chars: unknown;
    }>(
      `SELECT id, content, speaker, role, length(content) AS chars
       FROM archive WHERE id = ANY($1::bigint[])`,
      [ids.map((id) => Math.trunc(id))],
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

  /** The first `limit` archive rows of a topic (a turn's records), in slot order. */
  async topicRecords(topicId: string, limit: number): Promise<DocRow[]> {
    const { rows } = await this.#db.query<RawDoc>(
      `SELECT ${DOC_COLUMNS} FROM search_docs d WHERE d.topic_id = $1 AND d.layer = 'archive'
       ORDER BY d.rowid LIMIT $2`,
      [topicId, sqlLimit(limit)],
    );
    return rows.map(doc);
  }

  /**
   * The archive rows of each of `topicIds` (the first `limitEach` written of each), in one
   * query, ordered by topic then rowid: the turns a recall context shows, read at once.
   */
  async topicsRecords(topicIds: readonly string[], limitEach: number): Promise<DocRow[]> {
    if (topicIds.length === 0) return [];
    const { rows } = await this.#db.query<RawDoc>(
      `SELECT ${DOC_COLUMNS} FROM (
         SELECT d.*, row_number() OVER (PARTITION BY d.topic_id ORDER BY d.rowid) AS n
         FROM search_docs d WHERE d.topic_id = ANY($1::text[]) AND d.layer = 'archive'
       ) d WHERE d.n <= $2 ORDER BY d.topic_id COLLATE "C", d.rowid`,
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

  /** Reads the verbatim text behind each row (rows whose record is gone are skipped). */
  async resolve(docs: readonly DocRow[]): Promise<Map<number, ResolvedText>> {
    const out = new Map<number, ResolvedText>();
    const archive = await this.#archiveRows(
      docs.filter((d) => d.layer === 'archive').map((d) => Number(d.ref)),
    );
    for (const one of docs) {
      const resolved =
        one.layer === 'archive'
          ? toArchiveText(one, archive.get(Number(one.ref)))
          : await this.#resolveOne(one);
      if (resolved) out.set(one.rowid, resolved);
    }
    return out;
  }

  async #archiveRows(ids: readonly number[]): Promise<Map<number, ArchiveRow>> {
    const out = new Map<number, ArchiveRow>();
    const valid = ids.filter((id) => Number.isSafeInteger(id));
    if (valid.length === 0) return out;
    const { rows } = await this.#db.query<ArchiveRow & { id: unknown }>(
      'SELECT id, content, role, speaker, kind, event_type FROM archive WHERE id = ANY($1::bigint[])',
      [valid],
    );
    for (const row of rows) out.set(int(row.id), row);
    return out;
  }

  async #resolveOne(one: DocRow): Promise<ResolvedText | undefined> {
    switch (one.layer) {
      case 'radial': {
        const row = await first<Omit<NodeTextRow, 'full_context'> & { full_context: unknown }>(
          this.#db,
          `SELECT n.task_label, n.conversation_summary, n.full_context, n.s_origin, n.s_brief, n.s_summary,
                  n.s_detailed, l.next_seq - n.line_seq AS position
           FROM nodes n JOIN lines l ON l.agent_id = n.agent_id AND l.id = n.line_id WHERE n.id = $1`,
          [one.ref],
        );
        return row
          ? nodeText(one, { ...row, full_context: fromUtf8(row.full_context), position: int(row.position) })
          : undefined;
      }
      case 'topic': {
        const row = await first<TopicTextRow>(
          this.#db,
          'SELECT name, keywords, outcome FROM topics WHERE id = $1',
          [one.ref],
        );
        return row ? topicText(one, row) : undefined;
      }
      case 'knowledge': {
        const row = await first<KnowledgeTextRow>(
          this.#db,
          `SELECT n.title, n.type, n.content, n.observations, g.label AS graph
           FROM kg_nodes n JOIN kg_graphs g ON g.id = n.graph_id WHERE n.id = $1`,
          [one.ref],
        );
        return row ? knowledgeText(one, row) : undefined;
      }
      case 'profile': {
        const agent = one.agentId ?? Number(one.ref);
        if (!Number.isSafeInteger(agent)) return undefined;
        const row = await first<ProfileTextRow>(
          this.#db,
          'SELECT name, role, personality, preferences FROM profiles WHERE agent_id = $1',
          [agent],
        );
        return row ? profileText(one, row) : undefined;
      }
      default:
        return undefined;
    }
  }
}
