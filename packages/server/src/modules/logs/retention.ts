import type { Logger } from 'pino';
import { nowSeconds } from '../../lib/time.js';
import type { OptionsService } from '../options/service.js';
import type { LogsStore } from './store.js';

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

export const DEFAULT_RETENTION_TIMING: RetentionTiming = { intervalMs: 60 * 60_000, firstDelayMs: 60_000, batch: 1000, pauseMs: 50 };

/**
 * Keeps usage logs LogRetentionDays days (0: forever). Runs on the master node only: each pass deletes the
 * older rows in small id-bounded batches with a pause between them, so no statement holds the log table for
 * long and the relay's writer keeps inserting meanwhile.
 */
export class LogRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(
    private readonly store: LogsStore,
    private readonly options: OptionsService,
    private readonly log: Logger,
    private readonly timing: RetentionTiming = DEFAULT_RETENTION_TIMING,
  ) {}

  /** One pass now (a pass already running is joined, not doubled); returns how many rows it deleted. */
  runOnce(now = nowSeconds()): Promise<number> {
    if (this.running) return this.running;
    const days = this.options.num('LogRetentionDays');
    if (this.stopped || !(days > 0)) return Promise.resolve(0);
    const cutoff = now - Math.floor(days) * 86_400;
    this.running = this.store
      .deleteBefore(cutoff, { batch: this.timing.batch, pauseMs: this.timing.pauseMs, stop: () => this.stopped })
      .then((deleted) => {
        if (deleted) this.log.info({ deleted, days }, 'log retention: old logs deleted');
        return deleted;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** Schedules passes until stop(). */
  start(): void {
    const tick = (delay: number) => {
      this.timer = setTimeout(() => {
        this.runOnce()
          .catch((err) => this.log.warn({ err }, 'log retention pass failed'))
          .finally(() => {
            if (!this.stopped) tick(this.timing.intervalMs);
          });
      }, delay);
      this.timer.unref();
    };
    tick(this.timing.firstDelayMs);
  }

  /** Cancels the schedule and waits for a pass in progress to end after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
