import type { Logger } from 'pino';
import type { BatchedDelete } from '../../db/batched-delete.js';
import { PeriodicJob } from '../../lib/periodic-job.js';
import { nowSeconds } from '../../lib/time.js';
import type { OptionsService } from '../../core/options/service.js';

/** A table of log-like rows pruned by age (usage logs, the audit log). */
export interface PrunedByAge {
  deleteBefore(before: number, opts: BatchedDelete): Promise<number>;
}

export interface RetentionTiming {
  /** Between passes. */
  intervalMs: number;
  /** Before the first pass after start-up. */
  firstDelayMs: number;
  /** Rows per DELETE statement. */
  batch: number;
  /** Pause between two DELETE statements. */
  pauseMs: number;
}

export const DEFAULT_RETENTION_TIMING: RetentionTiming = {
  intervalMs: 60 * 60_000,
  firstDelayMs: 60_000,
  batch: 1000,
  pauseMs: 50,
};

/**
 * Keeps usage logs (and the other stores given: the audit log) LogRetentionDays days (0: forever). Runs on the
 * master node only: each pass deletes the older rows in small id-bounded batches with a pause between them, so
 * no statement holds the log table for long and the relay's writer keeps inserting meanwhile.
 */
export class LogRetention {
  private readonly job: PeriodicJob<number>;
  private readonly stores: PrunedByAge[];

  constructor(
    stores: PrunedByAge | PrunedByAge[],
    private readonly options: OptionsService,
    log: Logger,
    private readonly timing: RetentionTiming = DEFAULT_RETENTION_TIMING,
  ) {
    this.stores = [stores].flat();
    this.job = new PeriodicJob('log retention', (now, stopped) => this.pass(log, now, stopped), log);
  }

  private async pass(log: Logger, now: number, stopped: () => boolean): Promise<number> {
    const days = this.options.num('LogRetentionDays');
    if (stopped() || !(days > 0)) return 0;
    let deleted = 0;
    for (const store of this.stores) {
      if (stopped()) break;
      deleted += await store.deleteBefore(now - Math.floor(days) * 86_400, {
        batch: this.timing.batch,
        pauseMs: this.timing.pauseMs,
        stop: stopped,
      });
    }
    if (deleted) log.info({ deleted, days }, 'log retention: old logs deleted');
    return deleted;
  }

  /** One pass now (a pass already running is joined, not doubled); returns how many rows it deleted. */
  runOnce(now = nowSeconds()): Promise<number> {
    return this.job.runOnce(now);
  }

  /** Schedules passes until stop(). */
  start(): void {
    this.job.start(this.timing);
  }

  /** Cancels the schedule and waits for a pass in progress to end after its current batch. */
  async stop(): Promise<void> {
    await this.job.stop();
  }
}
