import { sql, type Insertable, type Selectable, type Transaction, type Updateable } from 'kysely';
import { LogType, RedemptionStatus } from '@tollway/shared';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import { fitsUnderQuotaMax, QuotaMaxExceeded } from '../../db/quota-cap.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { Database, RedemptionsTable } from '../../db/schema.js';
import type { AccountLogs } from '../../accounting/account-log.js';
import type { TopUpCredit } from '../topup/store.js';

export type RedemptionRow = Selectable<RedemptionsTable>;
export type NewRedemption = Insertable<RedemptionsTable>;
export type RedemptionChanges = Updateable<RedemptionsTable>;

/** One use of a code (its quota is the credit) by a user. */
export type RedemptionUse = Omit<TopUpCredit, 'quota'> & { code: RedemptionRow; username: string };

/** Why the conditional use statement changed nothing, or 'ok'. */
export type UseOutcome = 'ok' | 'unavailable' | 'user-missing' | 'over-max';

/** SQL for redemption codes and their uses. */
export class RedemptionsStore {
  constructor(
    private readonly db: Db,
    private readonly accountLogs: AccountLogs,
  ) {}

  private get k() {
    return this.db.kysely;
  }

  /** Inserts the rows in one statement (all or none: a duplicate key fails the whole batch). */
  async insertMany(rows: NewRedemption[]): Promise<void> {
    await this.k.insertInto('redemptions').values(rows).execute();
  }

