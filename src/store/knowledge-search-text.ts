import { NODE_COLUMNS, toNode, type KnowledgeNodeFields, type RawNode } from './knowledge-rows.js';
import type { SqlStatement } from './sql-database.js';

/**
 * The substring index of knowledge nodes (`kg_node_text`, SQLite): a contentless FTS5 table
 * with the trigram tokenizer, case-sensitive, over each node's text fields lower-cased by
 * JavaScript (`toLowerCase`, each field and list element on its own), so that a phrase query
 * of a lower-cased needle finds exactly the rows a JavaScript `toLowerCase().includes()` test
 * accepts, for any Unicode text. The title is stored between {@link TITLE_START} and
 * {@link TITLE_END}, so that "title equals the needle" is a phrase query too. List elements
 * are joined by newlines (a needle spanning two of them is a false positive the caller's own
 * test drops). Rowids are `kg_nodes.seq`.
 */
export const KNOWLEDGE_TEXT_TABLE = 'kg_node_text';

/** Marks the start of the title in the index. */
export const TITLE_START = '\u0002';
/** Marks the end of the title in the index. */
export const TITLE_END = '\u0003';

/** Shortest needle (in code points) the trigram index can find by itself. */
export const TRIGRAM_MIN_CHARS = 3;

/** The statement creating the index table (migration 6). */
export const KNOWLEDGE_TEXT_DDL = `CREATE VIRTUAL TABLE ${KNOWLEDGE_TEXT_TABLE} USING fts5(
        title, type, content, keywords, observations,
        content = '',
        contentless_delete = 1,
        tokenize = 'trigram case_sensitive 1'
      )`;

/** The five indexed columns of one node, in the table's column order. */
export function knowledgeTextColumns(
  title: string,
  fields: Pick<KnowledgeNodeFields, 'type' | 'content' | 'keywords' | 'observations'>,
): [string, string, string, string, string] {
  const lower = (text: string): string => text.toLowerCase();
  return [
    `${TITLE_START}${lower(title)}${TITLE_END}`,
    lower(fields.type),
    lower(fields.content),
    fields.keywords.map(lower).join('\n'),
    fields.observations.map(lower).join('\n'),
  ];
}

/** Where in a node a needle is looked for. */
export type NeedlePlace = 'anywhere' | 'title-equals' | 'title-not-equal' | 'not-title';

/**
 * The FTS5 query finding the rows whose lower-cased text holds `needle` at `place`, or
 * `undefined` when the index cannot answer it exactly as a superset (too short a needle, or
 * one holding the title markers).
 */
export function knowledgeTextQuery(needle: string, place: NeedlePlace): string | undefined {
  // FTS5's query parser ends a string at NUL ("unterminated string"): such a needle is scanned.
  if (needle.includes(TITLE_START) || needle.includes(TITLE_END) || needle.includes('\u0000'))
    return undefined;
  const phrase = (text: string): string => `"${text.replace(/"/g, '""')}"`;
  const points = [...needle];
  if (points.length > PIECED_NEEDLE_CHARS) return piecedQuery(points, place, phrase);
  const inTitle = `title : ${phrase(needle)}`;
  const titleIs = `title : ${phrase(`${TITLE_START}${needle}${TITLE_END}`)}`;
  if (place === 'title-equals') return titleIs;
  if (points.length < TRIGRAM_MIN_CHARS) return undefined;
  switch (place) {
    case 'anywhere':
      return phrase(needle);
    case 'title-not-equal':
      return `${inTitle} NOT ${titleIs}`;
    case 'not-title':
      return `{type content keywords observations} : ${phrase(needle)} NOT ${inTitle}`;
  }
}

/**
 * A needle longer than this many characters is looked up by {@link NEEDLE_PIECES} of its
 * pieces rather than whole: FTS5 reads one trigram's rows per character of a phrase, so a
 * 2,048-character needle cost ~0.7 s however few rows held it.
 */
const PIECED_NEEDLE_CHARS = 96;
const NEEDLE_PIECES = 4;
const PIECE_CHARS = 24;

/**
 * The query of a long needle: rows holding each of a few evenly spaced pieces of it (in the
 * columns `place` allows). A superset, as every query of {@link knowledgeTextQuery} is (the
 * exclusions of the short forms are left to {@link nodeHoldsAt}, which tests every row read).
 */
function piecedQuery(
  points: readonly string[],
  place: NeedlePlace,
  phrase: (text: string) => string,
): string {
  const stride = (points.length - PIECE_CHARS) / (NEEDLE_PIECES - 1);
  const pieces = Array.from({ length: NEEDLE_PIECES }, (_, i) => {
    const start = Math.round(i * stride);
    return phrase(points.slice(start, start + PIECE_CHARS).join(''));
  });
  const all = `(${pieces.join(' AND ')})`;
  switch (place) {
    case 'anywhere':
      return all;
    case 'title-equals':
    case 'title-not-equal':
      return `title : ${all}`;
    case 'not-title':
      return `{type content keywords observations} : ${all}`;
  }
}

/** True when the node's text, lower-cased by JavaScript, holds `needle` at `place`. */
export function nodeHoldsAt(
  node: { readonly title: string } & Pick<
    KnowledgeNodeFields,
    'type' | 'content' | 'keywords' | 'observations'
  >,
  needle: string,
  place: NeedlePlace,
): boolean {
  const has = (text: string): boolean => text.toLowerCase().includes(needle);
  const title = node.title.toLowerCase();
  if (place === 'title-equals') return title === needle;
  if (place === 'title-not-equal') return title !== needle && title.includes(needle);
  const inTitle = title.includes(needle);
  if (place === 'anywhere' && inTitle) return true;
  if (place === 'not-title' && inTitle) return false;
  return has(node.type) || has(node.content) || node.keywords.some(has) || node.observations.some(has);
}

/** Nodes read per statement while filling the index (a statement cannot run while another iterates). */
const FILL_PAGE = 5000;

/**
 * Empties the substring index and fills it from every node (migration 6, and a dump's import,
 * which holds no index rows). Must run inside a write. Returns how many nodes it indexed.
 */
export function fillKnowledgeText(prepare: (sql: string) => SqlStatement): number {
  prepare(`DELETE FROM ${KNOWLEDGE_TEXT_TABLE}`).run();
  const insert = prepare(
    `INSERT INTO ${KNOWLEDGE_TEXT_TABLE} (rowid, title, type, content, keywords, observations) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const page = prepare(
    `SELECT n.seq, ${NODE_COLUMNS} FROM kg_nodes n WHERE n.seq > ? ORDER BY n.seq LIMIT ${FILL_PAGE}`,
  );
  let count = 0;
  for (let last = 0; ; ) {
    const rows = page.all(last) as (RawNode & { seq: number })[];
    for (const row of rows) insert.run(row.seq, ...knowledgeTextColumns(row.title, toNode(row)));
    count += rows.length;
    const tail = rows[rows.length - 1];
    if (tail === undefined) return count;
    last = tail.seq;
  }
}

/**
 * The needle SQL's ASCII-only `lower()` over the JSON text of a row can pre-filter with, or
 * `undefined` when the needle holds characters that it, or the JSON encoding of lists, would
 * not match as JavaScript does.
 */
export function asciiNeedle(lowered: string): string | undefined {
  return /^[\x20-\x7e]+$/u.test(lowered) && !/["\\]/u.test(lowered) ? lowered : undefined;
}
