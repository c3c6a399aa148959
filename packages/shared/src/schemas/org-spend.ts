import { z } from 'zod';
import { TAG_LENGTH_MAX } from '../organizations.js';
import { pageQuery } from './common.js';
import { epochSecondsFilter, logRow } from './log.js';

const optionalId = z.coerce.number().int().min(0).max(2_147_483_647).optional();

/**
 * GET /api/org/:id/logs: the organization's consume logs, newest first (docs/operating/spend.md). Times bound
 * created_at inclusively (0: none); member_id, team_id, token_id, model, token name and tag narrow the rows. A member
 * without spend.all sees only their own calls whatever member_id says.
 */
export const orgLogQuery = pageQuery.extend({
  start_timestamp: epochSecondsFilter('start_timestamp'),
  end_timestamp: epochSecondsFilter('end_timestamp'),
  model_name: z.string().trim().max(191).optional(),
  token_name: z.string().trim().max(64).optional(),
  token_id: optionalId,
  member_id: optionalId,
  team_id: optionalId,
  tag: z.string().trim().max(TAG_LENGTH_MAX).optional(),
});
export type OrgLogQuery = z.infer<typeof orgLogQuery>;

/**
 * One call of the organization as its members see it: a user's log row (no channel, no IP) with whom it is
 * attributed to and its tags. billed_quota: the call at the organization's own prices (a reseller organization);
 * equal to quota otherwise.
 */
export const orgLogRow = logRow.omit({ channel: true, channel_name: true, ip: true }).extend({
  member_id: z.number().int(),
  /** The member's username ('' for a call of no member, e.g. a token without one). */
  member_name: z.string(),
  team_id: z.number().int(),
  /** The team's name ('' for no team or a team since deleted). */
  team_name: z.string(),
  tags: z.array(z.string()),
  billed_quota: z.number().int(),
});
export type OrgLogRow = z.infer<typeof orgLogRow>;
