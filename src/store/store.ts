import { AgentsRepo } from './agents-repo.js';
import { Engine, type EngineOptions } from './engine.js';
import { IndexRepo } from './index-repo.js';
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

  private constructor(engine: Engine) {
    this.engine = engine;
    this.agents = new AgentsRepo(engine);
    this.index = new IndexRepo(engine);
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
