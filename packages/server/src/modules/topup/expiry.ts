import type { Logger } from 'pino';
import { PeriodicJob } from '../../lib/periodic-job.js';
import type { TopUpStore } from './store.js';

/** An order not paid within this long is shown as expired (a paid notify arriving later still credits it). */
export const PENDING_ORDER_TTL_SECONDS = 60 * 60;
/** How often the master node looks for such orders. */
const EXPIRY_INTERVAL_MS = 10 * 60_000;

/** Marks top-up orders left unpaid for PENDING_ORDER_TTL_SECONDS expired, on the master node. */
export class TopUpExpiry {
  private readonly job: PeriodicJob<number>;

  constructor(store: TopUpStore, log: Logger) {
    this.job = new PeriodicJob(
      'top-up order expiry',
      async (now) => {
        const expired = await store.expirePendingBefore(now - PENDING_ORDER_TTL_SECONDS);
        if (expired) log.info({ expired }, 'top-up orders left unpaid marked expired');
        return expired;
      },
      log,
    );
  }

  /** One pass as of `now`; returns how many orders it marked. */
  runOnce(now?: number): Promise<number> {
    return this.job.runOnce(now);
  }

  start(): void {
    this.job.start({ firstDelayMs: 60_000, intervalMs: EXPIRY_INTERVAL_MS });
  }

  stop(): Promise<void> {
    return this.job.stop();
  }
}
