// The public surface of hedgehop. Every export is named here (no `export *`); a test pins it.
export { HedgehopError } from './core/errors.js';
export type { ErrorCode } from './core/errors.js';
export type { Clock } from './core/clock.js';
export { countTokens } from './core/tokens.js';
export { openMemory, MemoryDB, PRIMARY_AGENT } from './api/memory-db.js';
export type { AgentOptions, OpenOptions, ProfileInput } from './api/options.js';
export { Agent } from './api/agent.js';
export type { AgentInfo } from './api/agent.js';
export type { FileStats, CheckReport } from './store/maintenance.js';
export { recoverMemory } from './api/recover.js';
export type { RecoverOptions, RecoverReport, SalvagedTable, RowidRange } from './api/recover.js';
// Recall across layers.
export { INDEX_LAYERS } from './core/model/recall.js';
export type { RecallOptions, RecallResult, RecallHit, Provenance } from './core/model/recall.js';
export type { ReindexOptions, ReindexReport, ReindexProgress } from './memory/recall/reindex.js';
// Conversation memory: profile, scenes and turns, archive, plan trees.
export { CONVERSATION_LIMITS } from './core/model/conversation.js';
export type {
  Profile,
  ProfileEmotion,
  MbtiAxes,
  Scene,
  Topic,
  ArchiveRecord,
  ArchiveKind,
  ContentType,
  UtteranceRole,
  PlanStatus,
  ArchiveSlot,
  DeleteReport,
  MergeReport,
} from './core/model/conversation.js';
export type { ProfileUpdate } from './core/model/conversation.js';
export type { SearchQuery, SearchResult, TurnEnd, TurnResult } from './core/model/conversation.js';
export type { ArchiveInput, ArchiveQuery } from './core/model/conversation.js';
export type { PlanNode } from './core/model/conversation.js';
export type { PlanState, PlanStepUpdate } from './core/model/conversation.js';
export type { ListedScene, SceneContext, SceneContextTopic, SceneUpdate } from './core/model/conversation.js';
// Engram and Dream consolidation.
export type { EngramGraph, EngramNode, EngramEdge } from './core/model/engram.js';
export type {
  DreamReport,
  DreamStageReport,
  DreamStageName,
  DreamStageStatus,
  DreamStatus,
  DistilledProfile,
  UndoDreamReport,
} from './core/model/dream.js';
export type { DreamHistoryOptions } from './memory/dream/dream-history.js';
export { KnowledgeStore } from './api/knowledge-store.js';
export {
  MemoryServerGraph,
  importMemoryServerJsonl,
  exportMemoryServerJsonl,
} from './api/memory-server-graph.js';
export type { MemoryServerOptions, MemoryServerImportOptions } from './api/memory-server-graph.js';
export type {
  MemoryServerEntity,
  MemoryServerRelation,
  CreateRelationsResult,
  SkippedRelation,
  MemoryServerSnapshot,
  MemoryServerImportReport,
} from './core/model/knowledge.js';
export { KNOWLEDGE_EDGE_KINDS } from './core/model/knowledge.js';
export type { KnowledgeItem } from './core/model/knowledge-items.js';
export type {
  KnowledgeEdgeKind,
  KnowledgeImportMode,
  KnowledgeSourceUnit,
  KnowledgeSourceRef,
  KnowledgeGraphInfo,
  KnowledgeNode,
  KnowledgeEdge,
  KnowledgeGraph,
  KnowledgeNodeInput,
  KnowledgeEdgeInput,
  KnowledgeBatch,
  KnowledgeImportOptions,
  KnowledgeImportProgress,
  KnowledgeImportReport,
  KnowledgeItemsImportReport,
  KnowledgeNodeQuery,
  KnowledgeSubgraphOptions,
  KnowledgeSubgraph,
  KnowledgeSearchHit,
  KnowledgeDeleteReport,
  KnowledgeNodesDeleteReport,
  KnowledgeEdgesDeleteReport,
  KnowledgeObservationEdit,
  KnowledgeObservationsAdded,
  KnowledgeObservationsDeleteReport,
} from './core/model/knowledge.js';
export { RadialMemory } from './api/radial-memory.js';
export type {
  CompleteTaskInput,
  ExtendTaskInput,
  NavigateOptions,
  DetailLevelInput,
  RadialOpenOptions,
} from './api/radial-memory.js';
export { NavigationSession, StepNavigator } from './api/navigation-session.js';
export type { NavigationCandidate } from './api/navigation-session.js';
export { ContextWindowManager, LoadResult } from './api/context-window-manager.js';
export type { ContextState } from './api/context-window-manager.js';
export { importHedgehog, exportHedgehog } from './api/hedgehog.js';
export { exportDump, importDump, dumpLines } from './api/dump.js';
export type { DumpHeader, DumpImportReport, DumpProgress, DumpImportOptions } from './api/dump.js';
export type { HedgehogImportReport } from './memory/radial/hedgehog-format.js';
export { LEVELS, levelAtDistance } from './core/model/levels.js';
export type { DetailLevel, LevelSpec } from './core/model/levels.js';
export type { FillReport } from './memory/radial/radial-service.js';
export type {
  RadialNode,
  RadialNode as Node,
  RadialLine,
  RadialLine as Line,
  NodeState,
  LevelSummaries,
  FileChange,
  JsonValue,
  LineHistoryEntry,
} from './core/model/radial.js';
export { OfflineSummarizer } from './llm/offline-summarizer.js';
export { ModelSummarizer } from './llm/model-summarizer.js';
export type { ModelSummarizerOptions } from './llm/model-summarizer.js';
export type { PartialSummarizer, MatchVerdict } from './llm/partial-summarizer.js';
export {
  createOpenAICompatible,
  createOpenAICompatibleEmbedder,
  OpenAICompatibleModel,
} from './llm/openai-compatible.js';
export type { OpenAICompatibleOptions } from './llm/openai-options.js';
export { LanguageModelError } from './llm/language-model-error.js';
export type { LanguageModelFailure } from './llm/language-model-error.js';
export { UsageMeter } from './llm/usage-meter.js';
export type { OperationUsage } from './llm/usage-meter.js';
export type {
  LanguageModel,
  Summarizer,
  Embedder,
  TokenUsage,
  GenerateOptions,
  SummarizeContext,
  TurnUtterance,
  TopicForGrouping,
  TopicGroup,
  ProfileSample,
  ProfileDistillation,
} from './llm/types.js';
export type { DetailLevelName } from './core/model/levels.js';