  async findById(id: number): Promise<RedemptionRow | undefined> {
    return this.k.selectFrom('redemptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async findByKey(key: string): Promise<RedemptionRow | undefined> {
    return this.k.selectFrom('redemptions').selectAll().where('key', '=', key).executeTakeFirst();
  }

  async hasUsed(redemptionId: number, userId: number): Promise<boolean> {
    const row = await this.k
      .selectFrom('redemption_uses')
      .select('user_id')
      .where('redemption_id', '=', redemptionId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * Newest first. The keyword matches part of the name (literally: db/like.ts), the whole key, or the id.
   */
  page(opts: RowWindow & { keyword?: string }): Promise<Slice<RedemptionRow>> {
    let base = this.k.selectFrom('redemptions');
    const kw = opts.keyword;
    if (kw) {
      const asId = /^\d{1,15}$/.test(kw) ? Number(kw) : -1;
      base = base.where((eb) => eb.or([eb('id', '=', asId), likeText('name', kw), eb('key', '=', kw)]));
    }
    return selectPage(base, (q) => q.selectAll().orderBy('id', 'desc'), opts);
  }

  /**
   * Changes a code only while it is unused (status 1) and, when `usedCount` is given, only if its use count is
   * still that value (so a gift code edited from a stale view cannot drop below its uses). False if not applied.
   */
  async updateUnused(id: number, changes: RedemptionChanges, usedCount?: number): Promise<boolean> {
    let q = this.k
      .updateTable('redemptions')
      .set(changes)
      .where('id', '=', id)
      .where('status', '=', RedemptionStatus.Unused);
    if (usedCount !== undefined) q = q.where('used_count', '=', usedCount);
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Sets 1 or 2; a used code (3) is never changed. False when the code does not exist or is used. */
  async setStatus(id: number, status: number): Promise<boolean> {
    const res = await this.k
      .updateTable('redemptions')
      .set({ status })
      .where('id', '=', id)
      .where('status', '!=', RedemptionStatus.Used)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Disables the unused codes among `ids`; returns how many changed. */
  async disableMany(ids: number[]): Promise<number> {
    const res = await this.k
      .updateTable('redemptions')
      .set({ status: RedemptionStatus.Disabled })
      .where('id', 'in', ids)
      .where('status', '=', RedemptionStatus.Unused)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  async countByName(name: string): Promise<number> {
    const row = await this.k
      .selectFrom('redemptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Deletes the codes matching `where` and their use records, in one transaction; returns how many codes. */
  private async deleteWhere(filter: {
    id?: number;
    name?: string;
    status?: number;
    invalidAt?: number;
  }): Promise<number> {
    return this.k.transaction().execute(async (trx) => {
      const ids = (
        await trx
          .selectFrom('redemptions')
          .select('id')
          .$if(filter.id !== undefined, (q) => q.where('id', '=', filter.id!))
          .$if(filter.name !== undefined, (q) => q.where('name', '=', filter.name!))
          .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
          .$if(filter.invalidAt !== undefined, (q) =>
            q.where((eb) =>
              eb.or([
                eb('status', 'in', [RedemptionStatus.Used, RedemptionStatus.Disabled]),
                eb.and([eb('valid_until', '!=', 0), eb('valid_until', '<=', filter.invalidAt!)]),
                eb.and([eb('max_uses', '>', 0), eb('used_count', '>=', eb.ref('max_uses'))]),
              ]),
            ),
          )
          .execute()
      ).map((r) => r.id);
      let deleted = 0;
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        await trx.deleteFrom('redemption_uses').where('redemption_id', 'in', chunk).execute();
        const res = await trx.deleteFrom('redemptions').where('id', 'in', chunk).executeTakeFirst();
        deleted += Number(res.numDeletedRows);
      }
      return deleted;
    });
  }

  deleteById(id: number): Promise<number> {
    return this.deleteWhere({ id });
  }

  deleteByName(name: string): Promise<number> {
    return this.deleteWhere({ name });
  }

  deleteDisabled(): Promise<number> {
    return this.deleteWhere({ status: RedemptionStatus.Disabled });
  }

  /** Deletes the codes nobody can redeem any more at `now`: used, disabled, expired or out of uses. */
  deleteInvalid(now: number): Promise<number> {
    return this.deleteWhere({ invalidAt: now });
  }

  /**
   * One use, all or nothing, in one transaction:
   * 1. a single conditional UPDATE takes a use only while the code is unused, inside its validity window and
   *    below max_uses (a normal code has max_uses 1 and becomes used, 3); concurrent uses queue on its row;
   * 2. the (code, user) row is inserted; its primary key refuses a second use by the same user;
   * 3. the user's quota grows by the code's quota in one statement, and the top-up log row is written.
   * Any failure rolls every step back. Throws the database's unique-key error for a repeated user.
   */
  async use(u: RedemptionUse): Promise<UseOutcome> {
    const logs = this.accountLogs.batch();
    const outcome = await this.k
      .transaction()
      .execute(async (trx) => {
        const taken = await trx
          .updateTable('redemptions')
          .set({
            used_count: sql`used_count + 1`,
            redeemed_time: u.at,
            used_user_id: u.userId,
            status: sql`CASE WHEN is_gift = 1 THEN status ELSE ${sql.lit(RedemptionStatus.Used)} END`,
          })
          .where('id', '=', u.code.id)
          .where('status', '=', RedemptionStatus.Unused)
          .where((eb) => eb.or([eb('max_uses', '<', 0), eb('used_count', '<', eb.ref('max_uses'))]))
          .where((eb) => eb.or([eb('valid_from', '=', 0), eb('valid_from', '<=', u.at)]))
          .where((eb) => eb.or([eb('valid_until', '=', 0), eb('valid_until', '>', u.at)]))
          .executeTakeFirst();
        if (Number(taken.numUpdatedRows) !== 1) return 'unavailable';
        await trx
          .insertInto('redemption_uses')
          .values({ redemption_id: u.code.id, user_id: u.userId, quota: u.code.quota, created_time: u.at })
          .execute();
        const credited = await trx
          .updateTable('users')
          .set({ quota: sql`quota + ${u.code.quota}` })
          .where('id', '=', u.userId)
          .where('deleted_at', 'is', null)
          .where(fitsUnderQuotaMax('quota', u.code.quota))
          .executeTakeFirst();
        if (Number(credited.numUpdatedRows) !== 1)
          throw (await userExists(trx, u.userId)) ? new QuotaMaxExceeded() : new UserMissing();
        await logs.add(trx, {
          userId: u.userId,
          username: u.username,
          type: LogType.Topup,
          content: u.logContent,
          quota: u.code.quota,
          event: u.logEvent,
        });
        return 'ok';
      })
      .catch((err: unknown) => {
        if (err instanceof UserMissing) return 'user-missing' as const;
        if (err instanceof QuotaMaxExceeded) return 'over-max' as const;
        throw err;
      });
    if (outcome === 'ok') logs.committed();
    return outcome;
  }
}

class UserMissing extends Error {}

const userExists = async (trx: Transaction<Database>, id: number): Promise<boolean> =>
  (await trx
    .selectFrom('users')
    .select('id')
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst()) !== undefined;
