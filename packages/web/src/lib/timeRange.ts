import type { Dayjs } from 'dayjs';

/** A filter form's draft with the pickers' start and end turned into epoch seconds (0 when empty). */
export function withTimestamps<T extends { start: Dayjs | null; end: Dayjs | null }>(
  d: T,
): Omit<T, 'start' | 'end'> & { start_timestamp: number; end_timestamp: number } {
  const { start, end, ...rest } = d;
  return { ...rest, start_timestamp: start ? start.unix() : 0, end_timestamp: end ? end.unix() : 0 };
}

/** A filter form's draft of filters `F`: the epoch-second bounds as the pickers' values. */
export type PickerDraft<F> = Omit<F, 'start_timestamp' | 'end_timestamp'> & { start: Dayjs | null; end: Dayjs | null };
