import { oneLine, truncateText } from '../core/text.js';
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
import { assembleContext, LEVEL_CHARS, type ContextCandidate } from './context.js';
import { speakerOf as rankSpeakerOf } from './rank.js';
import { searchIndexResolved, type ResolvedHit } from './search.js';
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

interface Item {
  readonly hit: SearchHit;
  readonly resolved: ResolvedText;
}

/**
 * Recall for one agent: ranked hits across layers (its own and the file-wide knowledge) and a
 * context that fills `budgetTokens` with the best of them at the right level of detail.
 * Validates everything before reading; reads in one snapshot.
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
  if (who.embedder) await catchUpEmbeddings(store, who.embedder);
  const ranked = await searchIndexResolved(store, {
    agentId: who.agentId,
    query: text,
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
  const items = bestPartPerRecord(ranked);
  const candidates = items.slice(0, Math.max(parsed.limit, CONTEXT_CANDIDATES));
  const scenes = await store.read('recall', (tx) => sceneNames(tx, who.agentId, candidates));
  const assembled = assembleContext(
    candidates.map((item) => toCandidate(item, scenes)),
    parsed.budgetTokens,
  );
  const hits = candidates
    .slice(0, parsed.limit)
    .map((item, index) => toRecallHit(item, who, assembled.included.get(index) ?? 'none'));
  return {
    query: text,
    hits,
    context: assembled.context,
    usedTokens: assembled.usedTokens,
    budgetTokens: parsed.budgetTokens,
  };
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

/** One item per record (its best-ranked part). */
function bestPartPerRecord(ranked: readonly ResolvedHit[]): Item[] {
  const seen = new Set<string>();
  const best: Item[] = [];
  for (const item of ranked) {
    const key = `${item.hit.layer}\u0000${item.hit.ref}`;
    if (seen.has(key)) continue;
    seen.add(key);
    best.push(item);
  }
  return best;
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
      const named = resolved.speaker !== undefined || rankSpeakerOf(resolved.text) !== undefined;
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
  const out = new Map<string, string>();
  for (const { hit } of items) {
    const id = hit.sceneId;
    if (id === null || out.has(id)) continue;
    const name = (await tx.conversation.scenes.getScene(agentId, id))?.name ?? '';
    out.set(id, name === `session:${id}` ? '' : name);
  }
  return out;
}

function speakerOf(resolved: ResolvedText): string | undefined {
  return resolved.speaker ?? resolved.role;
}

function toCandidate(item: Item, scenes: ReadonlyMap<string, string>): ContextCandidate {
  const speaker = item.hit.layer === 'archive' ? item.resolved.speaker : undefined;
  const full = speaker ? `${speaker}: ${item.resolved.text}` : item.resolved.text;
  const sceneId = item.hit.sceneId;
  const labels = contextLabels(item.hit, item.resolved, sceneId === null ? undefined : scenes.get(sceneId));
  return {
    ...labels,
    ...(sceneId !== null ? { group: sceneId } : {}),
    full,
    levels: item.resolved.levels,
  };
}

function toRecallHit(item: Item, who: Recaller, inContext: ContextLevel | 'none'): RecallHit {
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
    score: hit.score,
    confidence: hit.confidence,
    provenance,
    text: resolved.text,
    preview: truncateText(oneLine(resolved.text), LEVEL_CHARS.brief),
    inContext,
  };
}
