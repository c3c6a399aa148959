import type { LogEvent } from '@tollway/shared';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Database, LogsTable } from '../db/schema.js';
import { nowSeconds } from '../lib/time.js';
import type { WriteRecord } from './writer-apply.js';

/** A log row that records an account event (top-up, admin, system, check-in) rather than a relayed call. */
export interface AccountLog {
  userId: number;
  username: string;
  /** LogType value. */
  type: number;
  content: string;
  /** Quota the event moved (shown in the quota column). */
  quota: number;
  /** The fields the console writes the text from in the viewer's language (`content` is the fallback). */
  event?: LogEvent;
}

/** The log row of an account event. */
export function accountLogRow(log: AccountLog): Insertable<LogsTable> {
  return {
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
    other: log.event ? JSON.stringify({ event: log.event }) : '',
  };
}

/**
 * Inserts one account-event log row, inside the caller's transaction when given one, so the log commits or
 * rolls back together with the balance change it describes.
 */
export async function insertAccountLog(db: Kysely<Database> | Transaction<Database>, log: AccountLog): Promise<void> {
  await db.insertInto('logs').values(accountLogRow(log)).execute();
}

/**
 * The logs one balance transaction adds: `add` inside the transaction, `committed` once it has committed. When
 * the transaction is retried, the attempt that commits must add its logs again (earlier attempts' are dropped).
 */
export interface AccountLogBatch {
  add(trx: Transaction<Database>, log: AccountLog): Promise<void>;
  committed(): void;
}

/**
 * Where account-event logs go. With logs in the main database they are inserted in the balance change's own
 * transaction (committed or rolled back with it). With their own database (LOG_SQL_DSN) one transaction cannot
 * span both, so they go to the durable writer once the balance transaction has committed, as log-only records
 * with the same journal guarantee as the relay's logs; a rolled-back change leaves no log.
 */
export class AccountLogs {
  private writer: { enqueue(record: WriteRecord): void } | undefined;

  constructor(readonly separateDatabase: boolean) {}

  /** The writer that takes logs for a separate log database (set once the relay's writer exists). */
  useWriter(writer: { enqueue(record: WriteRecord): void }): void {
    this.writer = writer;
  }

  batch(): AccountLogBatch {
    if (!this.separateDatabase) return { add: (trx, log) => insertAccountLog(trx, log), committed: () => undefined };
    let later: AccountLog[] = [];
    let adding: Transaction<Database> | undefined;
    return {
      // A retried transaction (a new trx object) replaces what an attempt that rolled back had added.
      add: async (trx, log) => {
        if (trx !== adding) {
          adding = trx;
          later = [];
        }
        later.push(log);
      },
      committed: () => {
        if (!this.writer) throw new Error('account logs: no writer for the log database');
        for (const log of later.splice(0)) {
          this.writer.enqueue({
            userId: log.userId,
            tokenId: 0,
            tokenLimited: false,
            channelId: 0,
            quota: 0,
            countsRequest: false,
            log: accountLogRow(log),
          });
        }
      },
    };
  }
}
