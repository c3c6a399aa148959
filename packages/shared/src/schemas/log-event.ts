import { z } from 'zod';

/**
 * Events whose log text the console writes in the viewer's language from the fields below: account events, a
 * task's submit and refund, a call billed on recovery, and the gateway's own error rows (no channel, a hidden or
 * unreachable upstream, an upstream's error around its own text, which stays the row's content).
 */
export const LOG_EVENT_KINDS = [
  'checkin',
  'redemption',
  'topup',
  'admin_quota',
  'invite_bonus',
  'invite_reward',
  'task_submit',
  'task_refund',
  'unsettled_call',
  'no_channel',
  'upstream_failed',
  'upstream_error',
] as const;
export type LogEventKind = (typeof LOG_EVENT_KINDS)[number];

/**
 * Why a task failed when the gateway says so: it timed out, its submission was interrupted, its refund was sent
 * again after an interruption, or the upstream failed it without a reason. An upstream's own reason stays text.
 */
export const TASK_FAIL_REASONS = ['timeout', 'interrupted', 'resent', 'failed'] as const;
export type TaskFailReason = (typeof TASK_FAIL_REASONS)[number];

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
  /** A task's upstream id and action (IMAGINE, MUSIC, generate). */
  task_id: z.string().optional(),
  action: z.string().optional(),
  /** A refunded task's failure: the gateway's reason, or the upstream's own text. */
  reason_code: z.enum(TASK_FAIL_REASONS).optional(),
  reason: z.string().optional(),
  /** An error row's HTTP status (the upstream's). */
  status: z.number().optional(),
  /** The model and group no channel serves. */
  model: z.string().optional(),
  group: z.string().optional(),
});
export type LogEvent = z.infer<typeof logEvent>;
