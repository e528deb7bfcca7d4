import { z } from 'zod';
import { oneLine, truncateText } from '../core/text.js';
import { parseInput } from '../core/validate.js';
import type { Embedder } from '../llm/types.js';
import type { IndexLayer } from '../store/index-repo.js';
import type { ResolvedText } from '../store/recall-repo.js';
import type { Store } from '../store/store.js';
import { assembleContext, LEVEL_CHARS, type ContextCandidate, type ContextLevel } from './context.js';
import { MAX_SEARCH_LIMIT, searchIndex, type SearchHit } from './search.js';
import { backfillEmbeddings } from './vectors.js';

/** Every layer the recall index holds. */
export const INDEX_LAYERS = [
  'radial',
  'topic',
  'archive',
  'knowledge',
  'profile',
] as const satisfies readonly IndexLayer[];

const idSchema = z.string().min(1, 'must not be empty').max(256, 'at most 256 characters');
const timeSchema = z.union([
  z.number().int('must be an integer (ms since the epoch)').min(0, 'must not be negative'),
  z.date().transform((date) => date.getTime()),
]);

/** Options of `agent.recall(query, options)`. */
export const recallOptionsSchema = z
  .strictObject({
    /** Token budget of the assembled context (default 1000; 0 gives hits only). */
    budgetTokens: z
      .number()
      .int('must be an integer')
      .min(0, 'must not be negative')
      .max(1_000_000)
      .default(1000),
    /** At most this many hits (default 10). */
    limit: z
      .number()
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .max(MAX_SEARCH_LIMIT)
      .default(10),
    layers: z
      .array(z.enum(INDEX_LAYERS, { error: `must be one of ${INDEX_LAYERS.join(', ')}` }))
      .min(1, 'must name at least one layer')
      .optional(),
    lineId: idSchema.optional(),
    sceneId: idSchema.optional(),
    topicId: idSchema.optional(),
    /** Only records created at or after this time (ms or Date). */
    from: timeSchema.optional(),
    /** Only records created before this time (ms or Date). */
    to: timeSchema.optional(),
  })
  .check((ctx) => {
    const { from, to } = ctx.value;
    if (from !== undefined && to !== undefined && to < from) {
      ctx.issues.push({ code: 'custom', path: ['to'], message: 'must not be before from', input: ctx.value });
    }
  });

/** Options of `agent.recall`. */
export type RecallOptions = z.input<typeof recallOptionsSchema>;

const querySchema = z.string({ error: 'must be a string' }).max(100_000, 'at most 100000 characters');

/** Where a recalled item came from: enough to read the verbatim record again. */
export interface Provenance {
  readonly layer: IndexLayer;
  /** The owning agent's name; `null` for file-wide knowledge. */
  readonly agent: string | null;
  readonly agentId: number | null;
  /** The verbatim table and the record's id in it (`archive` row id, node id, topic id, …). */
  readonly table: 'archive' | 'nodes' | 'topics' | 'kg_nodes' | 'profiles';
  readonly sourceId: string;
  /** Which text of the record matched (`label`, `conversation`, `summary`, `full`; '' for one-text records). */
  readonly part: string;
  readonly lineId?: string;
  /** Radial nodes: position on the line when recalled (1 = newest). */
  readonly position?: number;
  readonly sceneId?: string;
  readonly topicId?: string;
  /** Archive utterances: who spoke (speaker name, else role). */
  readonly speaker?: string;
  readonly createdAt: number;
}

/** One recalled item. */
export interface RecallHit {
  readonly layer: IndexLayer;
  readonly ref: string;
  /** Only meaningful to order the hits of one recall. */
  readonly score: number;
  /** 0..1, comparable across queries (see `SearchHit.confidence`). */
  readonly confidence: number;
  readonly provenance: Provenance;
  /** The verbatim text of the part that matched. */
  readonly text: string;
  /** At most 200 characters of it, on one line. */
  readonly preview: string;
  /** The level at which the context holds this item, or `none`. */
  readonly inContext: ContextLevel | 'none';
}

/** What `agent.recall` returns. */
export interface RecallResult {
  readonly query: string;
  readonly hits: readonly RecallHit[];
  /** The best items, each labelled with where it came from, within `budgetTokens`. */
  readonly context: string;
  /** Tokens of `context` (o200k_base), never more than `budgetTokens`. */
  readonly usedTokens: number;
  readonly budgetTokens: number;
}

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
  store: Store,
  who: Recaller,
  query: unknown,
  options?: unknown,
): Promise<RecallResult> {
  const text = parseInput(querySchema, query, 'query');
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
  const items = store.engine.read('recall', () => resolveItems(store, ranked));
  const candidates = items.slice(0, Math.max(parsed.limit, CONTEXT_CANDIDATES));
  const assembled = assembleContext(candidates.map(toCandidate), parsed.budgetTokens);
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
function resolveItems(store: Store, ranked: readonly SearchHit[]): Item[] {
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

function formatTime(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** The label an item carries in the context: layer, where, when. */
export function contextLabel(hit: SearchHit, resolved: ResolvedText): string {
  const where: string[] = [];
  switch (hit.layer) {
    case 'archive':
      where.push(`archive #${hit.ref}`);
      if (resolved.speaker === undefined && resolved.role !== undefined) where.push(resolved.role);
      if (resolved.eventType !== undefined) where.push(resolved.eventType);
      if (hit.sceneId) where.push(`scene ${hit.sceneId}`);
      break;
    case 'radial':
      where.push(`line ${hit.lineId ?? '?'} #${resolved.position ?? '?'}`);
      if (resolved.title) where.push(truncateText(oneLine(resolved.title), 80));
      break;
    case 'topic':
      where.push(`topic ${hit.ref}`);
      if (hit.sceneId) where.push(`scene ${hit.sceneId}`);
      break;
    case 'knowledge':
      where.push(`knowledge ${resolved.title ?? hit.ref}`);
      break;
    case 'profile':
      where.push('profile');
      break;
  }
  where.push(formatTime(hit.createdAt));
  return `[${where.join(' · ')}]`;
}

function speakerOf(resolved: ResolvedText): string | undefined {
  return resolved.speaker ?? resolved.role;
}

function toCandidate(item: Item): ContextCandidate {
  const speaker = item.hit.layer === 'archive' ? item.resolved.speaker : undefined;
  const full = speaker ? `${speaker}: ${item.resolved.text}` : item.resolved.text;
  return { label: contextLabel(item.hit, item.resolved), full, levels: item.resolved.levels };
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
