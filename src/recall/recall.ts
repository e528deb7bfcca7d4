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
import type { Store } from '../store/store.js';
import { assembleContext, LEVEL_CHARS } from './context.js';
import { searchIndex } from './search.js';
import { applyTemporalIntent, temporalIntent } from './temporal-intent.js';
import { toUnits, type RankedItem, type RecallUnit } from './turn-units.js';
import { backfillEmbeddings } from './vectors.js';

/** Who is recalling. */
export interface Recaller {
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
  store: Store,
  who: Recaller,
  query: unknown,
  options?: unknown,
): Promise<RecallResult> {
  const text = parseInput(recallQuerySchema, query, 'query');
  const parsed = parseInput(recallOptionsSchema, options ?? {}, 'options');
  if (who.embedder) await catchUpEmbeddings(store, who.embedder);
  const ranked = await searchIndex(store, {
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
  const units = store.engine.read('recall', () => toUnits(store, who.agentId, resolveItems(store, ranked)));
  const ordered = applyTemporalIntent(
    matchedUnits(units, text, who.embedder !== undefined),
    temporalIntent(text),
  );
  const candidates = ordered.slice(0, Math.max(parsed.limit, CONTEXT_CANDIDATES));
  const assembled = assembleContext(
    candidates.map(({ candidate: unit }) => ({ label: unit.label, full: unit.text, levels: unit.levels })),
    parsed.budgetTokens,
  );
  // Each record takes its unit's temporal lift: records in the order of their final scores, and
  // each unit where its best record stands.
  const hits = candidates
    .flatMap(({ candidate: unit, score }, index) =>
      unit.items.map((item) => ({
        item,
        index,
        score: item.hit.score + (score - unit.score),
      })),
    )
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, parsed.limit)
    .map(({ item, index, score }) => toRecallHit(item, who, assembled.included.get(index) ?? 'none', score));
  return {
    query: text,
    hits,
    context: assembled.context,
    usedTokens: assembled.usedTokens,
    budgetTokens: parsed.budgetTokens,
  };
}

/**
 * The units that hold a word of the query, unless none does (then all): a record found only
 * through its neighbours or the recency prior fills a place without answering anything. With an
 * embedder, vector neighbours hold no query word by nature and are kept.
 */
function matchedUnits(units: readonly RecallUnit[], query: string, vectors: boolean): RecallUnit[] {
  if (vectors || query.trim().length === 0) return [...units];
  const matched = units.filter((unit) => unit.confidence > 0);
  return matched.length > 0 ? matched : [...units];
}

/** Rows embedded per recall at most, so recall latency stays bounded while vectors catch up. */
const RECALL_BACKFILL = 64;

/**
 * Embeds a few pending rows before searching. A failing embedder, or a file whose vectors come
 * from another model, leaves recall to BM25 alone rather than failing it.
 */
async function catchUpEmbeddings(store: Store, embedder: Embedder): Promise<void> {
  if (store.engine.options.readOnly) return;
  try {
    await backfillEmbeddings(store, embedder, { limit: RECALL_BACKFILL });
  } catch {
    // Vectors are derived and optional; BM25 answers meanwhile.
  }
}

/** One item per record (its best-ranked part), with the verbatim text read back. */
function resolveItems(store: Store, ranked: readonly SearchHit[]): RankedItem[] {
  const seen = new Set<string>();
  const best: SearchHit[] = [];
  for (const hit of ranked) {
    const key = `${hit.layer}\u0000${hit.ref}`;
    if (seen.has(key)) continue;
    seen.add(key);
    best.push(hit);
  }
  const texts = store.recall.resolve(best);
  return best.flatMap((hit) => {
    const resolved = texts.get(hit.rowid);
    return resolved ? [{ hit, resolved }] : [];
  });
}

function speakerOf(resolved: ResolvedText): string | undefined {
  return resolved.speaker ?? resolved.role;
}

function toRecallHit(
  item: RankedItem,
  who: Recaller,
  inContext: ContextLevel | 'none',
  score: number,
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
    score,
    confidence: hit.confidence,
    provenance,
    text: resolved.text,
    preview: truncateText(oneLine(resolved.text), LEVEL_CHARS.brief),
    inContext,
  };
}
