import type { DreamStageName, DreamStageReport, DreamStageStatus } from '../../core/model/dream.js';

/** A stage being computed; becomes a {@link DreamStageReport} once the pass has applied. */
export class StageRecord {
  readonly name: DreamStageName;
  status: DreamStageStatus = 'ok';
  reason: string | undefined;
  read: Record<string, number> = {};
  changed: Record<string, number> = {};
  durationMs = 0;
  modelCalls = 0;
  readonly errors: string[] = [];
  readonly conflicts: string[] = [];

  constructor(name: DreamStageName) {
    this.name = name;
  }

  skip(reason: string): void {
    this.status = 'skipped';
    this.reason = reason;
  }

  cancel(reason: string): void {
    this.status = 'cancelled';
    this.reason = reason;
  }

  fail(message: string): void {
    this.errors.push(message);
  }

  /** The final report: `error` when something failed, `skipped` when only conflicts remain. */
  report(): DreamStageReport {
    let status = this.status;
    if (status === 'ok' && this.errors.length > 0) status = 'error';
    const changedAny = Object.values(this.changed).some((n) => n > 0);
    if (status === 'ok' && this.conflicts.length > 0 && !changedAny) status = 'skipped';
    return {
      name: this.name,
      status,
      reason:
        this.reason ??
        (status === 'skipped' && this.conflicts.length > 0 ? 'what it read changed meanwhile' : undefined),
      read: { ...this.read },
      changed: { ...this.changed },
      durationMs: Math.round(this.durationMs * 100) / 100,
      modelCalls: this.modelCalls,
      errors: [...this.errors],
      conflicts: [...this.conflicts],
    };
  }
}
