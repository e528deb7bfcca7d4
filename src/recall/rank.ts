import type {
  ArchiveText,
  DocFilter,
  DocRow,
  MatchedDoc,
  ResolvedText,
  TermStatistics,
} from '../store/recall-repo.js';
import { sliceCodePoints } from '../core/text.js';
import { speakerOf } from '../core/index-text.js';
import type { StoreTx } from '../store/seam.js';
import {
  eachStemFound,
  isStopWord,
  matchExpression,
  mostInformativeTerms,
  namedWords,
  queryCandidates,
  stem,
  stemLookup,
  tokenize,
  weightedWords,
  type QueryTerm,
} from './query.js';
import type { SearchOptions, RankWeights } from './search-options.js';

/** The repositories ranking reads (inside the caller's read transaction). */
export type RankReads = Pick<StoreTx, 'recall' | 'vectors'>;

/** The provenance filter of a search, as the repository takes it. */
function toDocFilter(options: SearchOptions): DocFilter {
  return {
    agentId: options.agentId,
    layers: options.layers,
    lineId: options.lineId,
    sceneId: options.sceneId,
    topicId: options.topicId,
    from: options.from,
    to: options.to,
  };
}

/** One ranked row before it becomes a hit. */
interface RankedDoc {
  readonly doc: DocRow;
  readonly score: number;
  /** Worked out from the row's text when first read (rows that are never shown cost nothing). */
  readonly confidence: number;
  /** The verbatim text behind the row, read once for its confidence (absent when the record is gone). */
  readonly resolved?: ResolvedText | undefined;
  /**
   * True when the row is one of the query's own FTS5 matches (its index text holds a query
   * word); false for rows that only feedback, a neighbour or a topic brought in.
   */
  readonly matchesQuery: boolean;
}

export const DEFAULT_WEIGHTS: RankWeights = {
  candidates: 300,
  neighbour: 0.35,
  neighbourWindow: 2,
  neighbourSeeds: 30,
  neighbourDecay: 0.5,
  scene: 0.3,
  recency: 0.02,
  recencyHalfLifeMs: 90 * 24 * 3600 * 1000,
  speaker: 0.8,
  topic: 0.3,
  feedback: 0.2,
  feedbackDocs: 12,
  feedbackTerms: 10,
  feedbackAfterPriors: false,
  feedbackMaxShare: 0.05,
  feedbackMaxRows: 500,
  feedbackCandidates: 100,
  vector: 1,
  sceneCap: 8,
  sceneCapWindow: 10,
};

interface Scored {
  doc: DocRow;
  lexical: number;
  score: number;
}

/**
 * Ranks the rows of one query: BM25 candidates (scores normalised to the best one), fused with
 * the nearest vectors when a query vector is given, widened by pseudo-relevance feedback, then
 * the priors (turn topics, named speakers, neighbour turns, scene relevance, recency; see
 * docs/file-format.md, "Recall index"). Must run inside a read.
 */
