import type { Clock } from '../core/clock.js';
import type { Embedder, Summarizer } from '../llm/types.js';
import type { StoreSeam } from '../store/seam.js';

/** Settings every memory layer reads, fixed at open. */
export interface MemorySettings {
  /** Token budget of the origin text. */
  readonly originTokenBudget: number;
  /** Archive/plan retention window in ms; `undefined` (the default) keeps everything forever. */
  readonly retentionMs: number | undefined;
  /** Background Dream: on after `update` when a scene passes `topicThreshold` surface topics. */
  readonly dream: {
    readonly auto: boolean;
    readonly topicThreshold: number;
    readonly compressMinTopics: number;
  };
}

/** What one agent's memory layers share: the store, the agent, the model and the clock. */
export interface MemoryContext {
  readonly store: StoreSeam;
  readonly agentId: number;
  readonly agentName: string;
  readonly summarizer: Summarizer;
  readonly embedder: Embedder | undefined;
  readonly clock: Clock;
  readonly settings: MemorySettings;
}
