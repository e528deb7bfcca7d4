import { sliceCodePoints } from '../core/text.js';
import type { Embedder } from '../llm/types.js';
import type { DocRow, ResolvedText } from '../store/recall-repo.js';
import type { StoreSeam, StoreTx } from '../store/seam.js';

type VectorTx = Pick<StoreTx, 'recall' | 'vectors'>;

/** Texts longer than this (code points) are cut before embedding; embedders have input limits. */
const EMBED_MAX_CHARS = 8000;

/** What a backfill did. */
interface BackfillReport {
  /** Rows that got a vector. */
  readonly embedded: number;
  /** Rows skipped because they changed or vanished while their vector was computed. */
  readonly skipped: number;
  /** Rows still pending afterwards. */
  readonly pending: number;
}

/** Options of {@link backfillEmbeddings}. */
interface BackfillOptions {
  /** Rows per `embed` call and per write transaction (default 32). */
  readonly batchSize?: number;
  /** Stop after this many rows (default: all pending rows). */
  readonly limit?: number;
  readonly onProgress?: (done: number, total: number) => void;
}

/**
 * Makes `embedder` the file's embedding model (creating the vector table the first time).
 * A different model than the one the file's vectors were made with is a `CONFLICT`, unless
 * `replace` is set: then every vector is dropped and recomputed by later backfills. A vector
 * table of an older layout is rebuilt with the current one (every vector kept).
 */
export async function configureEmbedder(
  store: StoreSeam,
  embedder: Embedder,
  options: { readonly replace?: boolean } = {},
): Promise<'created' | 'unchanged' | 'replaced'> {
  const model = { modelId: embedder.modelId, dimensions: embedder.dimensions };
  const { current, layoutCurrent } = await store.read('configure embedder', async (tx) => ({
    current: await tx.vectors.model(),
    layoutCurrent: await tx.vectors.layoutCurrent(),
  }));
  if (
    current &&
    current.modelId === model.modelId &&
    current.dimensions === model.dimensions &&
    layoutCurrent
  )
    return 'unchanged';
  return store.write('configure embedder', (tx) => tx.vectors.configure(model, options.replace ?? false));
}

/** The text a row is embedded from: the verbatim text (with the speaker for utterances). */
function embeddingText(doc: DocRow, resolved: ResolvedText): string {
  const text =
    doc.layer === 'archive' && resolved.speaker ? `${resolved.speaker}: ${resolved.text}` : resolved.text;
  return sliceCodePoints(text, EMBED_MAX_CHARS);
}

/**
 * Computes the vectors of index rows whose embedding is pending. Texts are read in one short
 * read, embedded with no transaction open, then written in one short write that first checks
 * each row still holds the text that was embedded (a row rewritten meanwhile stays pending).
 * A failing embedder rejects with its error; what was stored before stays stored.
 *
 * @example
 * ```ts
 * const report = await backfillEmbeddings(store, embedder, { onProgress: (done, total) => bar.update(done, total) });
 * ```
 */
export async function backfillEmbeddings(
  store: StoreSeam,
  embedder: Embedder,
  options: BackfillOptions = {},
): Promise<BackfillReport> {
  await configureEmbedder(store, embedder);
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 32));
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  const total = Math.min(limit, await store.read('backfill', (tx) => tx.vectors.pendingCount()));
  let embedded = 0;
  let skipped = 0;
  let after = 0;
  while (embedded + skipped < limit) {
    const want = Math.min(batchSize, limit - embedded - skipped);
    const batch = await store.read('backfill', (tx) => readPending(tx, want, after));
    if (batch.length === 0) break;
    after = (batch[batch.length - 1] as { rowid: number }).rowid;
    const vectors = await embedder.embed(batch.map((b) => b.text));
    const saved = await store.write('backfill', (tx) => saveIfUnchanged(tx, batch, vectors));
    embedded += saved;
    skipped += batch.length - saved;
    options.onProgress?.(embedded + skipped, total);
  }
  const pending = await store.read('backfill', (tx) => tx.vectors.pendingCount());
  return { embedded, skipped, pending };
}

interface PendingText {
  readonly rowid: number;
  readonly text: string;
}

async function readPending(tx: VectorTx, limit: number, after: number): Promise<PendingText[]> {
  const docs = (await tx.recall.docs(await tx.vectors.pending(limit, after))).sort(
    (a, b) => a.rowid - b.rowid,
  );
  const resolved = await tx.recall.resolve(docs);
  return docs.map((doc) => {
    const r = resolved.get(doc.rowid);
    // A row whose record is gone is embedded from nothing: it stays findable by BM25 only until removed.
    return { rowid: doc.rowid, text: r ? embeddingText(doc, r) : '' };
  });
}

async function saveIfUnchanged(
  tx: VectorTx,
  batch: readonly PendingText[],
  vectors: readonly Float32Array[],
): Promise<number> {
  const docs = await tx.recall.docs(batch.map((b) => b.rowid));
  const now = await tx.recall.resolve(docs);
  const byRowid = new Map(docs.map((d) => [d.rowid, d]));
  let saved = 0;
  for (const [i, item] of batch.entries()) {
    const doc = byRowid.get(item.rowid);
    const resolved = now.get(item.rowid);
    const vector = vectors[i];
    if (!doc || !resolved || !vector || embeddingText(doc, resolved) !== item.text) continue;
    if (await tx.vectors.save(item.rowid, vector)) saved++;
  }
  return saved;
}
