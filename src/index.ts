// The public surface of hedgehop. Every export is named here (no `export *`); a test pins it.
export { HedgehopError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export type { Clock } from './core/clock.js';
export { countTokens } from './core/tokens.js';
export { openMemory, MemoryDB, PRIMARY_AGENT } from './api/memory-db.js';
export type { OpenOptions, ProfileInput } from './api/options.js';
export { Agent } from './api/agent.js';
export type { AgentInfo } from './api/agent.js';
export type { FileStats, CheckReport } from './store/maintenance.js';
export { OfflineSummarizer } from './llm/offline-summarizer.js';
export { ModelSummarizer } from './llm/model-summarizer.js';
export type {
  LanguageModel,
  Summarizer,
  Embedder,
  TokenUsage,
  GenerateOptions,
  DetailLevelName,
  SummarizeContext,
  TurnUtterance,
  TopicForGrouping,
  TopicGroup,
  ProfileSample,
  ProfileDistillation,
} from './llm/types.js';
