import { z } from 'zod';
import { invalidInput } from '../../core/errors.js';
import { parseInput } from '../../core/validate.js';
import { queryTerms, stem, tokenize } from '../../recall/query.js';
import { searchIndexOrder } from '../../recall/search.js';
import { MAX_SEARCH_LIMIT } from '../../core/model/recall.js';
import type { ArchiveWrite } from '../../store/archive-repo.js';
import {
  type ArchiveSlot,
  type ArchiveRecord,
  CONVERSATION_LIMITS,
  archiveInputSchema,
  archiveQuerySchema,
} from '../../core/model/conversation.js';
import type { MemoryContext } from '../context.js';
import { subtreeSeqs } from '../plan/plan-tree.js';
import { archiveIndexText } from '../../core/index-text.js';

const manySchema = z
  .array(archiveInputSchema)
  .min(1, 'must hold at least one record')
  .max(
    CONVERSATION_LIMITS.batchRecords,
    `at most ${CONVERSATION_LIMITS.batchRecords} records per call (split the batch)`,
  );

function toWrite(record: z.output<typeof archiveInputSchema>, now: number): ArchiveWrite {
  return {
    kind: record.kind,
    role: record.kind === 'utterance' ? (record.role ?? 'user') : undefined,
    speaker: record.speaker,
    contentType: record.contentType,
    eventType: record.eventType,
    planStep: record.planStep,
    content: record.content,
    createdAt: record.createdAt ?? now,
    seq: record.seq,
  };
}

/**
 * Writes one record into the open turn and returns its slot. Refused with `INVALID_INPUT` when
 * no turn is open, when the record breaks a limit, or when its `planStep` is not a step of the
 * open turn; a refused call writes nothing.
 */
export async function appendArchive(context: MemoryContext, record: unknown): Promise<ArchiveSlot> {
  const parsed = parseInput(archiveInputSchema, record, 'appendArchive');
  const now = context.clock.now();
  const slots = await context.store.write(
    'appendArchive',
    (tx) => tx.conversation.archive.append(context.agentId, [toWrite(parsed, now)], 'appendArchive'),
    { oneCall: true },
  );
  return slots[0] as ArchiveSlot;
}

/**
 * Writes many records into the open turn in one transaction (all or nothing), in order; for
 * importing whole sessions. Returns their slots in input order.
 */
export function appendArchiveMany(context: MemoryContext, records: unknown): Promise<ArchiveSlot[]> {
  const parsed = parseInput(manySchema, records, 'appendArchiveMany');
  const now = context.clock.now();
  return context.store.write(
    'appendArchiveMany',
    (tx) =>
      tx.conversation.archive.append(
        context.agentId,
        parsed.map((one) => toWrite(one, now)),
        'appendArchiveMany',
      ),
    { oneCall: true },
  );
}

/**
 * Reads archive records. Without `text`: every record matching the conditions, in slot order
 * within a topic, else in record-time order; `limit` (default 100, `DEFAULT_ARCHIVE_LIMIT`)
 * keeps the newest. With `text`: records holding the query's words (stemmed word match),
 * found through the shared recall index (among its best {@link MAX_SEARCH_LIMIT} matches),
 * best match first. `contains` is a case-insensitive substring of the content (MemHop's
 * keyword: `dentis` finds `dentist`); `ids` keeps only those records.
 */
