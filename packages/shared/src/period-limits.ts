import { z } from 'zod';
import { quotaAmount } from './schemas/amounts.js';

/** Highest requests-per-day limit (the column is a 32-bit integer). */
export const REQUESTS_PER_DAY_MAX = 2_000_000_000;

/**
 * Period limits of an API token and of a user (0: none): quota per calendar day, ISO week and calendar month (in
 * the server's time zone), quota per rolling 5 hours, and requests per calendar day.
 */
export const PERIOD_LIMIT_KEYS = [
  'quota_per_day',
  'quota_per_week',
  'quota_per_month',
  'quota_per_5h',
  'requests_per_day',
] as const;
export type PeriodLimitKey = (typeof PERIOD_LIMIT_KEYS)[number];
export type PeriodLimitValues = Record<PeriodLimitKey, number>;

/** The period limit fields of a token or user update: quota amounts up to QUOTA_MAX, requests up to the max. */
export const periodLimitFields = {
  quota_per_day: quotaAmount('quota_per_day'),
  quota_per_week: quotaAmount('quota_per_week'),
  quota_per_month: quotaAmount('quota_per_month'),
  quota_per_5h: quotaAmount('quota_per_5h'),
  requests_per_day: z
    .number({ error: 'requests_per_day must be a number' })
    .int('requests_per_day must be an integer')
    .min(0, 'requests_per_day must be 0 (no limit) or more')
    .max(REQUESTS_PER_DAY_MAX, `requests_per_day must be at most ${REQUESTS_PER_DAY_MAX}`),
};

/** The same fields as an API returns them. */
export const periodLimitsPublic = {
  quota_per_day: z.number().int(),
  quota_per_week: z.number().int(),
  quota_per_month: z.number().int(),
  quota_per_5h: z.number().int(),
  requests_per_day: z.number().int(),
};

/** The periods a limit counts over; `requests_day` counts requests, the others quota. */
export const PERIOD_KINDS = ['day', 'week', 'month', '5h', 'requests_day'] as const;
export type PeriodKind = (typeof PERIOD_KINDS)[number];

/** Which limit field sets each period's limit. */
export const PERIOD_LIMIT_KEY_OF: Record<PeriodKind, PeriodLimitKey> = {
  day: 'quota_per_day',
  week: 'quota_per_week',
  month: 'quota_per_month',
  '5h': 'quota_per_5h',
  requests_day: 'requests_per_day',
};

/** One configured period limit as shown to its owner: what is used, what is left, and when it resets. */
export const periodRemaining = z.object({
  level: z.enum(['token', 'user']),
  period: z.enum(PERIOD_KINDS),
  limit: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
  /** Epoch seconds when the count starts again (5h: when the oldest amount in the window leaves it); 0: nothing counted. */
  reset_at: z.number().int(),
});
export type PeriodRemaining = z.infer<typeof periodRemaining>;

/** The period limit fields of a row or body, as numbers (bigint columns may come back as strings). */
export function periodLimitValues(r: Record<PeriodLimitKey, number | string | bigint>): PeriodLimitValues {
  return {
    quota_per_day: Number(r.quota_per_day),
    quota_per_week: Number(r.quota_per_week),
    quota_per_month: Number(r.quota_per_month),
    quota_per_5h: Number(r.quota_per_5h),
    requests_per_day: Number(r.requests_per_day),
  };
}