export async function rankDocuments(
  tx: RankReads,
  options: SearchOptions & {
    readonly limit: number;
    /** False when the caller needs only the order: the hits' texts are not read (confidences are 0). */
    readonly readTexts?: boolean;
  },
  queryVector?: Float32Array,
  weights: RankWeights = DEFAULT_WEIGHTS,
): Promise<RankedDoc[]> {
  const filter = toDocFilter(options);
  const candidateTerms = queryCandidates(options.query);
  const statistics = await tx.recall.termStatistics(candidateTerms.map((term) => term.stem));
  const terms = mostInformativeTerms(candidateTerms, statistics.frequency);
  const match = matchExpression(weightedWords(terms, namedWords(options.query)));
  // The best `candidates` BM25 matches are re-ranked with the priors; a longer read continues
  // with the next matches in BM25 order, so every read of a query shares the same head.
  const candidates = Math.max(1, weights.candidates);
  const read = match ? await tx.recall.match(match, filter, Math.max(candidates, options.limit)) : [];
  const matched = read.slice(0, candidates);
  const nearest = queryVector ? await vectorCandidates(tx, queryVector, filter, candidates) : [];
  if (!match && nearest.length === 0) {
    const recent = await tx.recall.recent(filter, options.limit);
    const texts = await tx.recall.resolve(recent);
    return recent.map((doc) => ({
      doc,
      score: 0,
      confidence: 0,
      resolved: texts.get(doc.rowid),
      matchesQuery: false,
    }));
  }
  if (matched.length === 0 && nearest.length === 0) return [];
  const contents = new ContentCache(tx);
  const lexical = nearest.length > 0 ? fuse(matched, nearest, weights) : normalise(matched);
  // Rows the query itself found: its words (or the words feedback searched for it) or its vector.
  const found = new Set<number>();
  for (const doc of read) found.add(doc.rowid);
  for (const doc of nearest) found.add(doc.rowid);
  if (weights.feedback > 0 && matched.length > 0) {
    const seeds = weights.feedbackAfterPriors
      ? await applyPriors(tx, contents, cloneScores(lexical), terms, options, weights)
      : [...lexical.values()];
    await addFeedback(
      tx,
      contents,
      lexical,
      seeds.slice(0, weights.feedbackDocs),
      terms,
      filter,
      candidates,
      weights,
      found,
    );
  }
  const confidence = confidenceOf(statistics, terms);
  // The lexical scores are not read again: the priors add to them in place (each row's score
  // still equals its lexical score here, which is what a copy would start from).
  const ranked = await applyPriors(tx, contents, lexical, terms, options, weights);
  const texts = new Map<number, ResolvedText>();
  const scored = capScenes(
    await matchingRows(tx, ranked, found, confidence, options.limit + weights.sceneCapWindow, texts),
    weights,
  );
  if (scored.length < options.limit) appendTail(scored, read.slice(candidates), matched[0]?.bm25 ?? 1);
  const top = scored.slice(0, options.limit);
  if (options.readTexts !== false) {
    const unread = top.filter((s) => !texts.has(s.doc.rowid)).map((s) => s.doc);
    for (const [rowid, text] of await tx.recall.resolve(unread)) texts.set(rowid, text);
  }
  const matchedRows = new Set<number>();
  for (const doc of read) matchedRows.add(doc.rowid);
  return top.map(
    (s) =>
      new LazyRankedDoc(s.doc, s.score, matchedRows.has(s.doc.rowid), texts.get(s.doc.rowid), confidence),
  );
}

/** A ranked row whose confidence is worked out from its text when first read (one class, no getter per row). */
class LazyRankedDoc implements RankedDoc {
  #value: number | undefined;
  readonly #confidence: (text: string) => number;

  constructor(
    readonly doc: DocRow,
    readonly score: number,
    readonly matchesQuery: boolean,
    readonly resolved: ResolvedText | undefined,
    confidence: (text: string) => number,
  ) {
    this.#confidence = confidence;
  }

  get confidence(): number {
    this.#value ??= this.resolved === undefined ? 0 : this.#confidence(this.resolved.text);
    return this.#value;
  }
}

/**
 * The ranked rows that hold a word of the query or that the search found (by its words, the
 * words feedback searched for it, or its vector), leaving out those that only a prior brought in
 * and that hold none of the query's words (another record of a matching turn such as its
 * outcome, a neighbour turn that shares nothing with the question): they would fill places
 * without answering anything. Only the rows a prior brought in within the first `within` places
 * are read (into `texts`) and compared; past those places they are left out unread. When nothing
 * else is left, all stay. Runs before the scene cap, which counts only what is shown.
 */
async function matchingRows(
  tx: RankReads,
  ranked: readonly Scored[],
  found: ReadonlySet<number>,
  confidence: (text: string) => number,
  within: number,
  texts: Map<number, ResolvedText>,
): Promise<Scored[]> {
  const head = ranked.slice(0, 2 * within);
  const brought = head.filter((row) => !found.has(row.doc.rowid)).map((row) => row.doc);
  for (const [rowid, text] of await tx.recall.resolve(brought)) texts.set(rowid, text);
  const kept = ranked.filter((row, index) => {
    if (found.has(row.doc.rowid)) return true;
    const text = index < head.length ? texts.get(row.doc.rowid) : undefined;
    return text !== undefined && confidence(text.text) > 0;
  });
  return kept.length > 0 ? kept : [...ranked];
}