export async function searchArchive(context: MemoryContext, query: unknown): Promise<ArchiveRecord[]> {
  const parsed = parseInput(archiveQuerySchema, query, 'searchArchive');
  if (parsed.topicId?.startsWith('scn_'))
    throw invalidInput(
      'searchArchive.topicId',
      'that is a scene id; pass it as sceneId (a turn id is a topic id)',
    );
  const planNodes =
    parsed.planStep !== undefined && parsed.topicId !== undefined
      ? await context.store.read('searchArchive', (tx) =>
          tx.conversation.plans.nodes(parsed.topicId as string),
        )
      : undefined;
  const filter = {
    agentId: context.agentId,
    topicId: parsed.topicId,
    sceneId: parsed.sceneId,
    from: parsed.from,
    to: parsed.to,
    kind: parsed.kind,
    contentType: parsed.contentType,
    role: parsed.role,
    speaker: parsed.speaker,
    contains: parsed.contains,
    ids: parsed.ids?.map(Number),
    planSteps:
      planNodes !== undefined && parsed.planStep !== undefined
        ? subtreeSeqs(planNodes, parsed.planStep)
        : undefined,
  };
  const text = parsed.text?.trim() ?? '';
  if (text.length === 0) {
    return context.store.read('searchArchive', (tx) =>
      tx.conversation.archive.query({ ...filter, limit: parsed.limit }),
    );
  }
  const wanted = filter.ids === undefined ? undefined : new Set(filter.ids);
  const stems = queryTerms(text).map((term) => term.stem);
  const search = async (limit: number): Promise<{ records: ArchiveRecord[]; exhausted: boolean }> => {
    // The ranking's order (the records are read below) and whether FTS5 matched each row.
    const hits = await searchIndexOrder(context.store, {
      agentId: context.agentId,
      query: text,
      layers: ['archive'],
      sceneId: parsed.sceneId,
      topicId: parsed.topicId,
      from: parsed.from,
      to: parsed.to === undefined ? undefined : parsed.to + 1,
      // Every read re-ranks the same best matches (the rest follow in BM25 order), so the first
      // pass's order is the head of the widened pass's.
      limit,
    });
    const archive = hits.filter((item) => item.layer === 'archive');
    const matched = new Set(archive.filter((item) => item.matchesQuery).map((item) => Number(item.ref)));
    const ranked = archive
      .map((item) => Number(item.ref))
      .filter((id) => wanted === undefined || wanted.has(id));
    if (ranked.length === 0) return { records: [], exhausted: true };
    const records = await context.store.read('searchArchive', (tx) =>
      tx.conversation.archive.query({ ...filter, ids: ranked, limit: ranked.length }),
    );
    const byId = new Map(records.map((record) => [record.id, record]));
    const found = ranked
      .map((id) => byId.get(String(id)))
      .filter(
        (record): record is ArchiveRecord =>
          record !== undefined && (matched.has(Number(record.id)) || holdsAny(record, stems)),
      )
      .slice(0, parsed.limit);
    return { records: found, exhausted: hits.length < limit };
  };
  // Most calls are answered from a few times `limit` ranked rows; conditions that reject many
  // of them (kind, role, speaker, plan step) widen the search to the index's best matches.
  const first = await search(Math.min(MAX_SEARCH_LIMIT, Math.max(parsed.limit * 3, FIRST_PASS_MIN)));
  if (first.records.length >= parsed.limit || first.exhausted) return first.records;
  return (await search(MAX_SEARCH_LIMIT)).records;
}

/** Ranked rows read by searchArchive's first pass at least. */
const FIRST_PASS_MIN = 30;

// The recall index also ranks a record's neighbours (context for recall); as a condition, text
// matches only records whose own indexed text (speaker or event type, and content) holds a query word.
// The query's own FTS5 matches hold one by definition; only the rows ranking brought in otherwise
// (feedback, neighbours, topics) are tokenized here.
function holdsAny(record: ArchiveRecord, stems: readonly string[]): boolean {
  const own = new Set(tokenize(archiveIndexText(record)).map(stem));
  return stems.some((s) => own.has(s));
}

/** What a retention pass removed. */
interface PruneReport {
  /** False when retention is off (the default): nothing was looked at. */
  readonly enabled: boolean;
  readonly cutoff: number | undefined;
  readonly archiveRecords: number;
  readonly planNodes: number;
}

/**
 * Retention (off by default: `openMemory(path, { retention: { archiveMs } })` turns it on):
 * deletes archive records older than the window (host time) and finished plan steps not updated
 * within it (library time), never touching the open turn. Dream calls this.
 */
export async function pruneExpired(context: MemoryContext): Promise<PruneReport> {
  const windowMs = context.settings.retentionMs;
  if (windowMs === undefined) return { enabled: false, cutoff: undefined, archiveRecords: 0, planNodes: 0 };
  const cutoff = context.clock.now() - windowMs;
  return context.store.write('prune', async (tx) => {
    const repo = tx.conversation;
    const open = await repo.scenes.openTurnOf(context.agentId);
    return {
      enabled: true,
      cutoff,
      archiveRecords: await repo.archive.prune(context.agentId, cutoff, open?.id),
      planNodes: await repo.plans.prune(context.agentId, cutoff),
    };
  });
}
