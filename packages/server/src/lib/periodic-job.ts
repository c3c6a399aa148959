import type { Logger } from 'pino';
import { nowSeconds } from './time.js';

export interface PeriodicTiming {
  /** Before the first pass after start-up. */
  firstDelayMs: number;
  /** Between the end of one pass and the start of the next. */
  intervalMs: number;
}

/**
 * A background job run in passes: never two passes at once (a pass asked for while one runs joins it), a
 * failed pass logged and the schedule kept, and stop() waits for the pass in progress.
 */
export class PeriodicJob<T> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<T> | undefined;
  private stoppedFlag = false;

  constructor(
    private readonly name: string,
    private readonly pass: (now: number, stopped: () => boolean) => Promise<T>,
    private readonly log: Logger,
  ) {}

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** One pass as of `now` (epoch seconds), or the one already running. */
  runOnce(now = nowSeconds()): Promise<T> {
    this.running ??= this.pass(now, () => this.stoppedFlag).finally(() => (this.running = undefined));
    return this.running;
  }

  /** Schedules passes until stop(). */
  start(timing: PeriodicTiming): void {
    const tick = (delay: number) => {
      this.timer = setTimeout(() => {
        this.runOnce()
          .catch((err: unknown) => this.log.warn({ err }, `${this.name} pass failed`))
          .finally(() => {
            if (!this.stoppedFlag) tick(timing.intervalMs);
          });
      }, delay);
      this.timer.unref();
    };
    tick(timing.firstDelayMs);
  }

  /** Cancels the schedule and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.stoppedFlag = true;
    clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }
}
