import { sql, type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Db as AppDb } from '../../db/connect.js';
import type { Database } from '../../db/schema.js';
import type {
  SubscriptionOrdersTable,
  SubscriptionPlansTable,
  UserSubscriptionsTable,
} from '../../db/schema-subscriptions.js';

export type PlanRow = Selectable<SubscriptionPlansTable>;
export type SubscriptionRow = Selectable<UserSubscriptionsTable>;
export type OrderRow = Selectable<SubscriptionOrdersTable>;
export type PlanFields = Omit<Insertable<SubscriptionPlansTable>, 'id' | 'created_at'>;
type Db = Kysely<Database> | Transaction<Database>;

/** How many subscriptions of one user a list returns at most (newest ending first). */
export const USER_SUBSCRIPTIONS_LIST_MAX = 500;
/** Subscriptions expired or reset per pass of the periodic job. */
export const DUE_BATCH = 200;

/** SQL of subscription plans, the subscriptions users hold and plan orders. */
export class SubscriptionsStore {
  readonly k: Kysely<Database>;

  constructor(private readonly db: Pick<AppDb, 'kysely' | 'dialect'>) {
    this.k = db.kysely;
  }

  listPlans(enabledOnly: boolean): Promise<PlanRow[]> {
    let q = this.k.selectFrom('subscription_plans').selectAll();
    if (enabledOnly) q = q.where('enabled', '=', 1);
    return q.orderBy('sort_order', 'desc').orderBy('id', 'desc').execute();
  }

  plan(id: number, db: Db = this.k): Promise<PlanRow | undefined> {
    return db.selectFrom('subscription_plans').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async createPlan(fields: PlanFields, now: number): Promise<PlanRow> {
    const row = { ...fields, created_at: now };
    // MySQL has no RETURNING (the stores' usual split): its insertId is the row's.
    const id =
      this.db.dialect === 'mysql'
        ? Number((await this.k.insertInto('subscription_plans').values(row).executeTakeFirstOrThrow()).insertId)
        : (await this.k.insertInto('subscription_plans').values(row).returning('id').executeTakeFirstOrThrow()).id;
    return (await this.plan(id))!;
  }

  async updatePlan(id: number, fields: Partial<PlanFields>): Promise<boolean> {
    const res = await this.k.updateTable('subscription_plans').set(fields).where('id', '=', id).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  subscription(id: number, db: Db = this.k): Promise<SubscriptionRow | undefined> {
    return db.selectFrom('user_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A user's subscriptions, the latest ending first; with `activeAt` only those active and unexpired then. */
  listOfUser(userId: number, activeAt?: number): Promise<SubscriptionRow[]> {
    let q = this.k.selectFrom('user_subscriptions').selectAll().where('user_id', '=', userId);
    if (activeAt !== undefined) q = q.where('status', '=', 'active').where('end_time', '>', activeAt);
    return q.orderBy('end_time', 'desc').orderBy('id', 'desc').limit(USER_SUBSCRIPTIONS_LIST_MAX).execute();
  }

  async countOfUserPlan(db: Db, userId: number, planId: number): Promise<number> {
    const row = await db
      .selectFrom('user_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('plan_id', '=', planId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertSubscription(db: Db, row: Insertable<UserSubscriptionsTable>): Promise<number> {
    if (this.db.dialect === 'mysql')
      return Number((await db.insertInto('user_subscriptions').values(row).executeTakeFirstOrThrow()).insertId);
    return (await db.insertInto('user_subscriptions').values(row).returning('id').executeTakeFirstOrThrow()).id;
  }

  /** Ends an active subscription now (cancelled); false when it is not active. */
  async cancel(db: Db, id: number, now: number): Promise<boolean> {
    const res = await db
      .updateTable('user_subscriptions')
      .set({ status: 'cancelled', end_time: now, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async remove(db: Db, id: number): Promise<boolean> {
    const res = await db.deleteFrom('user_subscriptions').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) === 1;
  }

  /** Whether the user holds another active, unexpired subscription that upgrades the group. */
  async hasOtherUpgrade(db: Db, userId: number, exceptId: number, now: number): Promise<SubscriptionRow | undefined> {
    return db
      .selectFrom('user_subscriptions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '!=', exceptId)
      .where('status', '=', 'active')
      .where('end_time', '>', now)
      .where('upgrade_group', '!=', '')
      .orderBy('end_time', 'desc')
      .executeTakeFirst();
  }

  /** Active subscriptions past their end (the oldest first). */
  dueToExpire(now: number): Promise<SubscriptionRow[]> {
    return this.k
      .selectFrom('user_subscriptions')
      .selectAll()
      .where('status', '=', 'active')
      .where('end_time', '<=', now)
      .orderBy('end_time')
      .limit(DUE_BATCH)
      .execute();
  }

  /** Marks one expired; false when another node did first. */
  async expire(db: Db, id: number, now: number): Promise<boolean> {
    const res = await db
      .updateTable('user_subscriptions')
      .set({ status: 'expired', updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'active')
      .where('end_time', '<=', now)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Active subscriptions whose next reset has come. */
  dueToReset(now: number): Promise<SubscriptionRow[]> {
    return this.k
      .selectFrom('user_subscriptions')
      .selectAll()
      .where('status', '=', 'active')
      .where('next_reset_time', '>', 0)
      .where('next_reset_time', '<=', now)
      .orderBy('next_reset_time')
      .limit(DUE_BATCH)
      .execute();
  }

  /**
   * Starts a new period: amount_used back to 0 from the reset boundary on. Applies only if the row still waits for
   * this reset (the same next_reset_time), so of several nodes one resets it; false otherwise.
   */
  async reset(id: number, expectedNext: number, last: number, next: number, now: number): Promise<boolean> {
    const res = await this.k
      .updateTable('user_subscriptions')
      .set({ amount_used: 0, last_reset_time: last, next_reset_time: next, updated_at: now })
      .where('id', '=', id)
      .where('next_reset_time', '=', expectedNext)
      .where('status', '=', 'active')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  userGroup(db: Db, userId: number): Promise<{ group: string; quota: number } | undefined> {
    return db
      .selectFrom('users')
      .select(['group', 'quota'])
      .where('id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  async setUserGroup(db: Db, userId: number, group: string): Promise<void> {
    await db.updateTable('users').set({ group }).where('id', '=', userId).execute();
  }

  /** Takes `quota` from the wallet in one statement, never below 0; false when it has less. */
  async takeFromWallet(db: Db, userId: number, quota: number): Promise<boolean> {
    const res = await db
      .updateTable('users')
      .set({ quota: sql`quota - ${quota}` })
      .where('id', '=', userId)
      .where('quota', '>=', quota)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async insertOrder(db: Db, row: Insertable<SubscriptionOrdersTable>): Promise<void> {
    await db.insertInto('subscription_orders').values(row).execute();
  }

  order(tradeNo: string, db: Db = this.k): Promise<OrderRow | undefined> {
    return db.selectFrom('subscription_orders').selectAll().where('trade_no', '=', tradeNo).executeTakeFirst();
  }

  /**
   * Moves a pending order to `status` (with what the provider reported, when given); false when it was not pending
   * (another delivery settled it).
   */
  async closeOrder(
    db: Db,
    tradeNo: string,
    status: OrderRow['status'],
    now: number,
    payload?: string,
  ): Promise<boolean> {
    const res = await db
      .updateTable('subscription_orders')
      .set({ status, complete_time: now, ...(payload !== undefined ? { provider_payload: payload } : {}) })
      .where('trade_no', '=', tradeNo)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
}
