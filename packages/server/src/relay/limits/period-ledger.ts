import type { Hold, Ledger, ReserveTarget } from '../../accounting/ledger.js';
import type { PeriodLimitsService } from '../../core/period-limits/service.js';
import type { PeriodLimits } from '../../core/period-limits/types.js';
import { periodRefusal } from './period-refusal.js';
import { budgetRefusal } from './budget-refusal.js';

/** A reservation's target that also names the period limits its amount counts under (admit.ts reserveQuota). */
export interface PeriodTarget extends ReserveTarget {
  periods?: PeriodLimits;
}

const periodsOf = (t: ReserveTarget): PeriodLimits | undefined => (t as PeriodTarget).periods;

/**
 * Puts period limits in front of a ledger's reserve and settle (the ledger object itself stays what it is): a
 * reservation is first taken under the target's quota limits (as much of it as they have room for, at least its
 * minimum; one atomic step in the store), then from the balances, and the counters keep exactly what the balances
 * hold; a settlement moves them by (charge − hold), a give-back (charge 0) returns the hold. Every surface's holds
 * go through the ledger (chat, tasks, realtime hold steps), so no call spends beyond a period's limit under any
 * concurrency. A refusal is the limit's 429 (a RelayError), thrown. Targets without period limits pass straight on.
 */
export function countPeriodLimits<L extends Ledger>(
  ledger: L,
  limits: PeriodLimitsService,
  onError: (err: unknown) => void,
  /** After a settlement moved the counters of a call with budgets (alerts; never awaited). */
  onBudgetsSettled?: (p: PeriodLimits, at: number) => void,
): L {
  const reserve = ledger.reserve.bind(ledger);
  const settle = ledger.settle.bind(ledger);
  /** Moves the counters of `at` by `delta` (fire and forget: a failure is logged, the counters left as they are). */
  const move = (p: PeriodLimits, at: number, delta: number) => void limits.adjustQuota(p, at, delta).catch(onError);

  ledger.reserve = async (t, amount, minimum = amount) => {
    const periods = periodsOf(t);
    if (!periods || (!periods.token && !periods.user && !periods.budgets)) return reserve(t, amount, minimum);
    const at = limits.now();
    const granted = await limits.takeQuota(periods, amount, minimum, at);
    if (typeof granted !== 'number')
      throw granted.counter.budget ? budgetRefusal(granted, minimum, at) : periodRefusal(granted, minimum, at);
    let hold: Hold | 'user' | 'token';
    try {
      hold = await reserve(t, granted, Math.min(minimum, granted));
    } catch (err) {
      move(periods, at, -granted);
      throw err;
    }
    if (typeof hold === 'string') {
      move(periods, at, -granted);
      return hold;
    }
    if (hold.amount !== granted) move(periods, at, hold.amount - granted);
    hold.periodAt = at;
    return hold;
  };

  ledger.settle = (t, hold, actual) => {
    const periods = periodsOf(t);
    const at = hold.periodAt;
    if (!periods || at === undefined) return settle(t, hold, actual);
    const held = hold.amount;
    return settle(t, hold, actual).then((charged) => {
      if (!periods.budgets || !onBudgetsSettled) move(periods, at, charged - held);
      else
        void limits
          .adjustQuota(periods, at, charged - held)
          .then(() => onBudgetsSettled(periods, at))
          .catch(onError);
      return charged;
    });
  };
  return ledger;
}
