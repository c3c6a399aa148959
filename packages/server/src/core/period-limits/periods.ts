/**
 * The arithmetic of period limits. Calendar periods (day, ISO week starting Monday, month) follow the process's
 * time zone (`TZ`): a day starts at local midnight, whatever its length (23 or 25 hours around a DST change).
 * The rolling 5-hour window is a sliding sum of five-minute slots aligned to the epoch: a call counts in the slot
 * it was admitted in, and the window at a moment is that moment's slot and the 59 before it, so an amount leaves
 * the window 5 hours after the start of its slot (between 4 h 55 min and 5 h after the call).
 */

export type CalendarPeriod = 'day' | 'week' | 'month';

/** Length of one slot of the rolling window. */
export const SLOT_MS = 5 * 60_000;
/** Slots in the rolling window: 5 hours of five-minute slots. */
export const WINDOW_SLOTS = 60;

/** Start (epoch ms) of the calendar period that `now` falls in, in the process's time zone. */
export function periodStart(period: CalendarPeriod, now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  if (period === 'week') d.setDate(d.getDate() - ((d.getDay() + 6) % 7));
  else if (period === 'month') d.setDate(1);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** End (epoch ms, exclusive) of the calendar period that `now` falls in: the start of the next one. */
export function periodEnd(period: CalendarPeriod, now: number): number {
  const d = new Date(periodStart(period, now));
  if (period === 'day') d.setDate(d.getDate() + 1);
  else if (period === 'week') d.setDate(d.getDate() + 7);
  else d.setMonth(d.getMonth() + 1);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** The rolling window's slot that `now` falls in. */
export const slotOf = (now: number): number => Math.floor(now / SLOT_MS);

/** Whether an amount counted in `slot` is still in the window of `current`. */
export const inWindow = (slot: number, current: number): boolean => slot > current - WINDOW_SLOTS && slot <= current;

/** When an amount counted in `slot` leaves the rolling window (epoch ms). */
export const slotLeavesAt = (slot: number): number => (slot + WINDOW_SLOTS) * SLOT_MS;

/** Whole seconds from `now` to `at`, at least 1 (a `retry-after` of 0 invites a busy loop). */
export const secondsUntil = (at: number, now: number): number => Math.max(1, Math.ceil((at - now) / 1000));
