import type { PeriodKind, PeriodLimitValues } from '@tollway/shared';
import type { PeriodCounter, PeriodLimits, PeriodLimitSet } from './types.js';
import { periodEnd, periodStart, slotOf, type CalendarPeriod } from './periods.js';

const QUOTA_PERIODS: readonly { period: PeriodKind; limit: (s: PeriodLimitSet) => number }[] = [
  { period: 'day', limit: (s) => s.day },
  { period: 'week', limit: (s) => s.week },
  { period: 'month', limit: (s) => s.month },
  { period: '5h', limit: (s) => s.fiveHours },
];

/** A set that limits nothing is no set: the hot path skips owners without limits. */
export function limitSetOf(s: PeriodLimitSet): PeriodLimitSet | undefined {
  return s.day > 0 || s.week > 0 || s.month > 0 || s.fiveHours > 0 || s.requestsPerDay > 0 ? s : undefined;
}

function counter(level: 'token' | 'user', id: number, period: PeriodKind, limit: number, at: number): PeriodCounter {
  if (period === '5h') return { level, period, key: `${level}:${id}:5h`, limit, slot: slotOf(at), endsAt: 0 };
  const calendar: CalendarPeriod = period === 'requests_day' ? 'day' : period;
  const start = periodStart(calendar, at);
  return { level, period, key: `${level}:${id}:${period}:${start}`, limit, slot: -1, endsAt: periodEnd(calendar, at) };
}

function levels(p: PeriodLimits): [level: 'token' | 'user', id: number, set: PeriodLimitSet][] {
  const out: [level: 'token' | 'user', id: number, set: PeriodLimitSet][] = [];
  if (p.token) out.push(['token', p.tokenId, p.token]);
  if (p.user) out.push(['user', p.userId, p.user]);
  return out;
}

/** The quota counters of a call admitted at `at` (token's first, then its user's): those whose limit is set. */
export function quotaCounters(p: PeriodLimits, at: number): PeriodCounter[] {
  const out: PeriodCounter[] = [];
  for (const [level, id, set] of levels(p))
    for (const q of QUOTA_PERIODS) {
      const limit = q.limit(set);
      if (limit > 0) out.push(counter(level, id, q.period, limit, at));
    }
  return out;
}

/** The requests-per-day counters of a call admitted at `at`. */
export function requestCounters(p: PeriodLimits, at: number): PeriodCounter[] {
  const out: PeriodCounter[] = [];
  for (const [level, id, set] of levels(p))
    if (set.requestsPerDay > 0) out.push(counter(level, id, 'requests_day', set.requestsPerDay, at));
  return out;
}

/** The set of a token's or user's limit fields (as the API and the tables name them); undefined when none is set. */
export function limitSetOfValues(v: PeriodLimitValues): PeriodLimitSet | undefined {
  return limitSetOf({
    day: v.quota_per_day,
    week: v.quota_per_week,
    month: v.quota_per_month,
    fiveHours: v.quota_per_5h,
    requestsPerDay: v.requests_per_day,
  });
}
