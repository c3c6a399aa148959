import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { nowSeconds } from '../../lib/time.js';

/** A log row that records an account event (top-up, admin, system, check-in) rather than a relayed call. */
export interface AccountLog {
  userId: number;
  username: string;
  /** LogType value. */
  type: number;
  content: string;
  /** Quota the event moved (shown in the quota column). */
  quota: number;
}

/**
 * Inserts one account-event log row, inside the caller's transaction when given one, so the log commits or
 * rolls back together with the balance change it describes.
 */
export async function insertAccountLog(db: Kysely<Database> | Transaction<Database>, log: AccountLog): Promise<void> {
  await db
    .insertInto('logs')
    .values({
      user_id: log.userId,
      created_at: nowSeconds(),
      type: log.type,
      content: log.content,
      username: log.username,
      token_name: '',
      model_name: '',
      quota: log.quota,
      prompt_tokens: 0,
      completion_tokens: 0,
      use_time: 0,
      is_stream: 0,
      channel_id: 0,
      channel_name: '',
      token_id: 0,
      group: '',
      ip: '',
      request_id: '',
      other: '',
    })
    .execute();
}
