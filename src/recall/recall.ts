import { shownSceneName } from '../core/model/conversation.js';
import { codePointLength, oneLine, truncateText } from '../core/text.js';
import { parseInput } from '../core/validate.js';
import type { Embedder } from '../llm/types.js';
import {
  type Provenance,
  type RecallHit,
  type RecallResult,
  type IndexLayer,
  type ContextLevel,
  type SearchHit,
  recallOptionsSchema,
  recallQuerySchema,
} from '../core/model/recall.js';
import type { ResolvedText } from '../store/recall-repo.js';
import type { StoreSeam, StoreTx } from '../store/seam.js';
import {
  assembleContext,
  DEFAULT_DETAIL_PLAN,
  LEVEL_CHARS,
  recordForms,
  type ContextCandidate,
  type ContextForm,
} from './context.js';
import { queryCandidates } from './query.js';
import { fitSpan, mostStemsHeld, speakerLabel } from './text-fit.js';
import { searchIndexResolved, type ResolvedHit } from './search.js';
import { withoutTimeCues } from '../core/time-cues.js';
import { applySupersession } from './supersession.js';
import {
  applyDecision,
  approves,
  asksForDecision,
  decisionSubject,
  DEFAULT_DECISION_WEIGHTS,
} from './decision-intent.js';
import { applyTemporalIntent, temporalIntent, type TemporalIntent } from './temporal-intent.js';
import {
  groupUnits,
  lineOf,
  readTurns,
  recordKey,
  turnForms,
  turnOf,
  turnUnits,
  unitKey,
  type RankedItem,
  type RecallUnit,
  type TurnRecords,
} from './turn-units.js';
import { backfillEmbeddings } from './vectors.js';

/** Who is recalling. */
interface Recaller {
  readonly agentId: number;
  readonly agentName: string;
  readonly embedder?: Embedder | undefined;
}

/** How many ranked records are offered to the context beyond the hits returned. */
const CONTEXT_CANDIDATES = 60;

const TABLES: Readonly<Record<IndexLayer, Provenance['table']>> = {
  archive: 'archive',
  radial: 'nodes',
  topic: 'topics',
  knowledge: 'kg_nodes',
  profile: 'profiles',
};

interface Item extends RankedItem {
  /** The final score: the ranking's, after the temporal step (hits are in its order). */
  readonly score: number;
}

/**
 * Recall for one agent: ranked hits across layers (its own and the file-wide knowledge) and a
 * context that fills `budgetTokens` with the best of them at the right level of detail.
 * Validates everything before reading; reads in one snapshot. An empty or whitespace query is
 * refused (`INVALID_INPUT`); one that holds no word (only punctuation or symbols) finds nothing.
 *
 * @example
 * ```ts
 * const { context, hits } = await recall(store, { agentId, agentName: 'primary' }, 'JWT secret rotation', { budgetTokens: 500 });
 * ```
 */
