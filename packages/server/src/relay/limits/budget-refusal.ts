import { ErrorCode } from '@tollway/shared';
import type { PeriodRefused } from '../../core/period-limits/service.js';
import { secondsUntil } from '../../core/period-limits/periods.js';
import { countRateLimitRefusal } from '../../lib/metrics.js';
import { RelayError } from '../pipeline/errors.js';

/**
 * The refusal of a call a hard organization budget has no room for, in the caller's protocol (respond.ts): 429 with
 * `retry-after` until the budget's period ends, or 403 for a total budget (it never resets); code budget_exceeded,
 * the message naming the budget's level and period. Counted in tollway_rate_limit_refusals_total (budget_<period>).
 */
export function budgetRefusal({ counter: c, use: u }: PeriodRefused, needs: number, now: number): RelayError {
  const b = c.budget!;
  const on = b.level === 'tag' ? `tag ${b.tag}` : b.level === 'org' ? 'organization' : `${b.level} ${b.targetId}`;
  const used = `${u.used} of ${b.limit} used, this call needs ${needs}`;
  const total = b.period === 'total';
  const e = new RelayError(
    total ? 403 : 429,
    total
      ? `total budget of this ${on} exhausted (${used})`
      : `${b.period} budget of this ${on} exhausted (${used}); resets at ${new Date(c.endsAt).toISOString()}`,
    total ? 'insufficient_quota' : 'rate_limit_error',
    ErrorCode.BudgetExceeded,
  );
  if (!total) e.headers = { 'retry-after': String(secondsUntil(c.endsAt, now)) };
  countRateLimitRefusal('budget', `budget_${b.period}`);
  return e;
}
