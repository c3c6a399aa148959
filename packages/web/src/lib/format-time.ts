import dayjs from 'dayjs';

/** Unix seconds as local "YYYY-MM-DD HH:mm:ss" (or without seconds); `empty` for 0 or a missing time. */
export function formatTime(
  seconds: number | undefined | null,
  opts: { seconds?: boolean; empty?: string } = {},
): string {
  if (!seconds || seconds <= 0) return opts.empty ?? '';
  return dayjs.unix(seconds).format(opts.seconds === false ? 'YYYY-MM-DD HH:mm' : 'YYYY-MM-DD HH:mm:ss');
}
