import { z } from 'zod';

/** Account events whose log text the console writes in the viewer's language from the fields below. */
export const LOG_EVENT_KINDS = ['checkin', 'redemption', 'topup', 'admin_quota', 'invite_bonus', 'invite_reward'] as const;
export type LogEventKind = (typeof LOG_EVENT_KINDS)[number];

/** How an administrator changed a balance. */
export const ADMIN_QUOTA_MODES = ['add', 'subtract', 'override'] as const;

/**
 * The structured form of an account event's log text, kept in `other.event` beside the English `content`
 * (which stays the fallback for rows without it).
 */
export const logEvent = z.object({
  kind: z.enum(LOG_EVENT_KINDS),
  /** Quota the event moved (or the balance set). */
  quota: z.number().optional(),
  /** The quota as money (or tokens), as the server rendered it. */
  amount: z.string().optional(),
  /** Money paid for an online top-up. */
  paid: z.string().optional(),
  code_id: z.number().optional(),
  gift: z.boolean().optional(),
  mode: z.enum(ADMIN_QUOTA_MODES).optional(),
  /** The administrator who changed the balance. */
  actor: z.string().optional(),
  /** The invited user (on the inviter's reward). */
  invitee: z.string().optional(),
});
export type LogEvent = z.infer<typeof logEvent>;
