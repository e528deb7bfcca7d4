import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from '../api/memory-db.js';
import type { Agent } from '../api/agent.js';
import type { RecallHit } from '../core/model/recall.js';
import {
  evaluateLocomo,
  loadLocomo,
  utteranceText,
  type LocomoAsker,
  type LocomoProgress,
  type LocomoReport,
  type LocomoConversation,
  type LocomoSubject,
  type LocomoTurn,
} from './locomo.js';

/** How many hits a question asks for (the metric needs the top 20 turns). */
const RANK_LIMIT = 40;

/**
 * Groups a session's utterances into turns the way a host would drive hedgehop's turn loop:
 * an utterance is the turn's input, and a reply by the other speaker right after it is the
 * turn's output.
 */
export function pairTurns(turns: readonly LocomoTurn[]): { input: LocomoTurn; output?: LocomoTurn }[] {
  const out: { input: LocomoTurn; output?: LocomoTurn }[] = [];
  for (let i = 0; i < turns.length; i++) {
    const input = turns[i] as LocomoTurn;
    const next = turns[i + 1];
    if (next && next.speaker !== input.speaker) {
      out.push({ input, output: next });
      i++;
    } else out.push({ input });
  }
  return out;
}

/** Ingests one conversation through the public turn loop: a scene per session. */
async function ingest(agent: Agent, conversation: LocomoConversation): Promise<void> {
  for (const session of conversation.sessions) {
    let first = true;
    for (const pair of pairTurns(session.turns)) {
      await agent.search(
        first ? { newScene: true, sceneName: `session ${session.index} (${session.dateText})` } : {},
      );
      first = false;
      await agent.update({
        input: utteranceText(pair.input),
        ...(pair.output ? { output: utteranceText(pair.output) } : {}),
        createdAt: session.time,
      });
    }
  }
}

/** Maps recall hits to dia ids: archive records directly, a topic to the records of its turn. */
function turnsOf(
  hits: readonly RecallHit[],
  byContent: ReadonlyMap<string, string>,
  byTopic: ReadonlyMap<string, string[]>,
): string[] {
  const out: string[] = [];
  const add = (id: string | undefined): void => {
    if (id !== undefined && !out.includes(id)) out.push(id);
  };
  for (const hit of hits) {
    if (hit.layer === 'archive') add(byContent.get(hit.text));
    else if (hit.layer === 'topic') for (const id of byTopic.get(hit.ref) ?? []) add(id);
  }
  return out;
}

/**
 * The hedgehop side of the LoCoMo evaluation: each conversation goes into a fresh file in a
 * temporary folder (primary agent, offline summariser unless `options` say otherwise), each
 * question through `agent.recall`.
 */
export function hedgehopLocomoSubject(options: { readonly tempRoot?: string } = {}): LocomoSubject {
  return {
    async ingest(conversation: LocomoConversation): Promise<LocomoAsker> {
      const dir = mkdtempSync(join(options.tempRoot ?? tmpdir(), 'hedgehop-locomo-'));
      const db = await openMemory(join(dir, 'locomo.db'), { durability: 'normal', dream: { auto: false } });
      try {
        const agent = db.primary();
        await ingest(agent, conversation);
        const records = await agent.searchArchive({ limit: 10_000 });
        const byContent = new Map<string, string>();
        const texts = new Map<string, string>();
        for (const session of conversation.sessions) {
          for (const turn of session.turns) texts.set(turn.diaId, utteranceText(turn));
        }
        const diaByText = new Map([...texts].map(([id, text]) => [text, id]));
        const byTopic = new Map<string, string[]>();
        for (const record of records) {
          const dia = diaByText.get(record.content);
          if (dia === undefined) continue;
          byContent.set(record.content, dia);
          byTopic.set(record.topicId, [...(byTopic.get(record.topicId) ?? []), dia]);
        }
        return {
          async rank(question: string): Promise<readonly string[]> {
            const { hits } = await agent.recall(question, { limit: RANK_LIMIT, budgetTokens: 0 });
            return turnsOf(hits, byContent, byTopic);
          },
          async contextTurns(question: string, budgetTokens: number): Promise<ReadonlySet<string>> {
            const { context } = await agent.recall(question, { limit: RANK_LIMIT, budgetTokens });
            return new Set([...texts].filter(([, text]) => context.includes(text)).map(([id]) => id));
          },
          async close(): Promise<void> {
            await db.close();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      } catch (error) {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    },
  };
}

/**
 * The whole evaluation of a LoCoMo file with hedgehop (offline, no model): what
 * `hedgehop eval locomo --data <file>` runs. `onProgress` is called after each question.
 *
 * @example
 * ```ts
 * const report = await evaluateLocomoFile('locomo-dev.json', { onProgress: (done, total) => bar(done, total) });
 * console.log(JSON.stringify(locomoJson(report)));
 * ```
 */
export async function evaluateLocomoFile(
  path: string,
  options: {
    readonly onProgress?: LocomoProgress;
    readonly budgets?: boolean;
    readonly tempRoot?: string;
  } = {},
): Promise<LocomoReport> {
  const conversations = await loadLocomo(path);
  const subject = hedgehopLocomoSubject(options.tempRoot === undefined ? {} : { tempRoot: options.tempRoot });
  return evaluateLocomo(conversations, subject, {
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    budgets: options.budgets ?? true,
  });
}
