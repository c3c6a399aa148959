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