export async function recall(
  store: StoreSeam,
  who: Recaller,
  query: unknown,
  options?: unknown,
): Promise<RecallResult> {
  const text = parseInput(recallQuerySchema, query, 'query');
  const parsed = parseInput(recallOptionsSchema, options ?? {}, 'options');
  // A query without a single word (punctuation, symbols) asks for nothing: no hits, rather than
  // every record at confidence 0. A query of stop words only still searches them ("who is she").
  if (queryCandidates(text).length === 0) return emptyResult(text, parsed.budgetTokens);
  if (who.embedder) await catchUpEmbeddings(store, who.embedder);
  // Time words ("now", "originally") choose between the records of the subject (the temporal
  // step below) and are not searched: a record about something else that says "currently" is
  // not about this subject.
  const subject = withoutTimeCues(text);
  const ranked = await searchIndexResolved(store, {
    agentId: who.agentId,
    query: subject,
    layers: parsed.layers,
    lineId: parsed.lineId,
    sceneId: parsed.sceneId,
    topicId: parsed.topicId,
    from: parsed.from,
    to: parsed.to,
    limit: Math.max(parsed.limit * 3, CONTEXT_CANDIDATES),
    embedder: who.embedder,
  });
  // Ranking ran in one read; let other requests of a server run before assembling.
  await yieldToOthers();
  const records: TurnRecords = new Map();
  const timed = withTemporalIntent(bestPartPerRecord(ranked), temporalIntent(text));
  const decided = asksForDecision(text) ? await withDecisions(store, timed, records) : timed;
  const items = applySupersession(decided, text);
  const groups = groupUnits(
    matchedItems(items.slice(0, Math.max(parsed.limit, CONTEXT_CANDIDATES)), who.embedder !== undefined),
  );
  const stems = new Set(queryCandidates(subject).map((term) => term.stem));
  const assembled =
    parsed.budgetTokens > 0
      ? await assemble(store, who.agentId, stems, groups, parsed.budgetTokens, records)
      : undefined;
  const unitOf = new Map<Item, number>();
  groups.forEach((group, index) => {
    for (const item of group.items) unitOf.set(item, index);
  });
  // A turn's topic row among the hits is previewed by its dialogue, and left out when its
  // dialogue is listed already: read the turns the context did not.
  const unreadTurns = items
    .slice(0, 2 * parsed.limit)
    .filter((item) => item.hit.layer === 'topic' && !records.has(item.hit.ref))
    .map((item) => ({ key: unitKey(item.hit) }));
  if (unreadTurns.length > 0) await store.read('recall', (tx) => readTurns(tx, unreadTurns, records));
  const listed = distinctHits(items, parsed.limit, records);
  const hits = listed.map((item) => {
    const unit = unitOf.get(item);
    const level = unit === undefined ? undefined : assembled?.included.get(unit);
    return toRecallHit(item, who, level ?? 'none', previewOf(item, records, stems));
  });
  return {
    query: text,
    hits,
    context: assembled?.context ?? '',
    usedTokens: assembled?.usedTokens ?? 0,
    budgetTokens: parsed.budgetTokens,
  };
}

/** The result of a query that holds no word to search. */
function emptyResult(query: string, budgetTokens: number): RecallResult {
  return { query, hits: [], context: '', usedTokens: 0, budgetTokens };
}

/** Lets the event loop run whatever else is waiting (other requests of a server) once. */
function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Rows embedded per recall at most, so recall latency stays bounded while vectors catch up. */
const RECALL_BACKFILL = 64;

/**
 * Embeds a few pending rows before searching. A failing embedder, or a file whose vectors come
 * from another model, leaves recall to BM25 alone rather than failing it.
 */
async function catchUpEmbeddings(store: StoreSeam, embedder: Embedder): Promise<void> {
  if (store.readOnly) return;
  try {
    await backfillEmbeddings(store, embedder, { limit: RECALL_BACKFILL });
  } catch {
    // Vectors are derived and optional; BM25 answers meanwhile.
  }
}

/**
 * The first `limit` items as hits, without duplicates: a turn's topic row (which stands for the
 * turn's dialogue) is left out when every utterance of that turn is listed above it, and the
 * next item takes its place.
 */
function distinctHits(items: readonly Item[], limit: number, records: TurnRecords): Item[] {
  // Archive records listed, by turn and content: a record that repeats a listed one of its turn
  // word for word (an utterance appended and passed again when the turn closed) is left out.
  const listed = new Set<string>();
  const keyOf = (topicId: string, record: ResolvedText): string => `${topicId}\u0000${recordKey(record)}`;
  const out: Item[] = [];
  for (const item of items) {
    if (out.length >= limit) break;
    if (item.hit.layer === 'topic') {
      const spoken = (records.get(item.hit.ref) ?? []).filter((record) => record.eventType === undefined);
      if (spoken.length > 0 && spoken.every((record) => listed.has(keyOf(item.hit.ref, record)))) continue;
    } else if (item.hit.layer === 'archive' && item.hit.topicId !== null) {
      const key = keyOf(item.hit.topicId, item.resolved);
      if (listed.has(key)) continue;
      listed.add(key);
    }
    out.push(item);
  }
  return out;
}

