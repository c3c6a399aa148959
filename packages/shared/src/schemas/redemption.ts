import { z } from 'zod';

/** Redemption status (spec 3 §4): 1 unused, 2 disabled, 3 used. */
export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;

/** Limits of redemption codes (spec 3 §5, §9), enforced by the server and shown by the console. */
export const REDEMPTION_NAME_MAX = 20;
export const REDEMPTION_MAX_BATCH = 100;
export const REDEMPTION_KEY_LENGTH = 32;
/** Largest quota one code can carry (2^53 / 1000: sums of many codes stay exact). */
export const REDEMPTION_MAX_QUOTA = 9_000_000_000_000;

/** A code as the admin APIs answer it; times are epoch seconds, 0 meaning none; used_user_id 0: nobody yet; max_uses -1 unlimited. */
export const redemptionPublic = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  key: z.string(),
  status: z.number().int(),
  name: z.string(),
  quota: z.number().int(),
  created_time: z.number().int(),
  redeemed_time: z.number().int(),
  used_user_id: z.number().int(),
  is_gift: z.boolean(),
  max_uses: z.number().int(),
  used_count: z.number().int(),
  valid_from: z.number().int(),
  valid_until: z.number().int(),
});
export type RedemptionPublic = z.infer<typeof redemptionPublic>;

/** The editable fields of POST /api/redemption/ (create, with count and key besides) and PUT /api/redemption/ (edit). */
export type RedemptionInput = Pick<RedemptionPublic, 'name' | 'quota' | 'is_gift' | 'max_uses' | 'valid_from' | 'valid_until'>;
