/**
 * How navigation finds and ranks nodes (issue 14, issue 19): a few candidate nodes are read
 * from the recall index (FTS5's own BM25 order, so no more rows are read than the candidates
 * need, and nearest vectors when an embedder is configured), then each candidate is compared
 * with the question as a whole node (label, caller summary, files, todos, summary and the
 * verbatim context together). Nothing here costs work proportional to the memory's size: the
 * index returns its best rows first, and only the candidates' texts are read.
 */
import type { NodeRecord } from '../../store/radial-repo.js';
import type { DocFilter, DocRow } from '../../store/recall-repo.js';
import type { StoreTx } from '../../store/seam.js';
import { sliceCodePoints } from '../../core/text.js';
import {
  isStopWord,
  matchExpression,
  mostInformativeTerms,
  queryCandidates,
  scannedTokens,
  stem,
  tokenize,
} from '../../recall/query.js';
import { parseJsonOr } from '../../core/json.js';
import { ConceptScan, queryConcepts, type QueryConcepts } from '../../recall/concepts.js';
import type { FileChange } from '../../core/model/radial.js';

/** Candidate nodes compared with the question, at least (more when the caller asks for more). */
const MIN_CANDIDATES = 30;
/** Index rows per node a navigation reads (label, conversation, summary, full). */
const PARTS_PER_NODE = 4;
/** Characters of a node's verbatim context compared with the question (its head). */
const COMPARED_CHARS = 50_000;
/** Nearest vectors read per navigation. */
const VECTOR_CANDIDATES = 50;

/**
 * How much each part's BM25 counts in a node's rank score (BM25F-like: a label says what the
 * task was about, the caller's summary is the task in few words, the context holds everything).
 */
const PART_WEIGHTS: Readonly<Record<string, number>> = {
  label: 2,
  conversation: 1.5,
  summary: 1,
  full: 1,
};

/** Credit of a query word found only as a related form (`formatter` ~ `formatting`). */
const RELATED_CREDIT = 0.6;
/**
 * Credit of a query word whose group of words naming one thing (see src/recall/concepts.ts)
 * the node names in other words (`calendar widget` ~ `date picker`): less than a related form,
 * since a group's members are near, not exact, equivalents.
 */
const CONCEPT_CREDIT = 0.5;
/** Shortest shared beginning of two word stems that makes them related forms. */
const RELATED_PREFIX = 5;
/** Prefixes that turn a word into its opposite or a variant (`untranslated` ~ `translation`). */
const AFFIXES = ['un', 'non', 'dis', 'mis', 're', 'pre', 'de', 'in', 'im', 'over', 'under', 'sub', 'multi'];

/** One query word with its information weight (IDF over the whole index). */
export interface WeightedTerm {
  readonly word: string;
  readonly stem: string;
  readonly weight: number;
}

/** A candidate node as read from the store. */
export interface NavigationCandidate {
  readonly record: NodeRecord;
  readonly fullContext: string;
  /** Part-weighted BM25 sum of the node's matching index rows (0 when found by vector only). */
  readonly bm25: number;
  /** Best cosine similarity of the node's index rows to the query vector (undefined without one). */
  readonly similarity: number | undefined;
}

/** What one navigation read. */
export interface NavigationRead {
  readonly terms: readonly WeightedTerm[];
  readonly candidates: readonly NavigationCandidate[];
  /**
   * The similarity an unrelated node typically has to this query vector in this memory (the
   * median of the nearest rows' similarities, 0 when few rows have vectors); undefined without a vector.
   */
  readonly background: number | undefined;
  /** The groups of words naming one thing that the question names (undefined when none). */
  readonly concepts: QueryConcepts | undefined;
}

/** Inverse document frequency (BM25's, floored at a small positive value). */
export function idf(documentFrequency: number, documents: number): number {
  const n = Math.max(documents, documentFrequency, 1);
  return Math.max(0.05, Math.log(1 + (n - documentFrequency + 0.5) / (documentFrequency + 0.5)));
}

/**
 * Reads the candidates of one navigation inside the caller's read: the question's most
 * informative words (weighted by the index's statistics), the best BM25 rows of the agent's
 * radial layer (read in FTS5's rank order, stopping after `4 × candidates` rows), the nearest
 * vectors, and, for the best `candidates` nodes, their records and verbatim contexts.
 */
