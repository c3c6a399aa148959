import type { BudgetLevel, BudgetPeriod, PeriodKind } from '@tollway/shared';

/** One organization budget as the relay counts it (budgets table, docs/operating/budgets.md). */
export interface BudgetRule {
  id: number;
  orgId: number;
  level: BudgetLevel;
  /** The team, member (users.id) or token; 0 for org and tag budgets. */
  targetId: number;
  tag: string;
  period: BudgetPeriod;
  limit: number;
  /** Hard: refuses calls once used up; soft: counts and alerts only. */
  hard: boolean;
  alertPercents: readonly number[];
  alertEmail: boolean;
  alertWebhook: boolean;
}

/** One owner's period limits (0: none). */
export interface PeriodLimitSet {
  day: number;
  week: number;
  month: number;
  fiveHours: number;
  requestsPerDay: number;
}

/** The period limits of a call's token and of its user; `undefined` levels set none. */
export interface PeriodLimits {
  tokenId: number;
  userId: number;
  token: PeriodLimitSet | undefined;
  user: PeriodLimitSet | undefined;
  /** An organization token's budgets that may apply to its calls (tag budgets: when the call carries the tag). */
  budgets?: readonly BudgetRule[];
  /** The call's tags (set per call, on a copy; budget-counters.ts matches tag budgets against them). */
  tags?: readonly string[];
}

/** One counter of one limit at one moment: the store key of its period, its limit, and how it ends. */
export interface PeriodCounter {
  level: 'token' | 'user' | 'budget';
  period: PeriodKind | 'total';
  /** The store key (without the Redis prefix): owner, period and (calendar periods) the period's start. */
  key: string;
  limit: number;
  /** The rolling window's current slot; -1 for a calendar period. */
  slot: number;
  /** Calendar periods: the end of the period (epoch ms); a total budget: when its idle counter is let go. */
  endsAt: number;
  /** A budget's counter: the budget (its limit above is MAX_SAFE_INTEGER when the budget is soft). */
  budget?: BudgetRule;
  /** Start of the budget's period (epoch ms; 0 for total). */
  periodStart?: number;
}

/** What moving a counter needs of it: its key and (rolling window) its slot. */
export type CounterRef = Pick<PeriodCounter, 'key' | 'slot'>;

/** A counter's count now; for the rolling window also its oldest slot with an amount (-1: none). */
export interface PeriodUse {
  used: number;
  oldest: number;
}

/** What a take found: the amount granted (counted in every counter), or the counter that refused. */
export interface PeriodTake {
  granted: number;
  uses: PeriodUse[];
  /** Index of the counter with the least room when even `minimum` did not fit; nothing was counted then. */
  refused?: number;
  /** Index of a budget counter the store does not hold (Redis: seed it, then take again); nothing was counted. */
  missing?: number;
}

/** Counts amounts per owner and period: in memory on one node, in Redis across a cluster. */
export interface PeriodStore {
  /**
   * Counts up to `amount` (at least `minimum`) in every counter, as much as the tightest has room for, or
   * nothing when even `minimum` does not fit one of them. `take(counters, 0, 0)` reads the counts.
   */
  take(counters: PeriodCounter[], amount: number, minimum: number, now: number): Promise<PeriodTake> | PeriodTake;
  /** Moves the counters of an earlier take by `delta`, never below 0 (a counter gone is left so). */
  adjust(counters: readonly CounterRef[], delta: number, now: number): Promise<void> | void;
}
