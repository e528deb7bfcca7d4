import { verifiesWithModel } from '../../llm/partial-summarizer.js';
import type { RadialRepository } from '../../store/seam.js';
import type { MemoryContext } from '../context.js';

/**
 * How many nodes beyond the best-ranked ones a navigation may show the summariser's
 * `verifyMatch` when a model or an embedder is configured (each is at most one model call).
 */
const EXTRA_VERIFY_CANDIDATES = 5;

/** Nodes per line looked at when candidates come from the line briefs. */
const NODES_PER_LINE = 2;

/** True when `verifyMatch` is worth asking about a node that shares no word with the query. */
export function verifiesByMeaning(context: MemoryContext): boolean {
  return context.embedder !== undefined || verifiesWithModel(context.summarizer);
}

/**
 * Where else verification candidates come from, beyond the nodes the recall index scored:
 * the nodes the search found by meaning alone (`unscored`: vector hits sharing no word with the
 * query, best first), or, when there are none (no embedder, or no vectors yet), the briefs of each line's newest
 * nodes, taken round-robin across lines (every line's newest first). So a reworded question
 * that shares no word with its node still reaches the model. Returns at most
 * {@link EXTRA_VERIFY_CANDIDATES} node ids, none in `exclude`.
 */
export async function verificationCandidates(
  repo: RadialRepository,
  agentId: number,
  options: {
    readonly lineId: string | undefined;
    readonly unscored: readonly string[];
    readonly exclude: ReadonlySet<string>;
  },
): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set(options.exclude);
  const take = (id: string): void => {
    if (out.length >= EXTRA_VERIFY_CANDIDATES || seen.has(id)) return;
    seen.add(id);
    out.push(id);
  };
  for (const id of options.unscored) take(id);
  if (out.length > 0) return out;
  for (const id of await newestPerLine(repo, agentId, options.lineId)) take(id);
  return out;
}

/** Ids of the newest nodes of each line (or of `lineId`), round-robin across lines. */
async function newestPerLine(
  repo: RadialRepository,
  agentId: number,
  lineId: string | undefined,
): Promise<string[]> {
  const lineIds = lineId === undefined ? (await repo.listLines(agentId)).map((l) => l.id) : [lineId];
  const perLine: string[][] = [];
  for (const id of lineIds) {
    perLine.push((await repo.lineNodes(agentId, id, { limit: NODES_PER_LINE })).map((record) => record.id));
  }
  const ids: string[] = [];
  for (let i = 0; i < NODES_PER_LINE; i++) {
    for (const nodes of perLine) {
      const id = nodes[i];
      if (id !== undefined) ids.push(id);
    }
  }
  return ids;
}