/** Code points of a hit's preview. */
const PREVIEW_CHARS = LEVEL_CHARS.brief;

/**
 * A hit's preview, on one line: its text whole when it fits, else its sentences nearest the
 * query (never a sentence cut, `…` where text was left out), else (one sentence longer than the
 * preview) its head cut at a word. A turn's topic row shows its utterance that holds most of
 * the query's words, not its keyword list.
 */
function previewOf(item: Item, records: TurnRecords, stems: ReadonlySet<string>): string {
  if (item.hit.layer === 'radial') return taskPreview(item, stems);
  const topic = item.hit.layer === 'topic' ? turnOf(unitKey(item.hit)) : undefined;
  const turn = topic === undefined ? undefined : records.get(topic);
  const spoken = turn?.filter((record) => record.eventType === undefined) ?? [];
  const line = oneLine(spoken.length > 0 ? bestUtterance(spoken, stems) : item.resolved.text);
  return fitSpan(line, PREVIEW_CHARS, stems) ?? truncateText(line, PREVIEW_CHARS);
}

// A line that only opens a transcript block (`[user]`, `[tool:bash]`, `[Tool result]`): a marker,
// not something anyone said.
const BLOCK_MARKER_LINE_RE = /^[ \t]*\[[^\]\n]{1,40}\][ \t]*$/gmu;

/**
 * A task's preview: its label (what the task was), then, when another of its texts matched (its
 * transcript, summary or levels), the sentences of that text nearest the query, without the
 * transcript's block markers, in what the label leaves of the preview.
 */
function taskPreview(item: Item, stems: ReadonlySet<string>): string {
  const label = oneLine(item.resolved.title ?? '');
  // Its lines stay apart until a span is chosen: a line break ends a sentence.
  const lines = item.resolved.text.replace(BLOCK_MARKER_LINE_RE, '').trim();
  const text = oneLine(lines);
  if (label.length === 0)
    return oneLine(fitSpan(lines, PREVIEW_CHARS, stems) ?? truncateText(text, PREVIEW_CHARS));
  const head = truncateText(label, PREVIEW_CHARS);
  const room = PREVIEW_CHARS - codePointLength(head) - TASK_PREVIEW_SEPARATOR.length;
  if (item.hit.part === 'label' || text === label || room < MIN_TASK_PREVIEW_ROOM) return head;
  const rest = oneLine(fitSpan(lines, room, stems) ?? '');
  return rest.length === 0 ? head : `${head}${TASK_PREVIEW_SEPARATOR}${rest}`;
}

const TASK_PREVIEW_SEPARATOR = ' — ';
/** Fewest code points worth showing of a task's matched text after its label. */
const MIN_TASK_PREVIEW_ROOM = 40;

/** `who: text` of the utterance holding most of the query's words (the first on a tie). */
function bestUtterance(spoken: readonly ResolvedText[], stems: ReadonlySet<string>): string {
  const best = spoken[
    mostStemsHeld(
      spoken.map((record) => record.text),
      stems,
    )
  ] as ResolvedText;
  const { who, text } = lineOf(best, false);
  return `${who}${text}`;
}

/** One item per record (its best-ranked part). */
function bestPartPerRecord(ranked: readonly ResolvedHit[]): ResolvedHit[] {
  const seen = new Set<string>();
  const best: ResolvedHit[] = [];
  for (const item of ranked) {
    const key = `${item.hit.layer}\u0000${item.hit.ref}`;
    if (seen.has(key)) continue;
    seen.add(key);
    best.push(item);
  }
  return best;
}

/**
 * The decision step ({@link applyDecision}): the turns of the question's subject are read back
 * (into `records`, which the context reuses) to see whether their user approved a proposal.
 */
