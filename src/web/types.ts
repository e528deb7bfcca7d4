// Shapes of the API's JSON answers that the UI reads (see /openapi.json for the full schemas).

export type LevelName = 'origin' | 'brief' | 'summary' | 'detailed' | 'full';
export const LEVELS: readonly LevelName[] = ['origin', 'brief', 'summary', 'detailed', 'full'];

export interface AgentInfo {
  readonly id: number;
  readonly name: string;
  readonly primary: boolean;
  readonly createdAt: number;
}

export interface OverviewNode {
  readonly id: string;
  readonly position: number;
  readonly taskLabel: string;
  readonly createdAt: number;
  readonly summariesState: 'ready' | 'pending';
}

export interface RadialLine {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly createdAt: number;
  readonly nodeCount: number;
}

export interface RadialOverview {
  readonly projectName: string;
  readonly origin: string;
  readonly lines: readonly (RadialLine & { readonly nodes: readonly OverviewNode[] })[];
}

export interface RadialNode {
  readonly id: string;
  readonly lineId: string;
  readonly position: number;
  readonly taskLabel: string;
  readonly createdAt: number;
  readonly summaries: Readonly<Record<Exclude<LevelName, 'full'>, string>>;
  readonly summariesState: 'ready' | 'pending';
  readonly state: {
    readonly conversationSummary: string;
    readonly fileChanges: readonly {
      readonly path: string;
      readonly changeType: string;
      readonly diffSummary: string;
    }[];
    readonly todos: readonly string[];
    readonly envSnapshot: Readonly<Record<string, unknown>>;
    readonly fullContextBytes: number;
  };
}

export interface FileStats {
  readonly path: string;
  readonly fileBytes: number;
  readonly walBytes: number;
  readonly schemaVersion: number;
  readonly agents: number;
  readonly rows: Readonly<Record<string, number>>;
  readonly pending: { readonly summaries: number; readonly keywords: number; readonly embeddings: number };
}

export interface ServerInfo {
  readonly readOnly: boolean;
  readonly watch: boolean;
  readonly mcp: boolean;
}

export interface KnowledgeGraphInfo {
  readonly id: string;
  readonly label: string;
  readonly nodeCount: number;
  readonly edgeCount: number;
}

export interface KnowledgeNode {
  readonly id: string;
  readonly title: string;
  readonly type: string;
  readonly content: string;
  readonly keywords: readonly string[];
  readonly observations: readonly string[];
  readonly sourceRef?: { readonly source: string };
}

export interface KnowledgeEdge {
  readonly id: string;
  readonly kind: string;
  readonly label: string;
  readonly directed: boolean;
  readonly members: readonly string[];
}

export interface KnowledgeGraph {
  readonly graph: KnowledgeGraphInfo;
  readonly nodes: readonly KnowledgeNode[];
  readonly edges: readonly KnowledgeEdge[];
}

export interface Scene {
  readonly id: string;
  readonly name: string;
  readonly knowledgeId?: string;
  readonly turnSeq: number;
  readonly createdAt: number;
  readonly lastUsedAt: number;
  readonly current?: boolean;
}

export interface SceneTopic {
  readonly id: string;
  readonly kind: 'turn' | 'fused';
  readonly status: 'open' | 'closed';
  readonly turnSeq?: number;
  readonly depth: number;
  readonly name?: string;
  readonly keywords: readonly string[];
  readonly outcome?: string;
  readonly userTs?: number;
  readonly openedAt: number;
  readonly childCount: number;
  readonly messages: readonly {
    readonly seq: number;
    readonly role: string;
    readonly speaker?: string;
    readonly content: string;
  }[];
}

export interface SceneContext {
  readonly scene?: Scene;
  readonly openTurnId?: string;
  readonly topics: readonly SceneTopic[];
}

export interface ArchiveRecord {
  readonly id: string;
  readonly seq: number;
  readonly kind: 'utterance' | 'event';
  readonly role?: string;
  readonly speaker?: string;
  readonly contentType: string;
  readonly eventType?: string;
  readonly planStep?: number;
  readonly content: string;
  readonly createdAt: number;
}

export interface PlanNode {
  readonly seq: number;
  readonly title: string;
  readonly status: 'in_progress' | 'done' | 'failed';
  readonly summary: string;
  readonly children: readonly PlanNode[];
}

export interface PlanState {
  readonly turnId: string;
  readonly roots: readonly PlanNode[];
  readonly doneCount: number;
  readonly totalCount: number;
}

export interface RecallHit {
  readonly layer: string;
  readonly ref: string;
  readonly score: number;
  readonly confidence: number;
  readonly provenance: {
    readonly layer: string;
    readonly agent: string | null;
    readonly table: string;
    readonly sourceId: string;
    readonly part: string;
    readonly lineId?: string;
    readonly position?: number;
    readonly sceneId?: string;
    readonly topicId?: string;
    readonly speaker?: string;
    readonly createdAt: number;
  };
  readonly preview: string;
  readonly text: string;
  readonly inContext: string;
}

export interface RecallResult {
  readonly query: string;
  readonly hits: readonly RecallHit[];
  readonly context: string;
  readonly usedTokens: number;
  readonly budgetTokens: number;
}

export interface EngramGraph {
  readonly nodes: readonly {
    readonly sceneId: string;
    readonly topicIds: readonly string[];
    readonly keywords: readonly string[];
    readonly importance: number;
    readonly valence: number;
    readonly arousal: number;
    readonly emotionSet: boolean;
    readonly updatedAt: number;
  }[];
  readonly edges: readonly { readonly a: string; readonly b: string; readonly weight: number }[];
  readonly fadedScenes: number;
}

export interface DreamStage {
  readonly name: string;
  readonly status: string;
  readonly reason?: string;
  readonly read: Readonly<Record<string, number>>;
  readonly changed: Readonly<Record<string, number>>;
  readonly durationMs: number;
  readonly modelCalls: number;
  readonly errors: readonly string[];
  readonly conflicts: readonly string[];
}

export interface DreamReport {
  readonly id: string;
  readonly sceneId?: string;
  readonly startedBy: 'explicit' | 'background';
  readonly status: string;
  readonly startedAt: number;
  readonly finishedAt?: number;
  readonly durationMs: number;
  readonly applyMs: number;
  readonly modelCalls: number;
  readonly stages: readonly DreamStage[];
  readonly profile?: {
    readonly personality: string;
    readonly mbti: { readonly type: string };
    readonly emotion: { readonly valence: number; readonly arousal: number; readonly dominance: number };
  };
  readonly errors: readonly string[];
  readonly undoneAt?: number;
}
