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
  return Object.assign(
    {
      member_id: a.memberId,
      team_id: a.teamId,
      tags: a.tags,
      billed_quota: a.markupBp > 0 ? markedUp(row.quota, a.markupBp) : 0,
      user_id: c.auth.userId,
      username: c.auth.username,
      token_name: c.auth.name,
      token_id: c.auth.tokenId,
      model_name: c.model,
      is_stream: c.stream ? 1 : 0,
      group: c.group,
      ip: c.ip,
      request_id: c.requestId,
    },
    row,
  );
}

/** A call's duration in whole seconds, as its row's use_time. */
export const useTimeSince = (started: number): number => Math.max(0, Math.round((Date.now() - started) / 1000));
