import type { PeriodKind } from '@tollway/shared';
import { resetAt, type PeriodLimitsService, type PeriodRefused } from '../../core/period-limits/service.js';
import type { PeriodLimits } from '../../core/period-limits/types.js';
import { secondsUntil } from '../../core/period-limits/periods.js';
import { countRateLimitRefusal } from '../../lib/metrics.js';
import { RelayError } from '../pipeline/errors.js';

/** How a refusal names each period's limit. */
const LIMIT_NAME: Record<PeriodKind | 'total', string> = {
  day: 'daily quota',
  week: 'weekly quota',
  month: 'monthly quota',
  '5h': '5-hour quota',
  requests_day: 'daily request',
  total: 'total quota',
};

/** The relay error code of a call refused by a period limit (HTTP 429, type rate_limit_error). */
export const PERIOD_LIMIT_CODE = 'period_limit_reached';

/**
 * The 429 of a call a period limit refuses, in the caller's protocol (respond.ts): the limit, the count and the
 * reset time named, `retry-after` in seconds; counted in tollway_rate_limit_refusals_total (kind period_<period>).
 */
export function periodRefusal({ counter: c, use: u }: PeriodRefused, needs: number, now: number): RelayError {
  const at = resetAt(c, u);
  const count =
    c.period === 'requests_day'
      ? `${u.used} of ${c.limit} requests made`
      : `${u.used} of ${c.limit} used, this call needs ${needs}`;
  const e = new RelayError(
    429,
    `${LIMIT_NAME[c.period]} limit of this ${c.level} reached (${count}); resets at ${new Date(at).toISOString()}`,
    'rate_limit_error',
    PERIOD_LIMIT_CODE,
  );
  e.headers = { 'retry-after': String(secondsUntil(at, now)) };
  countRateLimitRefusal(c.level, `period_${c.period}`);
  return e;
}

/** Counts a call under its requests-per-day limits, or throws their 429. */
export async function admitPeriodRequest(limits: PeriodLimitsService, p: PeriodLimits): Promise<void> {
  const now = limits.now();
  const refused = await limits.takeRequest(p, now);
  if (refused) throw periodRefusal(refused, 1, now);
}
