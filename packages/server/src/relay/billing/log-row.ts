import type { Insertable } from 'kysely';
import type { LogsTable } from '../../db/schema.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { markedUp } from '@tollway/shared';

/** Who made a call, for what model, from where: the same in each of the call's log rows and its journal line. */
export interface CallIdentity {
  auth: TokenAuth;
  group: string;
  model: string;
  stream: boolean;
  ip: string;
  requestId: string;
}

/** A log row's own fields (what it says of the call's outcome), beside the call's identity. */
export type CallLogFields = Pick<
  Required<Insertable<LogsTable>>,
  | 'created_at'
  | 'type'
  | 'content'
  | 'quota'
  | 'prompt_tokens'
  | 'completion_tokens'
  | 'use_time'
  | 'channel_id'
  | 'channel_name'
  | 'other'
>;

/**
 * The one builder of a call's log rows (consume, error, unsettled; chat, realtime and task calls alike): its
 * identity, its organization attribution (member, team, tags; a reseller's price of the charge) and the row's own
 * fields.
 */
export function callLogRow(c: CallIdentity, row: CallLogFields): Insertable<LogsTable> {
  const a = c.auth;
  // One literal (every row the same shape and column order; no Object.assign of the row's fields per call).
  const out: Insertable<LogsTable> = {
    user_id: a.userId,
    username: a.username,
    token_name: a.name,
    token_id: a.tokenId,
    model_name: c.model,
    is_stream: c.stream ? 1 : 0,
    group: c.group,
    ip: c.ip,
    request_id: c.requestId,
    created_at: row.created_at,
    type: row.type,
    content: row.content,
    quota: row.quota,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    use_time: row.use_time,
    channel_id: row.channel_id,
    channel_name: row.channel_name,
    other: row.other,
  };
  // A person's untagged call leaves the attribution columns to their defaults (0, ''): no extra cells to write.
  if (a.memberId) out.member_id = a.memberId;
  if (a.teamId) out.team_id = a.teamId;
  if (a.tags) out.tags = a.tags;
  if (a.markupBp > 0) out.billed_quota = markedUp(row.quota, a.markupBp);
  return out;
}

/** A call's duration in whole seconds, as its row's use_time. */
export const useTimeSince = (started: number): number => Math.max(0, Math.round((Date.now() - started) / 1000));
