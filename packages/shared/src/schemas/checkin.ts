import { z } from 'zod';

/**
 * GET /api/user/check_in_status. can_check_in: check-in is on and the user has not checked in today (the
 * server's day). quota: today's reward once checked in, else 0. min_quota/max_quota: the reward range
 * (equal for a fixed reward).
 */
export const checkInStatus = z.object({
  enabled: z.boolean(),
  can_check_in: z.boolean(),
  checked_in: z.boolean(),
  quota: z.number().int(),
  min_quota: z.number().int(),
  max_quota: z.number().int(),
  /** The server's current day, YYYY-MM-DD. */
  day: z.string(),
});
export type CheckInStatus = z.infer<typeof checkInStatus>;

/** POST /api/user/check_in: the reward credited. */
export const checkInResult = z.object({ quota: z.number().int() });

/** GET /api/user/checkin (new-api's shape): ?month=YYYY-MM, the current month by default. */
export const checkinMonthQuery = z.object({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'month must be YYYY-MM')
    .optional(),
});

/** new-api's check-in status: the reward range and the caller's check-ins (all time, and in the month asked). */
export const checkinStats = z.object({
  enabled: z.boolean(),
  min_quota: z.number().int(),
  max_quota: z.number().int(),
  stats: z.object({
    total_quota: z.number().int(),
    total_checkins: z.number().int(),
    checkin_count: z.number().int(),
    checked_in_today: z.boolean(),
    records: z.array(z.object({ checkin_date: z.string(), quota_awarded: z.number().int() })),
  }),
});
export type CheckinStats = z.infer<typeof checkinStats>;

/** POST /api/user/checkin (new-api's shape). */
export const checkinAward = z.object({ quota_awarded: z.number().int(), checkin_date: z.string() });