export async function readNavigationCandidates(
  tx: Pick<StoreTx, 'recall' | 'vectors' | 'radial'>,
  options: {
    readonly agentId: number;
    readonly query: string;
    readonly lineId: string | undefined;
    readonly limit: number;
    readonly queryVector: Float32Array | undefined;
  },
): Promise<NavigationRead> {
  const wanted = Math.max(MIN_CANDIDATES, options.limit * 3);
  const filter: DocFilter = { agentId: options.agentId, layers: ['radial'], lineId: options.lineId };
  const candidates = queryCandidates(options.query);
  const statistics = await tx.recall.termStatistics(candidates.map((term) => term.stem));
  const chosen = mostInformativeTerms(candidates, statistics.frequency);
  const terms = chosen.map((term) => ({
    ...term,
    weight: idf(statistics.frequency(term.stem), statistics.documents),
  }));
  const termIndex = new Map(chosen.map((term, i) => [term.stem, i]));
  const concepts = queryConcepts(scannedTokens(options.query), (stemmed) => termIndex.get(stemmed));
  const byNode = new Map<string, { bm25: number; similarity: number | undefined }>();
  const searches: [string | undefined, number][] = [
    [matchExpression(chosen.map((term) => term.word)), 1],
    // Other words of the groups the question names: found nodes count for less (see CONCEPT_CREDIT).
    [matchExpression(concepts?.expansions ?? []), CONCEPT_CREDIT],
  ];
  for (const [match, scale] of searches) {
    if (match === undefined) continue;
    const rows = await tx.radial.matchNodeRows(options.agentId, match, {
      lineId: options.lineId,
      limit: wanted * PARTS_PER_NODE,
    });
    for (const row of rows) {
      const entry = byNode.get(row.ref) ?? { bm25: 0, similarity: undefined };
      entry.bm25 += Math.max(0, row.bm25) * (PART_WEIGHTS[row.part] ?? 1) * scale;
      byNode.set(row.ref, entry);
    }
  }
  let background: number | undefined;
  if (options.queryVector) {
    const nearest = await tx.vectors.nearest(options.queryVector, options.agentId, VECTOR_CANDIDATES);
    const docs = new Map((await tx.recall.docs(nearest.map((n) => n.rowid))).map((d) => [d.rowid, d]));
    const similarities: number[] = [];
    for (const hit of nearest) {
      const doc = docs.get(hit.rowid);
      if (!doc || !isNodeRow(doc, filter)) continue;
      const similarity = 1 - hit.distance;
      similarities.push(similarity);
      const entry = byNode.get(doc.ref) ?? { bm25: 0, similarity: undefined };
      entry.similarity = Math.max(entry.similarity ?? -1, similarity);
      byNode.set(doc.ref, entry);
    }
    background = backgroundOf(similarities);
  }
  const best = Math.max(1e-9, ...[...byNode.values()].map((v) => v.bm25));
  const top = [...byNode.entries()]
    .map(([id, v]) => ({ id, v, pre: v.bm25 / best + Math.max(0, v.similarity ?? 0) }))
    .sort((a, b) => b.pre - a.pre)
    .slice(0, wanted);
  const records = new Map(
    (
      await tx.radial.nodesByIds(
        options.agentId,
        top.map((t) => t.id),
      )
    ).map((r) => [r.id, r]),
  );
  const out: NavigationCandidate[] = [];
  for (const { id, v } of top) {
    const record = records.get(id);
    if (!record) continue;
    const fullContext = (await tx.radial.fullContext(options.agentId, id)) ?? '';
    out.push({ record, fullContext, bm25: v.bm25, similarity: v.similarity });
  }
  return { terms, candidates: out, background, concepts };
}

function isNodeRow(doc: DocRow, filter: DocFilter): boolean {
  return (
    doc.layer === 'radial' &&
    doc.agentId === filter.agentId &&
    (filter.lineId === undefined || doc.lineId === filter.lineId)
  );
}

/** Fewer nearest rows than this: too few to say what "unrelated" looks like; 0 is assumed. */
const BACKGROUND_MIN_ROWS = 8;

/** The median of the given similarities (0 when there are too few to tell). */
export function backgroundOf(similarities: readonly number[]): number {
  if (similarities.length < BACKGROUND_MIN_ROWS) return 0;
  const sorted = [...similarities].sort((a, b) => a - b);
  return Math.max(0, sorted[Math.floor(sorted.length / 2)] ?? 0);
}

/**
 * The calibrated confidence of a match by meaning alone: how far the node's similarity stands
 * above what an unrelated node of this memory shows, as a share of the room above it, and at
 * most {@link VECTOR_CONFIDENCE_CAP} (a vector never claims what the words do not show as
 * surely as a node holding every word of the question). 0 at or below the background.
 */
export function vectorConfidence(similarity: number, background: number): number {
  const room = 1 - background;
  if (room <= 0 || similarity <= background) return 0;
  return Math.min(1, (similarity - background) / room) * VECTOR_CONFIDENCE_CAP;
}

/** Highest confidence a vector-only match reports. */
export const VECTOR_CONFIDENCE_CAP = 0.8;

/** The texts of a node a question is compared with, whole. */
export function nodeTexts(record: NodeRecord, fullContext: string): string {
  const files = parseJsonOr<FileChange[]>(record.fileChanges, []).map((f) => `${f.path} ${f.diffSummary}`);
  const todos = parseJsonOr<string[]>(record.todos, []);
  return [
    record.taskLabel,
    record.conversationSummary,
    ...files,
    ...todos,
    record.sDetailed ?? '',
    sliceCodePoints(fullContext, COMPARED_CHARS),
  ].join('\n');
}