/**
 * A mild per-scene cap on the first places: at most `sceneCap` of the first `sceneCapWindow`
 * rows come from one scene; the rows it holds back follow right after those places, in their
 * order. Evidence for a question that spans sessions (several facts about one person) is
 * otherwise crowded out when one session's many turns share the query's words and lift each
 * other (neighbour and scene priors). The cap only acts on such a one-scene run, so a question
 * answered in one session keeps nearly all its top places there (a per-row penalty or a tight
 * cap cost single-session questions more than they gained; see docs/benchmarks.md).
 */
function capScenes(ranked: Scored[], weights: RankWeights): Scored[] {
  if (weights.sceneCap <= 0 || weights.sceneCapWindow <= 0) return ranked;
  const head: Scored[] = [];
  const deferred: Scored[] = [];
  const count = new Map<string, number>();
  let i = 0;
  for (; i < ranked.length && head.length < weights.sceneCapWindow; i++) {
    const row = ranked[i] as Scored;
    const scene = row.doc.sceneId;
    const placed = scene === null ? 0 : (count.get(scene) ?? 0);
    if (scene !== null && placed >= weights.sceneCap) deferred.push(row);
    else {
      head.push(row);
      if (scene !== null) count.set(scene, placed + 1);
    }
  }
  // Held-back rows take the last capped place's score (if lower), so scores still fall with rank.
  const floor = head.at(-1)?.score ?? Number.POSITIVE_INFINITY;
  for (const row of deferred) row.score = Math.min(row.score, floor);
  return [...head, ...deferred, ...ranked.slice(i)];
}

/**
 * Appends the matches past the re-ranked ones, in BM25 order, each scored by its normalised BM25
 * but never above the row before it (scores fall with rank).
 */
function appendTail(scored: Scored[], tail: readonly MatchedDoc[], best: number): void {
  const present = new Set(scored.map((s) => s.doc.rowid));
  let floor = scored.at(-1)?.score ?? Number.POSITIVE_INFINITY;
  for (const doc of tail) {
    if (present.has(doc.rowid)) continue;
    const lexical = best > 0 ? doc.bm25 / best : 0;
    floor = Math.min(floor, lexical);
    scored.push({ doc, lexical, score: floor });
  }
}

/** True when a row passes every provenance filter (vector hits are filtered after the search). */
function passesFilter(doc: DocRow, filter: DocFilter): boolean {
  if (doc.agentId !== null && doc.agentId !== filter.agentId) return false;
  if (filter.layers && filter.layers.length > 0 && !filter.layers.includes(doc.layer)) return false;
  if (filter.lineId !== undefined && doc.lineId !== filter.lineId) return false;
  if (filter.sceneId !== undefined && doc.sceneId !== filter.sceneId) return false;
  if (filter.topicId !== undefined && doc.topicId !== filter.topicId) return false;
  if (filter.from !== undefined && doc.createdAt < filter.from) return false;
  if (filter.to !== undefined && doc.createdAt >= filter.to) return false;
  return true;
}

/** The rows nearest to the query vector that pass the filter, nearest first. */
async function vectorCandidates(
  tx: RankReads,
  vector: Float32Array,
  filter: DocFilter,
  k: number,
): Promise<DocRow[]> {
  const nearest = await tx.vectors.nearest(vector, filter.agentId, k);
  if (nearest.length === 0) return [];
  const docs = new Map((await tx.recall.docs(nearest.map((n) => n.rowid))).map((d) => [d.rowid, d]));
  return nearest.flatMap((n) => {
    const doc = docs.get(n.rowid);
    return doc && passesFilter(doc, filter) ? [doc] : [];
  });
}

/** Reciprocal-rank fusion constant (the usual 60: ranks beyond a few dozen weigh alike). */
const RRF_K = 60;

/**
 * Reciprocal-rank fusion of the BM25 and the vector lists: each row scores the sum of
 * 1 / (60 + rank) over the lists that hold it, normalised to the best row, so a row found by
 * both outranks one found by either alone. The priors then apply as for BM25 alone.
 */
function fuse(
  matched: readonly MatchedDoc[],
  nearest: readonly DocRow[],
  weights: RankWeights,
): Map<number, Scored> {
  const fused = new Map<number, { doc: DocRow; value: number }>();
  const add = (doc: DocRow, rank: number, weight: number): void => {
    const entry = fused.get(doc.rowid) ?? { doc, value: 0 };
    entry.value += weight / (RRF_K + rank + 1);
    fused.set(doc.rowid, entry);
  };
  matched.forEach((doc, rank) => add(doc, rank, 1));
  nearest.forEach((doc, rank) => add(doc, rank, weights.vector));
  let best = 0;
  for (const entry of fused.values()) best = Math.max(best, entry.value);
  const out = new Map<number, Scored>();
  for (const [rowid, entry] of fused) {
    const lexical = best > 0 ? entry.value / best : 0;
    out.set(rowid, { doc: entry.doc, lexical, score: lexical });
  }
  return out;
}