async function withDecisions(
  store: StoreSeam,
  items: readonly Item[],
  records: TurnRecords,
): Promise<Item[]> {
  const subject = decisionSubject(items);
  const turns = [...subject].filter((key) => turnOf(key) !== undefined);
  if (turns.length === 0) return [...items];
  await store.read('recall', (tx) =>
    readTurns(
      tx,
      turns.map((key) => ({ key })),
      records,
    ),
  );
  const approved = (key: string): boolean => {
    const turn = turnOf(key);
    const user = (turn === undefined ? undefined : records.get(turn))?.find(
      (record) => record.role === 'user' && record.eventType === undefined,
    );
    return user !== undefined && approves(user.text);
  };
  return applyDecision(items, approved, DEFAULT_DECISION_WEIGHTS, subject);
}

/** A ranked record as the temporal step reads it (its coverage is the hit's confidence, worked out when read). */
class TimedItem {
  readonly score: number;
  readonly createdAt: number;

  constructor(readonly item: ResolvedHit) {
    this.score = item.hit.score;
    this.createdAt = item.hit.createdAt;
  }

  get coverage(): number {
    return this.item.hit.confidence;
  }
}

/** The records in the order of their final scores, after the temporal step. */
function withTemporalIntent(items: readonly ResolvedHit[], intent: TemporalIntent): Item[] {
  const timed = items.map((item) => new TimedItem(item));
  return applyTemporalIntent(timed, intent).map(({ candidate, score }) => ({
    hit: candidate.item.hit,
    resolved: candidate.item.resolved,
    score,
  }));
}

/**
 * The records that hold a word of the query, and the other records of their turns (a question
 * and its answer go together), unless none holds one (then all): a record found only through its
 * neighbours or the recency prior fills a place without answering anything. With an embedder,
 * records found by their vectors hold no query word by nature, and all are kept.
 */
function matchedItems(items: readonly Item[], vectors: boolean): Item[] {
  if (vectors) return [...items];
  const matchedTurns = new Set<string>();
  for (const item of items) if (item.hit.confidence > 0) matchedTurns.add(unitKey(item.hit));
  const kept = items.filter((item) => item.hit.confidence > 0 || matchedTurns.has(unitKey(item.hit)));
  return kept.length > 0 ? kept : [...items];
}

/** Fewest tokens a unit takes in the context: turns past this many units are not read back. */
const MIN_UNIT_TOKENS = 8;
/** Code points of a turn's utterance that matched, below the first places (they show it whole). */
const TURN_LINE_CHARS = LEVEL_CHARS.summary;
/** Code points of the other utterance of a turn (its sentences nearest the query). */
const PARTNER_CHARS = 80;
/** Code points of the answer to a question in the first places (its sentences nearest the query, else its opening). */
const ANSWER_CHARS = 300;

/**
 * The records the budget can hold whole, by rank: as many of the best records as their mean
 * length (over the best ones) fits in `budgetTokens`. A turn shows these whole and its other
 * utterance shortened, so the budget goes to more of the best-ranked records.
 */
function wholeWithin(groups: readonly { items: readonly Item[] }[], budgetTokens: number): Set<RankedItem> {
  const ranked = groups.flatMap((g) => g.items).sort((a, b) => b.score - a.score);
  const sample = ranked.slice(0, 20).filter((item) => item.hit.layer === 'archive');
  const mean =
    sample.length === 0
      ? 1
      : sample.reduce((sum, item) => sum + approximateTokens(item.resolved.text), 0) / sample.length;
  const fits = Math.max(1, Math.floor(budgetTokens / (mean + RECORD_OVERHEAD_TOKENS)));
  return new Set(ranked.slice(0, fits));
}

/** Tokens a record costs beyond its text in the context (separators, a share of the labels). */
const RECORD_OVERHEAD_TOKENS = 4;

/** About four characters a token (English prose); enough to size the share of the budget. */
function approximateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * The context: each unit at the first of its renderings that fits, best first. Turns are read
 * back lazily: first as many as the budget is likely to hold (by the length of what ranking
 * already read of them), in one batched query; when the context reaches a turn not read yet, the
 * next ones are read (twice as many) and the context is assembled again. The result is the one
 * that reading every turn up front would give.
 */
