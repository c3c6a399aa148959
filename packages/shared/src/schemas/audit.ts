import { z } from 'zod';
import { pageQuery } from './common.js';
import { epochSecondsFilter } from './log.js';

const text = (field: string, max: number) =>
  z.string().trim().max(max, `${field} must be at most ${max} characters`).optional().default('');

/** Outcome of an audited call: done, or refused with 403. */
export const AuditOutcomes = ['ok', 'denied'] as const;
export type AuditOutcome = (typeof AuditOutcomes)[number];

/** GET /api/audit/: filters ('' or 0 = none); times bound created_at, inclusive. */
export const auditQuery = pageQuery.extend({
  actor: text('actor', 64),
  actor_id: z.coerce
    .number({ error: 'actor_id must be a user id' })
    .int('actor_id must be an integer')
    .min(0, 'actor_id must be at least 0')
    .max(2_147_483_647)
    .default(0),
  action: text('action', 64),
  target_type: text('target_type', 32),
  target_id: text('target_id', 191),
  outcome: z
    .enum(['', ...AuditOutcomes], { error: 'outcome must be ok or denied' })
    .optional()
    .default(''),
  start_timestamp: epochSecondsFilter('start_timestamp'),
  end_timestamp: epochSecondsFilter('end_timestamp'),
});
export type AuditFilter = z.infer<typeof auditQuery>;

/** One audit row: who did what to which target, when and from where; detail is JSON text with secrets masked. */
export const auditRow = z.object({
  id: z.number().int(),
  created_at: z.number().int(),
  actor_id: z.number().int(),
  actor_name: z.string(),
  actor_role: z.number().int(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  outcome: z.enum(AuditOutcomes),
  ip: z.string(),
  user_agent: z.string(),
  detail: z.string(),
});
export type AuditRow = z.infer<typeof auditRow>;
