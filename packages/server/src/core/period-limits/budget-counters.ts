import { periodEnd, periodStart } from './periods.js';
import type { BudgetRule, PeriodCounter, PeriodLimits } from './types.js';

export type { BudgetRule } from './types.js';

/** An idle total budget's counter is let go after this (it starts again from the logs when next used). */
export const TOTAL_COUNTER_IDLE_MS = 30 * 86_400_000;

/** Who a token is in its organization: what decides which of the organization's budgets apply to its calls. */
export interface BudgetHolder {
  tokenId: number;
  memberId: number;
  teamId: number;
}

/** Whether `b` may apply to a call of `h` (tag budgets: when the call carries the tag, decided per call). */
export function budgetAppliesTo(b: BudgetRule, h: BudgetHolder): boolean {
  switch (b.level) {
    case 'org':
    case 'tag':
      return true;
    case 'team':
      return h.teamId > 0 && b.targetId === h.teamId;
    case 'member':
      return h.memberId > 0 && b.targetId === h.memberId;
    case 'token':
      return b.targetId === h.tokenId;
  }
}

/** The store key of a budget's counter: the budget, what it is set on, its period and the period's start. */
function budgetKey(b: BudgetRule, start: number): string {
  const on = b.level === 'tag' ? b.tag : String(b.targetId);
  return `budget:${b.id}:${b.level}:${on}:${b.period}:${start}`;
}

/** The counter of budget `b` at `at` (soft budgets count without a limit). */
export function budgetCounter(b: BudgetRule, at: number): PeriodCounter {
  const total = b.period === 'total';
  const start = total ? 0 : periodStart(b.period as 'day' | 'week' | 'month', at);
  return {
    level: 'budget',
    period: b.period,
    key: budgetKey(b, start),
    limit: b.hard ? b.limit : Number.MAX_SAFE_INTEGER,
    slot: -1,
    endsAt: total ? at + TOTAL_COUNTER_IDLE_MS : periodEnd(b.period as 'day' | 'week' | 'month', at),
    budget: b,
    periodStart: start,
  };
}

/** The budget counters of a call admitted at `at`: every budget of its token, tag budgets when the call has the tag. */
export function budgetCounters(p: PeriodLimits, at: number): PeriodCounter[] {
  const out: PeriodCounter[] = [];
  if (!p.budgets) return out;
  for (const b of p.budgets)
    if (b.level !== 'tag' || (p.tags !== undefined && p.tags.includes(b.tag))) out.push(budgetCounter(b, at));
  return out;
}

/** When a budget's counter starts again: its period's end; never (0) for a total budget. */
export const budgetResetsAt = (c: PeriodCounter): number => (c.period === 'total' ? 0 : c.endsAt);