/** Archive contents read once per query, for the priors that look at words. */
class ContentCache {
  readonly #tx: RankReads;
  readonly #texts = new Map<number, ArchiveText>();

  constructor(tx: RankReads) {
    this.#tx = tx;
  }

  readonly #speakers = new Map<number, string | undefined>();

  /** Contents of the given archive rows (by `ref`), reading only the ones not yet cached. */
  async get(docs: readonly DocRow[]): Promise<Map<number, ArchiveText>> {
    const wanted = docs.filter((d) => d.layer === 'archive').map((d) => Number(d.ref));
    const missing = wanted.filter((id) => !this.#texts.has(id));
    for (const [id, text] of await this.#tx.recall.archiveRecords(missing)) this.#texts.set(id, text);
    return this.#texts;
  }

  /**
   * The speaker of each given archive row (by `ref`): what its index row keeps (see
   * `archiveIndexSpeaker`) when the engine reads it with the row; else its speaker column, or the
   * `Name:` label its content starts with (looked for in the first characters, or in the whole
   * content when it was read already); absent when it names none.
   */
  async speakers(docs: readonly DocRow[]): Promise<(id: number) => string | undefined> {
    const missing: number[] = [];
    for (const doc of docs) {
      if (doc.layer !== 'archive') continue;
      const id = Number(doc.ref);
      if (this.#speakers.has(id) || this.#texts.has(id)) continue;
      if (doc.speaker === undefined) missing.push(id);
      else this.#speakers.set(id, doc.speaker === '' ? undefined : doc.speaker);
    }
    const heads = await this.#tx.recall.speakerHeads(missing, SPEAKER_HEAD_CHARS);
    for (const id of missing) {
      const found = heads.get(id);
      this.#speakers.set(
        id,
        found?.speaker ?? (found?.head === undefined ? undefined : speakerOf(found.head)),
      );
    }
    return (id) => {
      const full = this.#texts.get(id);
      return full ? (full.speaker ?? speakerOf(full.content)) : this.#speakers.get(id);
    };
  }
}

/** Characters of a record read to find its speaker label. */
const SPEAKER_HEAD_CHARS = 64;

/** A fresh copy of each row's scores (priors add to `score` in place). */
function cloneScores(scores: ReadonlyMap<number, Scored>): Map<number, Scored> {
  const out = new Map<number, Scored>();
  for (const [rowid, s] of scores) out.set(rowid, { doc: s.doc, lexical: s.lexical, score: s.lexical });
  return out;
}

/** BM25 scores divided by the best one (so 1 is the best match of this query). */
function normalise(matched: readonly MatchedDoc[]): Map<number, Scored> {
  const best = matched[0]?.bm25 ?? 1;
  const out = new Map<number, Scored>();
  for (const doc of matched) {
    const lexical = best > 0 ? doc.bm25 / best : 0;
    out.set(doc.rowid, { doc, lexical, score: lexical });
  }
  return out;
}

/**
 * Pseudo-relevance feedback: the words that the best hits share (weighted by their scores and
 * rarity) are searched again, and what that finds adds to the lexical scores. It reaches
 * records that say the same thing in other words than the query.
 */
async function addFeedback(
  tx: RankReads,
  cache: ContentCache,
  lexical: Map<number, Scored>,
  seeds: readonly Scored[],
  terms: readonly QueryTerm[],
  filter: DocFilter,
  candidates: number,
  weights: RankWeights,
  found: Set<number>,
): Promise<boolean> {
  const top = seeds.filter((s) => s.doc.layer === 'archive');
  const contents = await cache.get(top.map((s) => s.doc));
  const queryStems = new Set(terms.map((t) => t.stem));
  const best = top[0]?.score ?? 1;
  // Each word counts once per seed: its entry remembers the last seed that added to it (no set
  // of seen words per seed).
  const weightOf = new Map<string, { word: string; weight: number; seed: number }>();
  top.forEach((seed, index) => {
    const text = contents.get(Number(seed.doc.ref))?.content;
    if (text === undefined) return;
    const share = best > 0 ? seed.score / best : 0;
    for (const word of tokenize(text)) {
      if (word.length < 3 || isStopWord(word) || /^\d+$/u.test(word)) continue;
      const stemmed = stem(word);
      if (queryStems.has(stemmed)) continue;
      let entry = weightOf.get(stemmed);
      if (entry === undefined) {
        entry = { word, weight: 0, seed: -1 };
        weightOf.set(stemmed, entry);
      } else if (entry.seed === index) continue;
      entry.seed = index;
      entry.weight += share;
    }
  });
  const weighed: { word: string; weight: number }[] = [];
  const strongest = [...weightOf.entries()]
    .filter(([, e]) => e.weight > 0)
    .sort((a, b) => b[1].weight - a[1].weight)
    .slice(0, weights.feedbackTerms * 3);
  // Words in a large share of the index say little and make the second query slow.
  // Only whether a word is held by more rows than the cap matters, so counting may stop there.
  const statistics = await tx.recall.termStatistics(
    strongest.map(([stemmed]) => stemmed),
    Math.max(2, weights.feedbackMaxRows),
  );
  const documents = statistics.documents;
  const maxFrequency = Math.max(2, Math.min(documents * weights.feedbackMaxShare, weights.feedbackMaxRows));
  for (const [stemmed, e] of strongest) {
    const frequency = statistics.frequency(stemmed);
    if (frequency <= maxFrequency)
      weighed.push({ word: e.word, weight: e.weight * idf(frequency, documents) });
  }
  const expansion = weighed.sort((a, b) => b.weight - a.weight).slice(0, weights.feedbackTerms);
  const match = matchExpression(expansion.map((e) => e.word));
  if (!match) return false;
  const more = await tx.recall.match(match, filter, Math.min(candidates, weights.feedbackCandidates));
  // Each match's BM25 normalised to the best one (as `normalise`, without building its map).
  const bestMore = more[0]?.bm25 ?? 1;
  for (const doc of more) {
    found.add(doc.rowid);
    const existing = lexical.get(doc.rowid);
    const gain = weights.feedback * (bestMore > 0 ? doc.bm25 / bestMore : 0);
    if (existing) {
      existing.lexical += gain;
      existing.score += gain;
    } else lexical.set(doc.rowid, { doc, lexical: gain, score: gain });
  }
  return true;
}

async function applyPriors(
  tx: RankReads,
  cache: ContentCache,
  byRowid: Map<number, Scored>,
  terms: readonly QueryTerm[],
  options: SearchOptions,
  weights: RankWeights,
): Promise<Scored[]> {
  await addTopicRecords(tx, byRowid, options, weights);
  await addSpeaker(cache, byRowid, terms, weights);
  await addNeighbourContext(tx, byRowid, options, weights);
  addSceneRelevance(byRowid, weights);
  addRecency(byRowid, options, weights);
  return [...byRowid.values()].sort((a, b) => b.score - a.score || b.doc.rowid - a.doc.rowid);
}

/**
 * A turn next to a relevant turn is likely part of the same exchange (a question and its
 * answer): each archive row gains a decayed share of its best neighbour's lexical score, and
 * neighbours of the strongest hits join the candidates even when they hold no query word.
 */
async function addNeighbourContext(
  tx: RankReads,
  byRowid: Map<number, Scored>,
  options: SearchOptions,
  weights: RankWeights,
): Promise<void> {
  if (weights.neighbour <= 0 || weights.neighbourWindow <= 0) return;
  const seeds = [...byRowid.values()]
    .filter((s) => s.doc.layer === 'archive' && s.doc.sceneId !== null)
    .slice(0, weights.neighbourSeeds);
  const boost = new Map<number, number>();
  const around = await tx.recall.sceneNeighboursOf(
    seeds.map((seed) => ({ rowid: seed.doc.rowid, sceneId: seed.doc.sceneId as string })),
    weights.neighbourWindow,
  );
  for (const seed of seeds) {
    const neighbours = around.get(seed.doc.rowid) ?? [];
    const seedIndex = neighbours.findIndex((n) => n.rowid > seed.doc.rowid);
    const center = seedIndex === -1 ? neighbours.length : seedIndex;
    neighbours.forEach((neighbour, i) => {
      const distance = i < center ? center - i : i - center + 1;
      const gain = seed.lexical * Math.pow(weights.neighbourDecay, distance - 1);
      boost.set(neighbour.rowid, Math.max(boost.get(neighbour.rowid) ?? 0, gain));
      if (!byRowid.has(neighbour.rowid) && passesTime(neighbour, options)) {
        byRowid.set(neighbour.rowid, { doc: neighbour, lexical: 0, score: 0 });
      }
    });
  }
  boost.forEach((gain, rowid) => {
    const scored = byRowid.get(rowid);
    if (scored) scored.score += weights.neighbour * gain;
  });
}

/** Records of a matching topic that share its score (a turn's input and output come first). */
const TOPIC_RECORDS = 8;

/**
 * A turn's topic (its name and keywords) matching the query speaks for the turn's records:
 * they gain a share of the topic's lexical score, and join the candidates.
 */
async function addTopicRecords(
  tx: RankReads,
  byRowid: Map<number, Scored>,
  options: SearchOptions,
  weights: RankWeights,
): Promise<void> {
  if (weights.topic <= 0) return;
  if (options.layers !== undefined && !options.layers.includes('archive')) return;
  const topics = [...byRowid.values()].filter((s) => s.doc.layer === 'topic').slice(0, 50);
  if (topics.length === 0) return;
  // Every topic's records in one read (on a server, one round trip), then applied topic by topic.
  const recordsOf = new Map<string, DocRow[]>();
  const all = await tx.recall.topicsRecords(
    topics.map((topic) => topic.doc.ref),
    TOPIC_RECORDS,
  );
  for (const record of all) {
    if (record.topicId === null) continue;
    const list = recordsOf.get(record.topicId) ?? [];
    list.push(record);
    recordsOf.set(record.topicId, list);
  }
  for (const topic of topics) {
    for (const record of recordsOf.get(topic.doc.ref) ?? []) {
      if (!passesTime(record, options)) continue;
      if (options.sceneId !== undefined && record.sceneId !== options.sceneId) continue;
      const existing = byRowid.get(record.rowid);
      const gain = weights.topic * topic.lexical;
      if (existing) {
        existing.lexical = Math.max(existing.lexical, gain);
        existing.score += gain;
      } else byRowid.set(record.rowid, { doc: record, lexical: gain, score: gain });
    }
  }
}

/**
 * A question that names a person is most often answered by what that person said: archive
 * records whose speaker label is named in the query gain a fixed share.
 */
async function addSpeaker(
  cache: ContentCache,
  byRowid: Map<number, Scored>,
  terms: readonly QueryTerm[],
  weights: RankWeights,
): Promise<void> {
  if (weights.speaker <= 0) return;
  const stems = new Set(terms.map((t) => t.stem));
  const archive = [...byRowid.values()].filter((s) => s.doc.layer === 'archive');
  const speakers = await cache.speakers(archive.map((s) => s.doc));
  for (const s of archive) {
    const speaker = speakers(Number(s.doc.ref));
    if (speaker !== undefined && tokenize(speaker).some((word) => stems.has(stem(word)))) {
      s.score += weights.speaker;
    }
  }
}

function passesTime(doc: DocRow, options: SearchOptions): boolean {
  if (options.from !== undefined && doc.createdAt < options.from) return false;
  if (options.to !== undefined && doc.createdAt >= options.to) return false;
  return true;
}

/**
 * The group whose relevance as a whole lifts a row: its scene, or its task line for a radial
 * node, else the record alone. Every row has one, so that a memory with a single scene does not
 * lift every conversation record above the tasks and knowledge that match the query better.
 */
function relevanceGroup(doc: DocRow): string {
  if (doc.sceneId !== null) return `scene:${doc.sceneId}`;
  if (doc.lineId !== null) return `line:${doc.lineId}`;
  return `${doc.layer}:${doc.ref}`;
}

/** The three best lexical scores of one relevance group, best first (0 where it has fewer). */
interface TopThree {
  a: number;
  b: number;
  c: number;
}

/** A group's score: the sum of its three best lexical scores, added best first. */
function sumOf(top: TopThree | undefined): number {
  return top === undefined ? 0 : top.a + top.b + top.c;
}

/**
 * Relevance groups without a key string per row (rows are many, groups few): a row's scene, else
 * its task line, else the row alone ({@link relevanceGroup}, each kind in a map of its own).
 */
class GroupMap<T> {
  readonly #scenes = new Map<string, T>();
  readonly #lines = new Map<string, T>();
  readonly #alone = new Map<string, T>();

  #mapOf(doc: DocRow): Map<string, T> {
    if (doc.sceneId !== null) return this.#scenes;
    return doc.lineId !== null ? this.#lines : this.#alone;
  }

  get(doc: DocRow): T | undefined {
    return this.#mapOf(doc).get(doc.sceneId ?? doc.lineId ?? relevanceGroup(doc));
  }

  set(doc: DocRow, value: T): void {
    this.#mapOf(doc).set(doc.sceneId ?? doc.lineId ?? relevanceGroup(doc), value);
  }

  forEach(fn: (value: T) => void): void {
    this.#scenes.forEach(fn);
    this.#lines.forEach(fn);
    this.#alone.forEach(fn);
  }
}

/** Rows of a scene (or line) that is relevant as a whole (several good hits) rank above stray hits. */
function addSceneRelevance(byRowid: Map<number, Scored>, weights: RankWeights): void {
  if (weights.scene <= 0) return;
  // Each group's score is the sum of its three best lexical scores, added best first.
  const perScene = new GroupMap<TopThree>();
  for (const s of byRowid.values()) {
    const v = s.lexical;
    if (v <= 0) continue;
    const top = perScene.get(s.doc);
    if (top === undefined) perScene.set(s.doc, { a: v, b: 0, c: 0 });
    else if (v > top.a) {
      top.c = top.b;
      top.b = top.a;
      top.a = v;
    } else if (v > top.b) {
      top.c = top.b;
      top.b = v;
    } else if (v > top.c) top.c = v;
  }
  let bestScene = 0;
  perScene.forEach((top) => {
    bestScene = Math.max(bestScene, sumOf(top));
  });
  if (bestScene <= 0) return;
  for (const s of byRowid.values()) s.score += weights.scene * (sumOf(perScene.get(s.doc)) / bestScene);
}

/** Newer rows win ties: a small prior decaying with age relative to the newest candidate. */
function addRecency(byRowid: Map<number, Scored>, options: SearchOptions, weights: RankWeights): void {
  if (weights.recency <= 0) return;
  let newest = options.now ?? Number.NEGATIVE_INFINITY;
  if (options.now === undefined) for (const s of byRowid.values()) newest = Math.max(newest, s.doc.createdAt);
  for (const s of byRowid.values()) {
    const age = Math.max(0, newest - s.doc.createdAt);
    s.score += weights.recency * Math.pow(0.5, age / weights.recencyHalfLifeMs);
  }
}

/** Characters of a hit's text compared with the query for its confidence. */
const CONFIDENCE_MAX_CHARS = 50_000;

/** Inverse document frequency (BM25's, floored at a small positive value). */
function idf(documentFrequency: number, documents: number): number {
  const n = Math.max(documents, documentFrequency, 1);
  return Math.max(0.05, Math.log(1 + (n - documentFrequency + 0.5) / (documentFrequency + 0.5)));
}

/**
 * The calibrated confidence of a text: the IDF-weighted share of the query's words found in it
 * (see {@link SearchHit.confidence}). The weights are read now (inside the read); each text is
 * compared only when its confidence is asked for, so rows that are never shown cost nothing.
 */
export function confidenceOf(
  statistics: TermStatistics,
  terms: readonly QueryTerm[],
): (text: string) => number {
  const weightsByStem = new Map(
    terms.map((t) => [t.stem, idf(statistics.frequency(t.stem), statistics.documents)]),
  );
  const total = [...weightsByStem.values()].reduce((sum, w) => sum + w, 0);
  if (total <= 0) return () => 0;
  const lookup = stemLookup(weightsByStem.keys());
  return (text) => {
    // Only the head of a very long text (a node's full context) is compared.
    const present = new Set<string>();
    eachStemFound(sliceCodePoints(text, CONFIDENCE_MAX_CHARS), lookup, (stemmed) => present.add(stemmed));
    let found = 0;
    weightsByStem.forEach((weight, stemmed) => {
      if (present.has(stemmed)) found += weight;
    });
    return Math.min(1, found / total);
  };
}
