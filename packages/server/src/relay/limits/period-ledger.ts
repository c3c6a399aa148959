import type { BalanceKind, Hold, Ledger, LedgerRecord, ReserveTarget } from '../../accounting/ledger.js';
import type { PeriodLimitsService } from '../../core/period-limits/service.js';
import type { PeriodLimits } from '../../core/period-limits/types.js';
import { periodRefusal } from './period-refusal.js';

/** A reservation's target that also names the period limits its amount counts under (admit.ts reserveQuota). */
export interface PeriodTarget extends ReserveTarget {
  periods?: PeriodLimits;
}

const periodsOf = (t: ReserveTarget): PeriodLimits | undefined => (t as PeriodTarget).periods;

/**
 * The ledger with period limits in front: a reservation is first taken under the target's quota limits (as much of
 * it as they have room for, at least its minimum; one atomic step in the store), then from the balances, and the
 * counters keep exactly what the balances hold; a settlement moves them by (charge − hold), a give-back (charge 0)
 * returns the hold. Every surface's holds go through here (chat, tasks, realtime hold steps), so no call spends
 * beyond a period's limit under any concurrency. A refusal is the limit's 429 (a RelayError), thrown.
 */
export class PeriodLedger implements Ledger {
  constructor(
    private readonly inner: Ledger,
    private readonly limits: PeriodLimitsService,
    private readonly onError: (err: unknown) => void,
  ) {}

  async reserve(t: ReserveTarget, amount: number, minimum = amount): Promise<Hold | 'user' | 'token'> {
    const periods = periodsOf(t);
    if (!periods || (!periods.token && !periods.user)) return this.inner.reserve(t, amount, minimum);
    const at = this.limits.now();
    const granted = await this.limits.takeQuota(periods, amount, minimum, at);
    if (typeof granted !== 'number') throw periodRefusal(granted, minimum, at);
    let hold: Hold | 'user' | 'token';
    try {
      hold = await this.inner.reserve(t, granted, Math.min(minimum, granted));
    } catch (err) {
      this.giveBack(periods, at, -granted);
      throw err;
    }
    if (typeof hold === 'string') {
      this.giveBack(periods, at, -granted);
      return hold;
    }
    if (hold.amount !== granted) this.giveBack(periods, at, hold.amount - granted);
    hold.periodAt = at;
    return hold;
  }

  async settle(t: ReserveTarget, hold: Hold, actual: number): Promise<number> {
    const held = hold.amount;
    const charged = await this.inner.settle(t, hold, actual);
    const periods = periodsOf(t);
    if (periods && hold.periodAt !== undefined) this.giveBack(periods, hold.periodAt, charged - held);
    return charged;
  }

  /** Moves the counters of `at` by `delta` (fire and forget: a failure is logged, the counters left as they are). */
  private giveBack(p: PeriodLimits, at: number, delta: number): void {
    this.limits.adjustQuota(p, at, delta).catch(this.onError);
  }

  available(kind: BalanceKind, id: number): Promise<number | undefined> {
    return this.inner.available(kind, id);
  }
  refresh(kind: BalanceKind, id: number): Promise<void> {
    return this.inner.refresh(kind, id);
  }
  beforeCommit(records: readonly LedgerRecord[]): Promise<void> {
    return this.inner.beforeCommit(records);
  }
  committed(records: readonly LedgerRecord[]): void {
    this.inner.committed(records);
  }
  commitFailed(records: readonly LedgerRecord[]): void {
    this.inner.commitFailed(records);
  }
  start(): Promise<void> {
    return this.inner.start();
  }
  stop(): Promise<void> {
    return this.inner.stop();
  }
}
