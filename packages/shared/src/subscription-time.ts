import type { SubscriptionDurationUnit, SubscriptionResetPeriod } from './schemas/subscription.js';

/**
 * When a plan bought at `start` ends, and when its quota next returns to zero. Calendar steps (months, years, the
 * next midnight, Monday or first of the month) are taken in `timeZone` (the server's TZ), as new-api takes them in
 * its local time. Seconds since the epoch in and out.
 */
export interface PlanPeriod {
  duration_unit: SubscriptionDurationUnit;
  duration_value: number;
  custom_seconds: number;
  quota_reset_period: SubscriptionResetPeriod;
  quota_reset_custom_seconds: number;
}

const HOUR = 3600;
const DAY = 86_400;

interface Parts {
  y: number;
  m: number;
  d: number;
  weekday: number;
  offset: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Local calendar parts of `t` in the zone, and the zone's offset from UTC at `t` (seconds). */
function partsOf(t: number, timeZone: string): Parts & { hh: number; mm: number; ss: number } {
  const get: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(t * 1000))) get[p.type] = p.value;
  const y = Number(get.year);
  const m = Number(get.month);
  const d = Number(get.day);
  const hh = Number(get.hour);
  const mm = Number(get.minute);
  const ss = Number(get.second);
  const offset = Date.UTC(y, m - 1, d, hh, mm, ss) / 1000 - t;
  return { y, m, d, hh, mm, ss, weekday: WEEKDAYS.indexOf(get.weekday ?? 'Sun'), offset };
}

/** The instant of local time y-m-d hh:mm:ss in the zone (month and day may overflow, as Date.UTC allows). */
function instantOf(y: number, m: number, d: number, hh: number, mm: number, ss: number, timeZone: string): number {
  const guess = Date.UTC(y, m - 1, d, hh, mm, ss) / 1000;
  const first = guess - partsOf(guess, timeZone).offset;
  return guess - partsOf(first, timeZone).offset;
}

/** Adds calendar months in the zone, keeping the time of day; a day past the month's end rolls over (as Go's AddDate). */
function addMonths(t: number, months: number, timeZone: string): number {
  const p = partsOf(t, timeZone);
  return instantOf(p.y, p.m + months, p.d, p.hh, p.mm, p.ss, timeZone);
}

/** The end of a plan bought at `start`. */
export function planEndTime(plan: PlanPeriod, start: number, timeZone: string): number {
  const n = plan.duration_value;
  switch (plan.duration_unit) {
    case 'year':
      return addMonths(start, 12 * n, timeZone);
    case 'month':
      return addMonths(start, n, timeZone);
    case 'day':
      return start + n * DAY;
    case 'hour':
      return start + n * HOUR;
    case 'custom':
      return start + plan.custom_seconds;
  }
}

/** The next reset after `base`, or 0 when the plan never resets or the next reset falls after its end. */
export function planNextReset(plan: PlanPeriod, base: number, end: number, timeZone: string): number {
  let next: number;
  const p = partsOf(base, timeZone);
  switch (plan.quota_reset_period) {
    case 'never':
      return 0;
    case 'daily':
      next = instantOf(p.y, p.m, p.d + 1, 0, 0, 0, timeZone);
      break;
    case 'weekly': {
      const isoDay = p.weekday === 0 ? 7 : p.weekday;
      next = instantOf(p.y, p.m, p.d + 8 - isoDay, 0, 0, 0, timeZone);
      break;
    }
    case 'monthly':
      next = instantOf(p.y, p.m + 1, 1, 0, 0, 0, timeZone);
      break;
    case 'custom':
      if (plan.quota_reset_custom_seconds <= 0) return 0;
      next = base + plan.quota_reset_custom_seconds;
      break;
  }
  return end > 0 && next > end ? 0 : next;
}

/** The start of the reset period holding `t` (local midnight, Monday or first of the month; custom: from `anchor`). */
function periodStart(plan: PlanPeriod, anchor: number, t: number, timeZone: string): number {
  const p = partsOf(t, timeZone);
  switch (plan.quota_reset_period) {
    case 'daily':
      return instantOf(p.y, p.m, p.d, 0, 0, 0, timeZone);
    case 'weekly':
      return instantOf(p.y, p.m, p.d - ((p.weekday + 6) % 7), 0, 0, 0, timeZone);
    case 'monthly':
      return instantOf(p.y, p.m, 1, 0, 0, 0, timeZone);
    case 'custom': {
      const step = plan.quota_reset_custom_seconds;
      return step > 0 ? anchor + Math.floor((t - anchor) / step) * step : anchor;
    }
    case 'never':
      return anchor;
  }
}

/**
 * The reset a subscription is due at `now`: the start of the current period (the last boundary not after `now`)
 * and the boundary after it (0: none before the end); undefined when no boundary has passed since `lastReset`.
 */
export function planResetDue(
  plan: PlanPeriod,
  lastReset: number,
  end: number,
  now: number,
  timeZone: string,
): { last: number; next: number } | undefined {
  if (plan.quota_reset_period === 'never' || now <= lastReset) return undefined;
  const last = periodStart(plan, lastReset, Math.min(now, end > 0 ? end : now), timeZone);
  if (last <= lastReset) return undefined;
  return { last, next: planNextReset(plan, last, end, timeZone) };
}
