import { describe, expect, it } from 'vitest';
import {
  normalizeBillingPreference,
  planEndTime,
  planNextReset,
  planPriceMicros,
  planPriceQuota,
  planResetDue,
  subscriptionPlanInput,
  type PlanPeriod,
} from '../src/index.js';

const at = (iso: string) => Date.parse(iso) / 1000;
const period = (over: Partial<PlanPeriod>): PlanPeriod => ({
  duration_unit: 'month',
  duration_value: 1,
  custom_seconds: 0,
  quota_reset_period: 'never',
  quota_reset_custom_seconds: 0,
  ...over,
});

describe('plan periods', () => {
  it('ends a month or a year later on the calendar of the zone, a day past the month rolling over as Go does', () => {
    expect(planEndTime(period({}), at('2026-01-15T10:00:00Z'), 'UTC')).toBe(at('2026-02-15T10:00:00Z'));
    expect(planEndTime(period({}), at('2026-01-31T10:00:00Z'), 'UTC')).toBe(at('2026-03-03T10:00:00Z'));
    expect(planEndTime(period({ duration_unit: 'year', duration_value: 2 }), at('2026-03-01T00:00:00Z'), 'UTC')).toBe(
      at('2028-03-01T00:00:00Z'),
    );
    // Across a DST change the local time of day is kept (Berlin: CET → CEST on 2026-03-29).
    expect(planEndTime(period({}), at('2026-03-15T09:00:00Z'), 'Europe/Berlin')).toBe(at('2026-04-15T08:00:00Z'));
    expect(planEndTime(period({ duration_unit: 'day', duration_value: 3 }), 100, 'UTC')).toBe(100 + 3 * 86_400);
    expect(planEndTime(period({ duration_unit: 'hour', duration_value: 5 }), 100, 'UTC')).toBe(100 + 5 * 3600);
    expect(planEndTime(period({ duration_unit: 'custom', custom_seconds: 42 }), 100, 'UTC')).toBe(142);
  });

  it('resets at the next local midnight, Monday or first of the month, never after the end', () => {
    const wed = at('2026-12-02T15:30:00Z');
    const end = at('2027-12-02T00:00:00Z');
    expect(planNextReset(period({ quota_reset_period: 'daily' }), wed, end, 'UTC')).toBe(at('2026-12-03T00:00:00Z'));
    expect(planNextReset(period({ quota_reset_period: 'weekly' }), wed, end, 'UTC')).toBe(at('2026-12-07T00:00:00Z'));
    expect(planNextReset(period({ quota_reset_period: 'monthly' }), wed, end, 'UTC')).toBe(at('2027-01-01T00:00:00Z'));
    expect(planNextReset(period({ quota_reset_period: 'daily' }), wed, end, 'Asia/Shanghai')).toBe(
      at('2026-12-02T16:00:00Z'),
    );
    expect(
      planNextReset(period({ quota_reset_period: 'custom', quota_reset_custom_seconds: 60 }), wed, end, 'UTC'),
    ).toBe(wed + 60);
    expect(planNextReset(period({ quota_reset_period: 'never' }), wed, end, 'UTC')).toBe(0);
    expect(planNextReset(period({ quota_reset_period: 'monthly' }), wed, at('2026-12-20T00:00:00Z'), 'UTC')).toBe(0);
    // A Sunday's next Monday is the day after.
    expect(planNextReset(period({ quota_reset_period: 'weekly' }), at('2026-12-06T12:00:00Z'), end, 'UTC')).toBe(
      at('2026-12-07T00:00:00Z'),
    );
  });

  it('finds the reset due after missed boundaries in one step, and none before the first boundary', () => {
    const daily = period({ quota_reset_period: 'daily' });
    const start = at('2026-12-02T15:30:00Z');
    const end = at('2027-01-02T15:30:00Z');
    expect(planResetDue(daily, start, end, at('2026-12-02T23:59:59Z'), 'UTC')).toBeUndefined();
    expect(planResetDue(daily, start, end, at('2026-12-05T08:00:00Z'), 'UTC')).toEqual({
      last: at('2026-12-05T00:00:00Z'),
      next: at('2026-12-06T00:00:00Z'),
    });
    const custom = period({ quota_reset_period: 'custom', quota_reset_custom_seconds: 100 });
    expect(planResetDue(custom, 1000, 0, 1350, 'UTC')).toEqual({ last: 1300, next: 1400 });
    expect(planResetDue(period({}), 1000, 0, 99_999, 'UTC')).toBeUndefined();
  });
});

describe('plan prices and input', () => {
  it('keeps prices exact in millionths and rounds the wallet price up', () => {
    expect(planPriceMicros(9.99)).toBe(9_990_000);
    expect(planPriceMicros(0.123456)).toBe(123_456);
    expect(planPriceQuota(9_990_000, 500_000)).toBe(4_995_000);
    expect(planPriceQuota(333_333, 500_000)).toBe(166_667);
    expect(planPriceQuota(1, 500_000)).toBe(1);
    expect(planPriceQuota(0, 500_000)).toBe(0);
  });

  it("takes new-api's defaults and refuses what new-api refuses", () => {
    expect(subscriptionPlanInput.parse({ title: 'A' })).toMatchObject({
      duration_unit: 'month',
      duration_value: 1,
      quota_reset_period: 'never',
      enabled: true,
      allow_balance_pay: true,
      total_amount: 0,
    });
    for (const bad of [
      { title: '' },
      { title: 'A', price_amount: -0.01 },
      { title: 'A', price_amount: 10_000 },
      { title: 'A', duration_unit: 'custom' },
      { title: 'A', quota_reset_period: 'custom' },
      { title: 'A', total_amount: -1 },
      { title: 'A', duration_unit: 'week' },
    ])
      expect(subscriptionPlanInput.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('reads an unknown billing preference as the default', () => {
    expect(normalizeBillingPreference(' wallet_only ')).toBe('wallet_only');
    expect(normalizeBillingPreference('nonsense')).toBe('subscription_first');
    expect(normalizeBillingPreference(undefined)).toBe('subscription_first');
  });
});
