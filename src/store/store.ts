import { AgentsRepo } from './agents-repo.js';
import { ConversationRepo } from './conversation-repo.js';
import { DreamRepo } from './dream-repo.js';
import { EngramRepo } from './engram-repo.js';
import { Engine, type EngineOptions } from './engine.js';
import { IndexRepo } from './index-repo.js';
import { RadialRepo } from './radial-repo.js';
import { KnowledgeRepo } from './knowledge-repo.js';
import { LeasesRepo } from './leases-repo.js';
import { RecallRepo } from './recall-repo.js';
import { ReindexRepo } from './reindex-repo.js';
import { VectorRepo } from './vector-repo.js';
import {
  checkFile,
  checkpointFile,
  compactFile,
  fileStats,
  type CheckReport,
  type FileStats,
} from './maintenance.js';

/**
 * The storage seam. `memory/` and `index/` talk to these repositories only; all SQL and every
 * engine specific stays in `store/`. A PostgreSQL backend would provide the same repositories.
 */
export class Store {
  readonly engine: Engine;
  readonly agents: AgentsRepo;
  readonly index: IndexRepo;
  readonly conversation: ConversationRepo;
  readonly radial: RadialRepo;
  readonly knowledge: KnowledgeRepo;
  readonly leases: LeasesRepo;
  readonly recall: RecallRepo;
  readonly reindex: ReindexRepo;
  readonly vectors: VectorRepo;
  readonly engram: EngramRepo;
  readonly dream: DreamRepo;

  private constructor(engine: Engine) {
    this.engine = engine;
    this.agents = new AgentsRepo(engine);
    this.vectors = new VectorRepo(engine);
    this.index = new IndexRepo(engine, this.vectors);
    this.conversation = new ConversationRepo(engine, this.index);
    this.radial = new RadialRepo(engine, this.index);
    this.knowledge = new KnowledgeRepo(engine, this.index);
    this.leases = new LeasesRepo(engine);
    this.recall = new RecallRepo(engine);
    this.reindex = new ReindexRepo(engine);
    this.engram = new EngramRepo(engine);
    this.dream = new DreamRepo(engine, this.index, this.conversation, this.engram);
  }

  static open(path: string, options: EngineOptions): Store {
    return new Store(Engine.open(path, options));
  }

  get path(): string {
    return this.engine.path;
  }

  get closed(): boolean {
    return this.engine.closed;
  }

  stats(): FileStats {
    return fileStats(this.engine);
  }

  check(): CheckReport {
    this.engine.assertOpen('check');
    return checkFile(this.engine);
  }

  checkpoint(): { walFramesCheckpointed: number; busy: boolean } {
    return checkpointFile(this.engine);
  }

  compactTo(path: string): { path: string; bytesBefore: number; bytesAfter: number } {
    return compactFile(this.engine, path);
  }

  close(): void {
    this.engine.close();
  }
}
