import { openMemory, type Agent, type MemoryDB, type OpenOptions } from '../../src/index.js';
import { MockLanguageModel, type MockReply } from '../../src/llm/mock-language-model.js';
import { ModelSummarizer } from '../../src/llm/model-summarizer.js';
import type { GenerateOptions } from '../../src/llm/types.js';
import { freshMemoryPath, memorySql } from '../helpers/engines.js';

/** A fixed base time (2024-01-01) in milliseconds, and a helper for later times. */
export const T0 = 1_704_067_200_000;
export const at = (minutes: number): number => T0 + minutes * 60_000;

/** A controllable clock (the library wraps it to never repeat a value). */
export class TestClock {
  time = T0;
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** Subjects of conversation threads: each thread's turns share most of their words. */
export const SUBJECTS = [
  ['billing service deploy', 'canary host rollback'],
  ['vault secret rotation', 'jwt signing key'],
  ['postgres replica lag', 'read replica failover'],
  ['quarterly budget report', 'finance spreadsheet totals'],
  ['warehouse inventory forecast', 'shipping delays'],
  ['pager alert noise', 'on-call rotation schedule'],
  ['customer refund ticket', 'invoice correction'],
  ['schema migration plan', 'orders table index'],
  ['frontend bundle size', 'lazy loading routes'],
  ['kubernetes node pool', 'autoscaler limits'],
] as const;

/** The i-th turn of a thread about `subject`. */
export function threadTurn(subject: readonly [string, string], i: number): { input: string; output: string } {
  const [a, b] = subject;
  return {
    input: `Question ${i + 1} about the ${a} and the ${b}.`,
    output: `Answer ${i + 1}: checked the ${a}; the ${b} looks fine now.`,
  };
}

/** Opens a fresh memory (on the engine under test) with a test clock and (unless given) the offline summariser. */
export async function openDreamTemp(
  options: OpenOptions = {},
): Promise<{ db: MemoryDB; path: string; clock: TestClock; agent: Agent }> {
  const clock = new TestClock();
  const path = freshMemoryPath();
  const db = await openMemory(path, { clock, durability: 'normal', ...options });
  return { db, path, clock, agent: db.primary() };
}

/**
 * Writes `threads` threads of `perThread` turns each into one new scene (or the current one),
 * one minute apart; returns the scene id.
 */
export async function fillScene(
  agent: Agent,
  clock: TestClock,
  options: { threads: number; perThread: number; newScene?: boolean; offset?: number; sceneId?: string },
): Promise<string> {
  let sceneId: string | undefined;
  let first = options.sceneId === undefined && (options.newScene ?? true);
  for (let t = 0; t < options.threads; t++) {
    const subject = SUBJECTS[(t + (options.offset ?? 0)) % SUBJECTS.length] as readonly [string, string];
    for (let i = 0; i < options.perThread; i++) {
      const query = first ? { newScene: true } : options.sceneId ? { sceneId: options.sceneId } : {};
      const opened = await agent.search(query);
      first = false;
      sceneId = opened.scene.id;
      clock.advance(60_000);
      await agent.update({ ...threadTurn(subject, i), createdAt: clock.now() });
    }
  }
  return sceneId as string;
}

// ---- scripted language models -------------------------------------------------------------

/** The topic ids a grouping prompt lists, in order. */
export function promptTopicIds(prompt: string): string[] {
  return [...prompt.matchAll(/id="([^"]+)"/gu)].map((m) => m[1] as string);
}

/** Distinct lower-case words of four letters or more of the text after the first line. */
function wordsOf(prompt: string): string[] {
  const text = prompt.split('\n').slice(1).join(' ');
  return [...new Set(text.toLowerCase().match(/[a-z]{4,}/gu) ?? [])].slice(0, 12);
}

type Handler = (options: GenerateOptions, call: number) => MockReply | Promise<MockReply>;

/** Sensible replies for every operation; override any with `handlers`. */
export const DEFAULT_REPLIES: Readonly<Record<string, Handler>> = {
  distillKeywords: (o) => ({ keywords: wordsOf(o.prompt) }),
  summarize: (o) => ({
    summary: `Model summary: ${(
      o.prompt
        .split('\n')
        .slice(1)
        .join(' ')
        .match(/[A-Za-z]{4,}/gu) ?? []
    )
      .slice(0, 6)
      .join(' ')}`,
  }),
  verifyMatch: () => ({ match: true, confidence: 0.9 }),
  groupTopics: (o) => {
    const ids = promptTopicIds(o.prompt);
    return {
      groups:
        ids.length >= 2
          ? [{ topic_ids: ids.slice(0, 2), merged_summary: 'The first two turns, retold.' }]
          : [],
    };
  },
  distillProfile: (o) => {
    const id = /id="([^"]+)"/u.exec(o.prompt)?.[1] ?? 'x';
    return {
      emotion: { valence: 0.8, arousal: 0.6, dominance: 0.4 },
      mbti: { i_e: -0.5, n_s: 0.25, t_f: -0.75, j_p: 0, type: 'ESFP' },
      personality: 'Methodical; keeps notes.',
      per_node: [{ id, valence: 0.9, arousal: 0.7 }],
    };
  },
};

/** A ModelSummarizer over a MockLanguageModel answering by operation. */
export function scriptedSummarizer(handlers: Partial<Record<string, Handler>> = {}): {
  summarizer: ModelSummarizer;
  model: MockLanguageModel;
} {
  const model = new MockLanguageModel((options, call) => {
    const operation = options.operation ?? 'unknown';
    const handler = handlers[operation] ?? DEFAULT_REPLIES[operation];
    if (!handler) throw new Error(`no scripted reply for ${operation}`);
    return handler(options, call);
  });
  return { summarizer: new ModelSummarizer(model, { outputRetries: 1 }), model };
}

/** A promise that resolves when `open()` is called, and a way to see that someone waits on it. */
export class Gate {
  readonly #opened: Promise<void>;
  #open!: () => void;
  #arrived!: () => void;
  /** Resolves when the first caller reached the gate. */
  readonly arrived: Promise<void>;

  constructor() {
    this.#opened = new Promise((resolve) => (this.#open = resolve));
    this.arrived = new Promise((resolve) => (this.#arrived = resolve));
  }

  async wait(): Promise<void> {
    this.#arrived();
    await this.#opened;
  }

  open(): void {
    this.#open();
  }
}

/** Rows of every table that holds memory (not Dream's own record), for before/after comparisons. */
export async function memoryState(db: MemoryDB): Promise<Record<string, unknown[]>> {
  const all = (sql: string): Promise<unknown[]> => memorySql(db, sql);
  return {
    topics: await all('SELECT * FROM topics ORDER BY id'),
    archive: await all('SELECT * FROM archive ORDER BY id'),
    engramNodes: await all('SELECT * FROM engram_nodes ORDER BY scene_id'),
    engramEdges: await all('SELECT * FROM engram_edges ORDER BY a, b'),
    estimate: await all(
      'SELECT emotion, mbti, name, role, personality, preferences FROM profiles ORDER BY agent_id',
    ),
    meta: await all("SELECT * FROM meta WHERE key LIKE 'dream.%' ORDER BY key"),
    nodes: await all(
      'SELECT id, s_origin, s_brief, s_summary, s_detailed, summaries_state, summaries_tier FROM nodes ORDER BY id',
    ),
    index: await all(
      'SELECT layer, ref, part, scene_id, topic_id FROM search_docs ORDER BY layer, ref, part',
    ),
  };
}
