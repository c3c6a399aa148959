import type { Insertable } from 'kysely';
import type { LogsTable } from '../../src/db/schema.js';
import type { WriteRecord } from '../../src/accounting/writer.js';

/** A logs row with every column at a plain default (a consume log of user 1, nothing counted); `over` sets the rest. */
export function logRow(over: Partial<Insertable<LogsTable>> = {}): Insertable<LogsTable> {
  return {
    user_id: 1,
    created_at: 1,
    type: 2,
    content: '',
    username: '',
    token_name: '',
    model_name: '',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: 0,
    is_stream: 0,
    channel_id: 0,
    channel_name: '',
    token_id: 0,
    group: 'default',
    ip: '',
    request_id: '',
    other: '{}',
    ...over,
  };
}

/** A writer record charging `quota` to a user's wallet (no token, no channel) with its consume log `requestId`. */
export function loggedCharge(userId: number, username: string, quota: number, requestId: string): WriteRecord {
  return {
    userId,
    tokenId: 0,
    tokenLimited: false,
    channelId: 0,
    quota,
    countsRequest: true,
    log: logRow({ user_id: userId, username, model_name: 'm', quota, request_id: requestId }),
  };
}