async function assemble(
  store: StoreSeam,
  agentId: number,
  stems: ReadonlySet<string>,
  groups: readonly { key: string; items: readonly Item[] }[],
  budgetTokens: number,
  records: TurnRecords,
): Promise<ReturnType<typeof assembleContext>> {
  const expand = Math.min(groups.length, Math.ceil(budgetTokens / MIN_UNIT_TOKENS));
  const whole = wholeWithin(groups, budgetTokens);
  let scenes: Map<string, string> | undefined;
  let read = Math.min(expand, likelyShown(groups, budgetTokens));
  for (;;) {
    const upTo = read;
    const known = scenes;
    // The turns and the scene names are asked for together: on a server, one round trip.
    scenes = await store.read('recall', async (tx) => {
      const [, names] = await Promise.all([
        readTurns(tx, groups.slice(0, upTo), records),
        known ??
          sceneNames(
            tx,
            agentId,
            groups.slice(0, expand).map((g) => g.items[0] as Item),
          ),
      ]);
      return names;
    });
    const names = scenes;
    let short = false;
    const units = turnUnits(
      groups,
      expand,
      records,
      (item) => whole.has(item),
      () => {
        short = true;
      },
      stems,
    );
    const assembled = assembleContext(
      units.map((unit, rank) => toCandidate(unit, rank, names, stems)),
      budgetTokens,
    );
    if (!short || read >= expand) return assembled;
    read = Math.min(expand, read * 2);
  }
}

/** Units read back at first: a few more than the budget holds at the length ranking saw of them. */
function likelyShown(groups: readonly { items: readonly Item[] }[], budgetTokens: number): number {
  let tokens = 0;
  let count = 0;
  for (const group of groups) {
    count++;
    tokens +=
      MIN_UNIT_TOKENS + group.items.reduce((sum, item) => sum + approximateTokens(item.resolved.text), 0);
    if (tokens >= 2 * budgetTokens) break;
  }
  return Math.max(count + 4, 8);
}

function formatTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** Code points of a scene name shown in a label. */
const SCENE_NAME_CHARS = 40;

/**
 * The labels an item carries in the context: when, where, who, compactly (`[2024-03-14 14:25 ·
 * ops review · user]`), and the same without the scene name once an earlier item of its scene
 * has named it. The role is left out when the text already names its speaker (`Caroline: …`).
 */
function contextLabels(
  hit: SearchHit,
  resolved: ResolvedText,
  sceneName: string | undefined,
): { label: string; repeatLabel: string } {
  const when = formatTime(hit.createdAt);
  const scene = sceneName ? truncateText(oneLine(sceneName), SCENE_NAME_CHARS) : undefined;
  const label = (parts: readonly (string | undefined)[]): string =>
    `[${parts.filter((p): p is string => p !== undefined && p.length > 0).join(' · ')}]`;
  switch (hit.layer) {
    case 'archive': {
      const named = resolved.speaker !== undefined || speakerLabel(resolved.text) !== undefined;
      const who = resolved.eventType ?? (named ? undefined : resolved.role);
      return { label: label([when, scene, who]), repeatLabel: label([when, who]) };
    }
    case 'topic':
      return { label: label([when, scene, 'topic']), repeatLabel: label([when, 'topic']) };
    case 'radial': {
      const where = `line ${hit.lineId ?? '?'} #${resolved.position ?? '?'}`;
      const title = resolved.title ? truncateText(oneLine(resolved.title), 80) : undefined;
      const one = label([when, where, title]);
      return { label: one, repeatLabel: one };
    }
    case 'knowledge': {
      const one = label(['knowledge', truncateText(oneLine(resolved.title ?? hit.ref), 80)]);
      return { label: one, repeatLabel: one };
    }
    case 'profile':
      return { label: '[profile]', repeatLabel: '[profile]' };
  }
}

/** The names of the scenes the items belong to (a scene the host did not name has none worth showing). */
async function sceneNames(
  tx: StoreTx,
  agentId: number,
  items: readonly Item[],
): Promise<Map<string, string>> {
  const ids = [...new Set(items.flatMap(({ hit }) => (hit.sceneId === null ? [] : [hit.sceneId])))];
  // Asked for all at once (a server engine sends them together), in the items' order.
  const scenes = await Promise.all(ids.map((id) => tx.conversation.scenes.getScene(agentId, id)));
  const out = new Map<string, string>();
  ids.forEach((id, i) => {
    const name = scenes[i]?.name ?? '';
    out.set(id, shownSceneName({ id, name }));
  });
  return out;
}

