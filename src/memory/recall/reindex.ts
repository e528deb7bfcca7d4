import type { IndexDoc } from '../../store/index-repo.js';
import type { IndexLayer } from '../../core/model/recall.js';
import type {
  VerbatimArchive,
  VerbatimKnowledge,
  VerbatimNode,
  VerbatimTopic,
} from '../../store/reindex-repo.js';
import type { ReindexRepository, StoreSeam } from '../../store/seam.js';
import {
  archiveIndexSpeaker,
  archiveIndexText,
  knowledgeIndexText,
  storedNodeIndexTexts,
  profileIndexText,
  topicIndexText,
} from '../../core/index-text.js';

/** Progress of a rebuild: rows written so far out of the records to index. */
export interface ReindexProgress {
  readonly layer: IndexLayer;
  readonly done: number;
  readonly total: number;
}

/** Options of {@link reindex}. */
export interface ReindexOptions {
  /** Called after each batch (and once at the end). */
  readonly onProgress?: (progress: ReindexProgress) => void;
  /** Records per write transaction (default 2000). */
  readonly batchSize?: number;
}

/** What a rebuild did. */
export interface ReindexReport {
  /** Index rows written, per layer. */
  readonly rows: Readonly<Record<IndexLayer, number>>;
  /** Records read, per layer. */
  readonly records: Readonly<Record<IndexLayer, number>>;
  readonly ms: number;
}

type BatchReader<R> = (repo: ReindexRepository, after: number, limit: number) => R[] | PromiseLike<R[]>;

/**
 * Rebuilds the whole recall index (`search_docs`, `search_fts`) from the verbatim tables of
 * every agent: archive records, closed topics, radial nodes, knowledge nodes and profiles,
 * with the same texts the layers write. Runs in short write transactions (one per batch), so
 * other processes keep working; while it runs, recall sees a partial index. Embeddings are
 * left pending (rows get new rowids) and `backfillEmbeddings` recomputes them.
 *
 * @example
 * ```ts
 * await reindex(store, { onProgress: ({ layer, done, total }) => console.error(layer, done, total) });
 * ```
 */
export async function reindex(store: StoreSeam, options: ReindexOptions = {}): Promise<ReindexReport> {
  const started = Date.now();
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 2000));
  const counts = await store.read('reindex', (tx) => tx.reindex.counts());
  const total = counts.archive + counts.topic + counts.radial + counts.knowledge + counts.profile;
  const rows: Record<IndexLayer, number> = { archive: 0, topic: 0, radial: 0, knowledge: 0, profile: 0 };
  const records: Record<IndexLayer, number> = { archive: 0, topic: 0, radial: 0, knowledge: 0, profile: 0 };
  let done = 0;
  await store.write('reindex', async (tx) => {
    await tx.reindex.clear();
    await tx.vectors.invalidateAll();
  });
  const run = async <R>(
    layer: IndexLayer,
    read: BatchReader<R>,
    key: (r: R) => number,
    docs: (r: R) => IndexDoc[],
  ) => {
    let after = 0;
    for (;;) {
      const batch = await store.write('reindex', async (tx) => {
        const found = await read(tx.reindex, after, batchSize);
        for (const record of found) {
          for (const doc of docs(record)) {
            if (doc.text.length === 0) continue;
            await tx.index.upsert(doc);
            rows[layer]++;
          }
        }
        return found;
      });
      if (batch.length === 0) break;
      after = key(batch[batch.length - 1] as R);
      records[layer] += batch.length;
      done += batch.length;
      options.onProgress?.({ layer, done, total });
      // Let other work (and a progress bar) run between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  await run(
    'archive',
    (repo, a, n) => repo.archive(a, n),
    (r) => r.id,
    archiveDocs,
  );
  await run(
    'topic',
    (repo, a, n) => repo.topics(a, n),
    (r) => r.rowid,
    topicDocs,
  );
  await run(
    'radial',
    (repo, a, n) => repo.nodes(a, n),
    (r) => r.seq,
    nodeDocs,
  );
  await run(
    'knowledge',
    (repo, a, n) => repo.knowledge(a, n),
    (r) => r.seq,
    knowledgeDocs,
  );
  const profiles = await store.read('reindex', (tx) => tx.reindex.profileAgents());
  await store.write('reindex', async (tx) => {
    for (const agentId of profiles) {
      const profile = await tx.conversation.profiles.get(agentId);
      const text = profileIndexText(profile);
      if (text.length === 0) continue;
      await tx.index.upsert({
        layer: 'profile',
        ref: String(agentId),
        agentId,
        createdAt: profile.updatedAt,
        text,
      });
      rows.profile++;
    }
  });
  records.profile = profiles.length;
  done += profiles.length;
  options.onProgress?.({ layer: 'profile', done, total: Math.max(total, done) });
  return { rows, records, ms: Date.now() - started };
}

function archiveDocs(r: VerbatimArchive): IndexDoc[] {
  return [
    {
      layer: 'archive',
      ref: String(r.id),
      agentId: r.agentId,
      sceneId: r.sceneId,
      topicId: r.topicId,
      createdAt: r.createdAt,
      text: archiveIndexText({
        kind: r.kind,
        role: r.role,
        speaker: r.speaker,
        eventType: r.eventType,
        content: r.content,
      }),
      speaker: archiveIndexSpeaker({ speaker: r.speaker, content: r.content }),
    },
  ];
}

function topicDocs(r: VerbatimTopic): IndexDoc[] {
  const text = topicIndexText({
    name: r.name,
    keywords: r.keywordsPending ? [] : r.keywords,
    outcome: r.outcome,
    utterances: r.utterances,
  });
  return [
    {
      layer: 'topic',
      ref: r.id,
      agentId: r.agentId,
      sceneId: r.sceneId,
      topicId: r.id,
      createdAt: r.createdAt,
      text,
    },
  ];
}

function nodeDocs(r: VerbatimNode): IndexDoc[] {
  const texts = storedNodeIndexTexts(r);
  return texts.map((t) => ({
    layer: 'radial' as const,
    ref: r.id,
    part: t.part,
    agentId: r.agentId,
    lineId: r.lineId,
    createdAt: r.createdAt,
    text: t.text,
  }));
}

function knowledgeDocs(r: VerbatimKnowledge): IndexDoc[] {
  const text = knowledgeIndexText(r.title, {
    type: r.type,
    content: r.content,
    keywords: r.keywords,
    observations: r.observations,
  });
  return [{ layer: 'knowledge', ref: r.id, agentId: null, createdAt: r.createdAt, text }];
}
