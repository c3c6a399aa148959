import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { quotaCounters, requestCounters } from '../../src/core/period-limits/counters.js';
import { MemoryPeriodStore } from '../../src/core/period-limits/memory-store.js';
import {
  inWindow,
  periodEnd,
  periodStart,
  SLOT_MS,
  slotLeavesAt,
  slotOf,
  WINDOW_SLOTS,
  type CalendarPeriod,
} from '../../src/core/period-limits/periods.js';
import { PeriodLimitsService } from '../../src/core/period-limits/service.js';
import type { PeriodLimits } from '../../src/core/period-limits/types.js';
import { periodRefusal } from '../../src/relay/limits/period-refusal.js';

const HOUR = 3_600_000;
const ZONES = ['UTC', 'Asia/Shanghai', 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Chatham'] as const;
const PERIODS: CalendarPeriod[] = ['day', 'week', 'month'];
const savedTz = process.env.TZ;
afterAll(() => {
  process.env.TZ = savedTz;
});

/** Moments from 2000 to 2100. */
const moment = fc.integer({ min: 946_684_800_000, max: 4_102_444_800_000 });

describe('calendar periods in the process time zone', () => {
  it.each(ZONES)('%s: a period holds its moment, starts at local midnight and ends where the next starts', (tz) => {
    process.env.TZ = tz;
    fc.assert(
      fc.property(moment, fc.constantFrom(...PERIODS), (now, p) => {
        const start = periodStart(p, now);
        const end = periodEnd(p, now);
        expect(start).toBeLessThanOrEqual(now);
        expect(end).toBeGreaterThan(now);
        expect(periodStart(p, end)).toBe(end);
        expect(periodStart(p, end - 1)).toBe(start);
        const s = new Date(start);
        expect([s.getHours(), s.getMinutes(), s.getSeconds(), s.getMilliseconds()]).toEqual([0, 0, 0, 0]);
        if (p === 'week') expect(s.getDay()).toBe(1);
        if (p === 'month') expect(s.getDate()).toBe(1);
        const hours = (end - start) / HOUR;
        // A DST change moves a day by up to an hour (half an hour at Lord Howe).
        const nominal = p === 'day' ? [24] : p === 'week' ? [168] : [672, 696, 720, 744];
        expect(nominal.some((n) => Math.abs(hours - n) <= 1)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('examples: Friday 4 December 2026 in Shanghai and in New York', () => {
    process.env.TZ = 'Asia/Shanghai';
    const now = Date.parse('2026-12-04T15:30:00Z'); // 23:30 local
    expect(new Date(periodStart('day', now)).toISOString()).toBe('2026-12-03T16:00:00.000Z');
    expect(new Date(periodEnd('day', now)).toISOString()).toBe('2026-12-04T16:00:00.000Z');
    expect(new Date(periodStart('week', now)).toISOString()).toBe('2026-11-29T16:00:00.000Z');
    expect(new Date(periodEnd('week', now)).toISOString()).toBe('2026-12-06T16:00:00.000Z');
    expect(new Date(periodStart('month', now)).toISOString()).toBe('2026-11-30T16:00:00.000Z');
    expect(new Date(periodEnd('month', now)).toISOString()).toBe('2026-12-31T16:00:00.000Z');
    process.env.TZ = 'America/New_York';
    // Sunday 8 March 2026 has 23 hours there; the week of Monday 2 March ends on Monday 9 March, local midnight.
    const dst = Date.parse('2026-03-08T12:00:00Z');
    expect(periodEnd('day', dst) - periodStart('day', dst)).toBe(23 * HOUR);
    expect(new Date(periodStart('week', dst)).toISOString()).toBe('2026-03-02T05:00:00.000Z');
    expect(new Date(periodEnd('week', dst)).toISOString()).toBe('2026-03-09T04:00:00.000Z');
  });
});

describe('the rolling 5-hour window', () => {
  it('an amount counts from its call until 5 hours after the start of its 5-minute slot, never longer', () => {
    fc.assert(
      fc.property(moment, fc.integer({ min: 0, max: 6 * HOUR }), (at, after) => {
        const slot = slotOf(at);
        const leaves = slotLeavesAt(slot);
        expect(leaves - at).toBeGreaterThan(5 * HOUR - SLOT_MS);
        expect(leaves - at).toBeLessThanOrEqual(5 * HOUR);
        expect(inWindow(slot, slotOf(at + after))).toBe(at + after < leaves);
      }),
    );
    expect(WINDOW_SLOTS * SLOT_MS).toBe(5 * HOUR);
  });
});

const LIMITS: PeriodLimits = {
  tokenId: 7,
  userId: 3,
  token: { day: 100, week: 0, month: 0, fiveHours: 60, requestsPerDay: 2 },
  user: { day: 0, week: 250, month: 0, fiveHours: 0, requestsPerDay: 0 },
};

describe('the memory store', () => {
  it('grants up to the tightest room, at least the minimum, or nothing; reads with a take of 0', () => {
    process.env.TZ = 'UTC';
    const s = new PeriodLimitsService(new MemoryPeriodStore());
    const at = Date.parse('2026-12-04T18:00:00Z');
    // Settlement adjusts counters still live at the service's own clock: pinned to the test's day, not the run's.
    s.now = () => at;
    expect(quotaCounters(LIMITS, at).map((c) => `${c.level}:${c.period}`)).toEqual([
      'token:day',
      'token:5h',
      'user:week',
    ]);
    expect(requestCounters(LIMITS, at).map((c) => c.key)).toEqual([`token:7:requests_day:${Date.parse('2026-12-04')}`]);
    // The 5-hour limit (60) is the tightest: 40 granted, then 20 of 30, then a minimum of 1 does not fit.
    return (async () => {
      expect(await s.takeQuota(LIMITS, 40, 40, at)).toBe(40);
      expect(await s.takeQuota(LIMITS, 30, 10, at)).toBe(20);
      const refused = await s.takeQuota(LIMITS, 5, 1, at);
      expect(refused).toMatchObject({ counter: { period: '5h', limit: 60 }, use: { used: 60 } });
      // Settled below the hold: room comes back at once.
      await s.adjustQuota(LIMITS, at, -15);
      expect(await s.takeQuota(LIMITS, 15, 15, at)).toBe(15);
      // Five hours after its slot began, the window is empty again; the day still counts 60.
      const later = slotLeavesAt(slotOf(at));
      expect(await s.takeQuota(LIMITS, 45, 30, later)).toBe(40);
      expect(await s.takeQuota(LIMITS, 1, 1, later)).toMatchObject({ counter: { period: 'day', limit: 100 } });
      // The next day starts at 0 (the 5-hour window still holds 40).
      const tomorrow = Date.parse('2026-12-05T00:00:00Z');
      s.now = () => tomorrow;
      expect(await s.remaining(LIMITS)).toEqual([
        {
          level: 'token',
          period: 'day',
          limit: 100,
          used: 0,
          remaining: 100,
          reset_at: Date.parse('2026-12-06') / 1000,
        },
        {
          level: 'token',
          period: '5h',
          limit: 60,
          used: 40,
          remaining: 20,
          reset_at: slotLeavesAt(slotOf(later)) / 1000,
        },
        {
          level: 'user',
          period: 'week',
          limit: 250,
          used: 100,
          remaining: 150,
          reset_at: Date.parse('2026-12-07') / 1000,
        },
        {
          level: 'token',
          period: 'requests_day',
          limit: 2,
          used: 0,
          remaining: 2,
          reset_at: Date.parse('2026-12-06') / 1000,
        },
      ]);
    })();
  });

  it('never grants more than a limit, whatever the takes and give-backs', async () => {
    const at = Date.parse('2026-12-04T10:00:00Z');
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            amount: fc.integer({ min: 0, max: 80 }),
            minimumShare: fc.double({ min: 0, max: 1, noNaN: true }),
            refund: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { maxLength: 30 },
        ),
        async (steps) => {
          const s = new PeriodLimitsService(new MemoryPeriodStore());
          s.now = () => at;
          let counted = 0;
          for (const step of steps) {
            const minimum = Math.floor(step.amount * step.minimumShare);
            const granted = await s.takeQuota(LIMITS, step.amount, minimum, at);
            if (typeof granted !== 'number') {
              expect(60 - counted).toBeLessThan(minimum);
              continue;
            }
            expect(granted).toBeGreaterThanOrEqual(minimum);
            expect(granted).toBeLessThanOrEqual(step.amount);
            // Settled at a charge at most the hold.
            const giveBack = Math.floor(granted * step.refund);
            await s.adjustQuota(LIMITS, at, -giveBack);
            counted += granted - giveBack;
            expect(counted).toBeLessThanOrEqual(60);
          }
          const [day, fiveHours] = await s.remaining(LIMITS);
          expect(fiveHours!.used).toBe(counted);
          expect(day!.used).toBe(counted);
        },
      ),
    );
  });

  it('a refusal is a 429 naming the limit, its count and reset, with retry-after in seconds', () => {
    const at = Date.parse('2026-12-04T10:00:00Z');
    const [day] = quotaCounters(LIMITS, at);
    const e = periodRefusal({ counter: day!, use: { used: 95, oldest: -1 } }, 10, at);
    expect(e.status).toBe(429);
    expect(e.type).toBe('rate_limit_error');
    expect(e.message).toBe(
      `daily quota limit of this token reached (95 of 100 used, this call needs 10); resets at ${new Date(day!.endsAt).toISOString()}`,
    );
    expect(e.headers).toEqual({ 'retry-after': String((day!.endsAt - at) / 1000) });
  });
});