function speakerOf(resolved: ResolvedText): string | undefined {
  return resolved.speaker ?? resolved.role;
}

function toCandidate(
  unit: RecallUnit,
  rank: number,
  scenes: ReadonlyMap<string, string>,
  stems: ReadonlySet<string>,
): ContextCandidate {
  const { hit, resolved } = unit.first;
  const sceneId = hit.sceneId;
  const sceneName = sceneId === null ? undefined : scenes.get(sceneId);
  const group = sceneId !== null ? { group: sceneId } : {};
  if (turnOf(unit.key) !== undefined) {
    const lineChars = rank < DEFAULT_DETAIL_PLAN.fullTop ? Number.POSITIVE_INFINITY : TURN_LINE_CHARS;
    return lazyForms({ ...turnLabels(hit, sceneName), ...group }, () =>
      turnForms(
        unit.lines ?? [],
        stems,
        lineChars,
        PARTNER_CHARS,
        rank < DEFAULT_DETAIL_PLAN.fullTop ? ANSWER_CHARS : PARTNER_CHARS,
      ).map((form): ContextForm => ({ level: form.whole ? 'full' : 'summary', lines: form.lines })),
    );
  }
  const speaker = hit.layer === 'archive' ? resolved.speaker : undefined;
  const full = speaker ? `${speaker}: ${resolved.text}` : resolved.text;
  // A task's label heads its item (see contextLabels): its levels are shown without their copy of it.
  const title = hit.layer === 'radial' ? resolved.title : undefined;
  return lazyForms({ ...contextLabels(hit, resolved, sceneName), ...group }, () =>
    recordForms(full, resolved.levels, rank, stems, DEFAULT_DETAIL_PLAN, title),
  );
}

/**
 * A candidate whose renderings are worked out when the context first asks for them: most
 * units past the first places never are (their label alone no longer fits the budget left).
 */
function lazyForms(
  labels: Omit<ContextCandidate, 'forms'>,
  make: () => readonly ContextForm[],
): ContextCandidate {
  let forms: readonly ContextForm[] | undefined;
  return {
    ...labels,
    get forms(): readonly ContextForm[] {
      forms ??= make();
      return forms;
    },
  };
}

/** A turn's labels: when and in which scene (its lines say who spoke). */
function turnLabels(hit: SearchHit, sceneName: string | undefined): { label: string; repeatLabel: string } {
  const when = formatTime(hit.createdAt);
  const scene = sceneName ? truncateText(oneLine(sceneName), SCENE_NAME_CHARS) : '';
  return { label: scene ? `[${when} · ${scene}]` : `[${when}]`, repeatLabel: `[${when}]` };
}

function toRecallHit(
  item: Item,
  who: Recaller,
  inContext: ContextLevel | 'none',
  preview: string,
): RecallHit {
  const { hit, resolved } = item;
  const provenance: Provenance = {
    layer: hit.layer,
    agent: hit.agentId === null ? null : who.agentName,
    agentId: hit.agentId,
    table: TABLES[hit.layer],
    sourceId: hit.ref,
    part: hit.part,
    createdAt: hit.createdAt,
    ...(hit.lineId !== null ? { lineId: hit.lineId } : {}),
    ...(resolved.position !== undefined ? { position: resolved.position } : {}),
    ...(hit.sceneId !== null ? { sceneId: hit.sceneId } : {}),
    ...(hit.topicId !== null ? { topicId: hit.topicId } : {}),
    ...(hit.layer === 'archive' && speakerOf(resolved) !== undefined
      ? { speaker: speakerOf(resolved) as string }
      : {}),
  };
  return {
    layer: hit.layer,
    ref: hit.ref,
    score: item.score,
    confidence: hit.confidence,
    provenance,
    text: resolved.text,
    preview,
    inContext,
  };
}
