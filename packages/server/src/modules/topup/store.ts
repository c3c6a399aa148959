import { LogType, type LogEvent } from '@tollway/shared';
import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import { fitsUnderQuotaMax, QuotaMaxExceeded } from '../../db/quota-cap.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { TopUpsTable } from '../../db/schema.js';
import type { AccountLogs } from '../../accounting/account-log.js';

export type TopUpRow = Selectable<TopUpsTable>;
export type NewTopUp = Insertable<TopUpsTable>;

/** Quota credited to a user at a time (epoch seconds), with the top-up log line written with it. */
export interface TopUpCredit {
  userId: number;
  quota: number;
  at: number;
  logContent: string;
  /** The fields of the log text (the console's language). */
  logEvent?: LogEvent;
}

/** What completing an order writes. */
export type Completion = TopUpCredit & { tradeNo: string };

/** SQL for top-up orders. Completing one is a single transaction gated by a conditional status change. */
export class TopUpStore {
  constructor(
    private readonly db: Db,
    private readonly accountLogs: AccountLogs,
  ) {}

  private get k() {
    return this.db.kysely;
  }

  async insert(row: NewTopUp): Promise<void> {
    await this.k.insertInto('top_ups').values(row).execute();
  }

  findByTradeNo(tradeNo: string): Promise<TopUpRow | undefined> {
    return this.k.selectFrom('top_ups').selectAll().where('trade_no', '=', tradeNo).executeTakeFirst();
  }

  /**
   * Marks an unpaid order (pending, or expired: a payment can be confirmed late) paid and credits its quota,
   * exactly once: the UPDATE … WHERE status IN ('pending', 'expired') changes one row for the first caller only
   * (a concurrent one waits for the row lock, or for SQLite's single writer, and then matches nothing), and only
   * that caller adds the quota and writes the log, in the same transaction. Returns false when it was paid.
   */
  async complete(c: Completion): Promise<boolean> {
    const logs = this.accountLogs.batch();
    const credited = await this.k.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('top_ups')
        .set({ status: 'success', complete_time: c.at })
        .where('trade_no', '=', c.tradeNo)
        .where('status', 'in', ['pending', 'expired'])
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      const credit = await trx
        .updateTable('users')
        .set({ quota: sql`quota + ${c.quota}` })
        .where('id', '=', c.userId)
        .where(fitsUnderQuotaMax('quota', c.quota))
        .executeTakeFirst();
      // Past QUOTA_MAX: everything rolls back, the order stays unpaid (a missing user is credited nothing, as before).
      if (
        Number(credit.numUpdatedRows) !== 1 &&
        (await trx.selectFrom('users').select('id').where('id', '=', c.userId).executeTakeFirst())
      )
        throw new QuotaMaxExceeded();
      const user = await trx.selectFrom('users').select('username').where('id', '=', c.userId).executeTakeFirst();
      await logs.add(trx, {
        userId: c.userId,
        username: user?.username ?? '',
        type: LogType.Topup,
        content: c.logContent,
        quota: c.quota,
        event: c.logEvent,
      });
      return true;
    });
    if (credited) logs.committed();
    return credited;
  }

  /**
   * Closes one still-pending order unpaid: `failed` (the provider refused the payment or the checkout could not be
   * started) or `expired` (the checkout lapsed). False when it was not pending (paid, or closed already).
   */
  async closeUnpaid(tradeNo: string, status: 'failed' | 'expired'): Promise<boolean> {
    const res = await this.k
      .updateTable('top_ups')
      .set({ status })
      .where('trade_no', '=', tradeNo)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Marks orders still pending since before `cutoff` (epoch seconds) expired; returns how many. */
  async expirePendingBefore(cutoff: number): Promise<number> {
    const res = await this.k
      .updateTable('top_ups')
      .set({ status: 'expired' })
      .where('status', '=', 'pending')
      .where('create_time', '<', cutoff)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /** Newest first; userId scopes to one user, keyword matches part of the trade number. */
  async page(opts: RowWindow & { userId?: number; keyword?: string }): Promise<Slice<TopUpRow>> {
    let base = this.k.selectFrom('top_ups');
    if (opts.userId !== undefined) base = base.where('user_id', '=', opts.userId);
    if (opts.keyword) base = base.where(likeText('trade_no', opts.keyword));
    const { items, total } = await selectPage(base, (q) => q.selectAll().orderBy('id', 'desc'), opts);
    return { items: items.map((r) => ({ ...r, money: Number(r.money) })), total };
  }
}
