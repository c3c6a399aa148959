import { z } from 'zod';

/** Highest requests or tokens per minute a limit may be set to (the columns are 32-bit integers). */
export const PER_MINUTE_MAX = 2_000_000_000;

/** A requests- or tokens-per-minute limit: a whole number, 0 meaning no limit. */
export const perMinute = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .int(`${field} must be an integer`)
    .min(0, `${field} must be 0 (no limit) or more`)
    .max(PER_MINUTE_MAX, `${field} must be at most ${PER_MINUTE_MAX}`);

/** The GroupRateLimits option: group → its requests and tokens per minute, all its callers together. */
export const groupRateLimits = z.record(
  z.string().min(1, 'a group name must not be empty'),
  z.strictObject(
    { rpm: perMinute('rpm').optional(), tpm: perMinute('tpm').optional() },
    { error: 'each group maps to {"rpm": n, "tpm": n}' },
  ),
);
export type GroupRateLimits = z.infer<typeof groupRateLimits>;

/** The limits a channel's setting JSON may hold (its own upstream account's limits). */
export const channelRateLimits = z.object({
  rpm_limit: perMinute('setting.rpm_limit').optional(),
  tpm_limit: perMinute('setting.tpm_limit').optional(),
});