/** True when two different stems are forms of one word (one begins the other, or both share a long beginning). */
export function relatedForms(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  if (short.length < RELATED_PREFIX || !/^[a-z]+$/u.test(long)) return false;
  if (long.startsWith(short)) return true;
  let shared = 0;
  while (shared < short.length && short.charCodeAt(shared) === long.charCodeAt(shared)) shared++;
  return shared >= Math.max(RELATED_PREFIX + 1, short.length - 2);
}

/** The stem without a leading affix (`untransl` → `transl`), or undefined when none applies. */
function withoutAffix(stemmed: string): string | undefined {
  for (const affix of AFFIXES) {
    if (stemmed.startsWith(affix) && stemmed.length - affix.length >= RELATED_PREFIX)
      return stemmed.slice(affix.length);
  }
  return undefined;
}

/**
 * A question's words prepared for comparing many node texts with it in one pass each: its
 * weighted terms by stem and by their first letters (for related forms, with and without a
 * leading affix), and its adjacent content-word pairs.
 */
export interface QueryWords {
  readonly terms: readonly WeightedTerm[];
  readonly total: number;
  readonly byStem: ReadonlyMap<string, number>;
  readonly byPrefix: ReadonlyMap<string, readonly { readonly index: number; readonly form: string }[]>;
  readonly pairs: ReadonlySet<string>;
  readonly concepts: QueryConcepts | undefined;
}

/**
 * Prepares `terms` (the question's searched words), the question's word pairs and the groups of
 * words naming one thing it names ({@link NavigationRead.concepts}).
 */
export function queryWords(
  terms: readonly WeightedTerm[],
  query: string,
  concepts?: QueryConcepts,
): QueryWords {
  const byStem = new Map<string, number>();
  const byPrefix = new Map<string, { index: number; form: string }[]>();
  terms.forEach((term, index) => {
    byStem.set(term.stem, index);
    if (!/^[a-z]+$/u.test(term.stem)) return;
    for (const form of [term.stem, withoutAffix(term.stem)]) {
      if (form === undefined || form.length < RELATED_PREFIX) continue;
      const key = form.slice(0, RELATED_PREFIX);
      byPrefix.set(key, [...(byPrefix.get(key) ?? []), { index, form }]);
    }
  });
  const pairs = new Set<string>();
  let previous: string | undefined;
  // Pairs come from the parts of the query its terms were read from (bounded, see scannedText).
  for (const token of scannedTokens(query)) {
    if (isStopWord(token)) continue;
    const stemmed = stem(token);
    if (previous !== undefined) pairs.add(`${previous} ${stemmed}`);
    previous = stemmed;
  }
  return { terms, total: terms.reduce((sum, t) => sum + t.weight, 0), byStem, byPrefix, pairs, concepts };
}

/** How a node matches a question's words. */
export interface WordMatch {
  /**
   * The information-weighted share of the question's words the node holds (0..1): a word
   * counts whole when the node holds it (any inflection), {@link RELATED_CREDIT} when it holds
   * a related form only (`formatter` ~ `formatting`, `untranslated` ~ `translation`), and
   * {@link CONCEPT_CREDIT} when it names the word's subject in other words (`calendar widget` ~
   * `date picker`).
   */
  readonly coverage: number;
  /** The share of the question's adjacent content-word pairs the node holds adjacent too (0..1). */
  readonly pairs: number;
}

/** Compares a node's text with the question, in one pass over the text's words. */
export function matchText(question: QueryWords, text: string): WordMatch {
  const credit = new Float64Array(question.terms.length);
  const pairs = new Set<string>();
  let previous: string | undefined;
  const scan = question.concepts ? new ConceptScan(question.concepts) : undefined;
  for (const token of tokenize(text)) {
    const stemmed = stem(token);
    scan?.next(token);
    const exact = question.byStem.get(stemmed);
    if (exact !== undefined) credit[exact] = 1;
    else if (stemmed.length >= RELATED_PREFIX) {
      for (const { index, form } of question.byPrefix.get(stemmed.slice(0, RELATED_PREFIX)) ?? []) {
        if ((credit[index] ?? 0) < RELATED_CREDIT && relatedForms(form, stemmed))
          credit[index] = RELATED_CREDIT;
      }
    }
    if (isStopWord(token)) continue;
    if (previous !== undefined && question.pairs.size > 0) {
      const pair = `${previous} ${stemmed}`;
      if (question.pairs.has(pair)) pairs.add(pair);
    }
    previous = stemmed;
  }
  if (scan && question.concepts) creditConcepts(credit, question.concepts, scan.found);
  let found = 0;
  question.terms.forEach((term, i) => (found += term.weight * (credit[i] ?? 0)));
  return {
    coverage: question.total > 0 ? Math.min(1, found / question.total) : 0,
    pairs: question.pairs.size > 0 ? pairs.size / question.pairs.size : 0,
  };
}

/** Raises to {@link CONCEPT_CREDIT} the words of each group the text names in any of its words. */
function creditConcepts(credit: Float64Array, concepts: QueryConcepts, found: ReadonlySet<number>): void {
  for (const group of found) {
    for (const index of concepts.termsOfGroup.get(group) ?? []) {
      if ((credit[index] ?? 0) < CONCEPT_CREDIT) credit[index] = CONCEPT_CREDIT;
    }
  }
}
