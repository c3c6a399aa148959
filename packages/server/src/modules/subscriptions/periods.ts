import { planNextReset, planResetDue } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { PeriodicJob } from '../../lib/periodic-job.js';
import { HoldingsService, periodOf, zoneOf } from './holdings.js';

/** How often subscriptions are looked at for their end and their period's reset. */
export const PERIODS_INTERVAL_MS = 30_000;
const FIRST_DELAY_MS = 5_000;

export type PeriodDeps = ConstructorParameters<typeof HoldingsService>[0] & Pick<AppContext, 'log' | 'planChanges'>;

/**
 * Ends subscriptions past their end (expired; the group their plan upgraded restored) and starts new periods of
 * those whose reset has come (amount_used back to 0; the relay re-reads the plan's balance). Every statement is
 * conditional on the row still waiting for it, so several nodes running it change each row once.
 */
export class SubscriptionPeriods {
  private readonly job: PeriodicJob<{ expired: number; reset: number }>;
  private readonly holdings: HoldingsService;

  constructor(private readonly deps: PeriodDeps) {
    this.holdings = new HoldingsService(deps);
    this.job = new PeriodicJob('subscription periods', (now) => this.pass(now), deps.log);
  }

  /** One pass as of `now` (epoch seconds). */
  runOnce(now?: number): Promise<{ expired: number; reset: number }> {
    return this.job.runOnce(now);
  }

  start(): void {
    this.job.start({ firstDelayMs: FIRST_DELAY_MS, intervalMs: PERIODS_INTERVAL_MS });
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  private async pass(now: number): Promise<{ expired: number; reset: number }> {
    const store = this.holdings.store;
    let expired = 0;
    for (const sub of await store.dueToExpire(now)) {
      const done = await this.deps.db.kysely.transaction().execute(async (trx) => {
        if (!(await store.expire(trx, sub.id, now))) return false;
        await this.holdings.restoreGroup(trx, sub, now);
        return true;
      });
      if (!done) continue;
      expired++;
      await this.deps.users.notifyChanged(sub.user_id);
    }
    let reset = 0;
    const zone = zoneOf(this.deps.config);
    for (const sub of await store.dueToReset(now)) {
      const plan = await store.plan(sub.plan_id);
      const base = Number(sub.last_reset_time) || Number(sub.start_time);
      const due = plan && planResetDue(periodOf(plan), base, Number(sub.end_time), now, zone);
      // The plan's reset rule changed since: this reset is taken at its time, the next by the rule now.
      const last = Number(sub.next_reset_time);
      const at = due ?? { last, next: plan ? planNextReset(periodOf(plan), last, Number(sub.end_time), zone) : 0 };
      if (!(await store.reset(sub.id, Number(sub.next_reset_time), at.last, at.next, now))) continue;
      reset++;
      await this.deps.planChanges.emitAndWait(sub.id);
    }
    if (expired || reset) this.deps.log.info({ expired, reset }, 'subscription periods moved on');
    return { expired, reset };
  }
}
