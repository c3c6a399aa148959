import { sql } from 'kysely';
import { LogType, type LogEvent } from '@tollway/shared';
import type { Db } from '../../db/connect.js';
import { isUniqueViolation } from '../../db/unique.js';
import type { AccountLogs } from '../../accounting/account-log.js';

export interface CheckInRecord {
  userId: number;
  username: string;
  /** YYYY-MM-DD in the server's time zone. */
  day: string;
  quota: number;
  createdAt: number;
  /** Text of the check-in log. */
  content: string;
  /** Its fields, for the console's language. */
  event?: LogEvent;
}

/** SQL for check-ins: a day's row, and the check-in itself (row, credit and log in one transaction). */
export class CheckInStore {
  constructor(
    private readonly db: Db,
    private readonly accountLogs: AccountLogs,
  ) {}

  /** The reward of the user's check-in on `day`, or undefined when there is none. */
  async rewardOn(userId: number, day: string): Promise<number | undefined> {
    const row = await this.db.kysely
      .selectFrom('checkins')
      .select('quota')
      .where('user_id', '=', userId)
      .where('day', '=', day)
      .executeTakeFirst();
    return row ? Number(row.quota) : undefined;
  }

  /** The user's check-ins between two days (inclusive, YYYY-MM-DD), newest first. */
  async between(userId: number, from: string, to: string): Promise<{ day: string; quota: number }[]> {
    const rows = await this.db.kysely
      .selectFrom('checkins')
      .select(['day', 'quota'])
      .where('user_id', '=', userId)
      .where('day', '>=', from)
      .where('day', '<=', to)
      .orderBy('day', 'desc')
      .execute();
    return rows.map((r) => ({ day: r.day, quota: Number(r.quota) }));
  }

  /** How many times the user checked in, and the quota received, over all time. */
  async totals(userId: number): Promise<{ count: number; quota: number }> {
    const row = await this.db.kysely
      .selectFrom('checkins')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('n'),
        eb.fn.coalesce(eb.fn.sum<number | string>('quota'), eb.lit(0)).as('q'),
      ])
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), quota: Number(row.q) };
  }

  /**
   * Inserts the day's row, credits the quota and writes the check-in log, all or nothing. The UNIQUE(user_id, day)
   * key decides between concurrent check-ins: the losers' inserts fail and they return false, crediting nothing.
   */
  async record(r: CheckInRecord): Promise<boolean> {
    const logs = this.accountLogs.batch();
    try {
      await this.db.kysely.transaction().execute(async (trx) => {
        await trx
          .insertInto('checkins')
          .values({ user_id: r.userId, day: r.day, quota: r.quota, created_at: r.createdAt })
          .execute();
        if (r.quota > 0) {
          await trx
            .updateTable('users')
            .set({ quota: sql`quota + ${r.quota}` })
            .where('id', '=', r.userId)
            .execute();
        }
        await logs.add(trx, {
          userId: r.userId,
          username: r.username,
          type: LogType.CheckIn,
          content: r.content,
          quota: r.quota,
          event: r.event,
        });
      });
      logs.committed();
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }
}
