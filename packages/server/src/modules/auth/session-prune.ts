import type { Logger } from 'pino';
import { PeriodicJob } from '../../lib/periodic-job.js';
import type { SessionStore } from './session-store.js';

/** How often the master node deletes expired sessions. */
const PRUNE_INTERVAL_MS = 60 * 60_000;
const FIRST_PRUNE_DELAY_MS = 90_000;

/** Deletes expired session rows on the master node (an expired row never authenticates anyway). */
export class SessionPrune {
  private readonly job: PeriodicJob<number>;

  constructor(store: SessionStore, log: Logger) {
    this.job = new PeriodicJob(
      'session prune',
      async (now) => {
        const pruned = await store.deleteExpired(now);
        if (pruned) log.info({ pruned }, 'expired sessions deleted');
        return pruned;
      },
      log,
    );
  }

  /** One pass as of `now` (epoch seconds); returns how many sessions it deleted. */
  runOnce(now?: number): Promise<number> {
    return this.job.runOnce(now);
  }

  start(): void {
    this.job.start({ firstDelayMs: FIRST_PRUNE_DELAY_MS, intervalMs: PRUNE_INTERVAL_MS });
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
