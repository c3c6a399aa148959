import {
  ErrorCode,
  LogType,
  PLAN_PRICE_SCALE,
  normalizeBillingPreference,
  planEndTime,
  planNextReset,
  planPriceQuota,
  type BillingPreference,
  type SubscriptionDurationUnit,
  type SubscriptionResetPeriod,
  type SubscriptionSelf,
  type UserSubscription,
} from '@tollway/shared';
import type { Kysely, Transaction } from 'kysely';
import { insertAccountLog } from '../../accounting/account-log.js';
import type { AppContext } from '../../context.js';
import type { Database } from '../../db/schema.js';
import { coded, notFound } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { openSettingSecret, parseSetting, sealSettingSecret } from '../../lib/setting-secret.js';
import { toSubscriptionPublic } from './public.js';
import { SubscriptionsStore, type PlanRow, type SubscriptionRow } from './store.js';

export const HOLDING_MSG = {
  planNotFound: 'subscription plan not found',
  planDisabled: 'this subscription plan is not on sale',
  capReached: 'you have reached the purchase limit of this plan',
  balanceNotAllowed: 'this plan cannot be bought with wallet balance',
  balanceShort: 'insufficient wallet balance for this plan',
  userMissing: 'user does not exist',
  subscriptionNotFound: 'subscription not found',
  notActive: 'this subscription is not active',
} as const;

export type HoldingDeps = Pick<AppContext, 'db' | 'options' | 'config' | 'users' | 'walletHolds' | 'secretBox'>;

/** How a subscription came to be (user_subscriptions.source). */
export type GrantSource = 'order' | 'admin' | 'balance';

/** The server's zone for calendar periods (TZ, else the process's own). */
export const zoneOf = (config: { timeZone: string }): string =>
  config.timeZone || Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The period rules of a stored plan, for the shared time helpers. */
export function periodOf(p: PlanRow) {
  return {
    duration_unit: p.duration_unit as SubscriptionDurationUnit,
    duration_value: Number(p.duration_value),
    custom_seconds: Number(p.custom_seconds),
    quota_reset_period: p.quota_reset_period as SubscriptionResetPeriod,
    quota_reset_custom_seconds: Number(p.quota_reset_custom_seconds),
  };
}

/**
 * The subscriptions users hold: granting a plan (bought, bound by an administrator, paid from the wallet), ending
 * or deleting one (with the group a plan upgraded restored), the caller's own view and billing preference.
 */
export class HoldingsService {
  readonly store: SubscriptionsStore;

  constructor(private readonly deps: HoldingDeps) {
    this.store = new SubscriptionsStore(deps.db);
  }

  async self(userId: number): Promise<SubscriptionSelf> {
    const user = await this.deps.users.get(userId);
    const all = (await this.store.listOfUser(userId)).map(wrap);
    const now = nowSeconds();
    return {
      billing_preference: normalizeBillingPreference(parseSetting(user.setting).billing_preference),
      subscriptions: all.filter((s) => s.subscription.status === 'active' && s.subscription.end_time > now),
      all_subscriptions: all,
    };
  }

  async ofUser(userId: number): Promise<{ subscription: UserSubscription }[]> {
    return (await this.store.listOfUser(userId)).map(wrap);
  }

  /** Stores the preference (anything unknown is the default, as new-api reads it); the relay learns it at once. */
  async setPreference(userId: number, pref: string): Promise<{ billing_preference: BillingPreference }> {
    const billing = normalizeBillingPreference(pref);
    const user = await this.deps.users.get(userId);
    const box = this.deps.secretBox;
    const setting = { ...parseSetting(openSettingSecret(user.setting, box)), billing_preference: billing };
    await this.deps.db.kysely
      .updateTable('users')
      .set({ setting: sealSettingSecret(JSON.stringify(setting), box) })
      .where('id', '=', userId)
      .execute();
    await this.deps.users.notifyChanged(userId);
    return { billing_preference: billing };
  }

  /**
   * Grants a plan inside the caller's transaction: its quota copied, its end and first reset computed in the
   * server's zone, the user's group upgraded (the previous one kept to restore). Refuses past the plan's cap.
   */
  async grantIn(trx: Transaction<Database>, userId: number, plan: PlanRow, source: GrantSource): Promise<number> {
    await this.assertUnderCap(trx, userId, plan);
    const user = await this.store.userGroup(trx, userId);
    if (!user) throw notFound(HOLDING_MSG.userMissing, ErrorCode.UserNotFound);
    const now = nowSeconds();
    const zone = zoneOf(this.deps.config);
    const period = periodOf(plan);
    const end = planEndTime(period, now, zone);
    const next = planNextReset(period, now, end, zone);
    const upgrade = plan.upgrade_group.trim();
    let prev = '';
    if (upgrade && user.group !== upgrade) {
      prev = user.group;
      await this.store.setUserGroup(trx, userId, upgrade);
    }
    return this.store.insertSubscription(trx, {
      user_id: userId,
      plan_id: plan.id,
      amount_total: Number(plan.total_amount),
      amount_used: 0,
      start_time: now,
      end_time: end,
      status: 'active',
      source,
      last_reset_time: next > 0 ? now : 0,
      next_reset_time: next,
      upgrade_group: upgrade,
      prev_user_group: prev,
      created_at: now,
      updated_at: now,
    });
  }

  /** A plan that exists and is on sale (what every purchase checks first). */
  async planOnSale(planId: number): Promise<PlanRow> {
    const plan = await this.store.plan(planId);
    if (!plan) throw notFound(HOLDING_MSG.planNotFound, ErrorCode.SubscriptionPlanNotFound);
    if (Number(plan.enabled) !== 1) throw coded(ErrorCode.SubscriptionPlanDisabled, HOLDING_MSG.planDisabled);
    return plan;
  }

  /** Refuses a user who already holds the plan as often as its cap allows (every status counts; 0: no cap). */
  async assertUnderCap(db: Kysely<Database> | Transaction<Database>, userId: number, plan: PlanRow): Promise<void> {
    const cap = Number(plan.max_purchase_per_user);
    if (cap > 0 && (await this.store.countOfUserPlan(db, userId, plan.id)) >= cap)
      throw coded(ErrorCode.SubscriptionCapReached, HOLDING_MSG.capReached);
  }

  /** An administrator binds a plan to a user (no payment); the message says when the group changes. */
  async bind(userId: number, planId: number): Promise<{ message: string } | null> {
    const plan = await this.store.plan(planId);
    if (!plan) throw notFound(HOLDING_MSG.planNotFound, ErrorCode.SubscriptionPlanNotFound);
    await this.deps.db.kysely.transaction().execute((trx) => this.grantIn(trx, userId, plan, 'admin'));
    await this.deps.users.notifyChanged(userId);
    return plan.upgrade_group ? { message: `the user's group is upgraded to ${plan.upgrade_group}` } : null;
  }

  /** Ends a subscription now (cancelled), restoring the group its plan upgraded when no other plan upgrades it. */
  async invalidate(id: number): Promise<{ message: string } | null> {
    return this.end(id, (trx, sub, now) => this.store.cancel(trx, sub.id, now));
  }

  /** Deletes a subscription (its record goes), with the same group restore. */
  async remove(id: number): Promise<{ message: string } | null> {
    return this.end(id, (trx, sub) => this.store.remove(trx, sub.id));
  }

  private async end(
    id: number,
    apply: (trx: Transaction<Database>, sub: SubscriptionRow, now: number) => Promise<boolean>,
  ): Promise<{ message: string } | null> {
    const now = nowSeconds();
    const outcome = await this.deps.db.kysely.transaction().execute(async (trx) => {
      const sub = await this.store.subscription(id, trx);
      if (!sub) throw notFound(HOLDING_MSG.subscriptionNotFound, ErrorCode.SubscriptionNotFound);
      if (!(await apply(trx, sub, now))) throw coded(ErrorCode.SubscriptionNotActive, HOLDING_MSG.notActive);
      return { userId: sub.user_id, restored: await this.restoreGroup(trx, sub, now) };
    });
    await this.deps.users.notifyChanged(outcome.userId);
    return outcome.restored ? { message: `the user's group is restored to ${outcome.restored}` } : null;
  }

  /**
   * After `sub` ended: the group its plan upgraded goes back to the one before, unless the user has moved on to
   * another group or another active plan still upgrades it. Returns the group restored ('' none).
   */
  async restoreGroup(trx: Transaction<Database>, sub: SubscriptionRow, now: number): Promise<string> {
    const upgrade = sub.upgrade_group.trim();
    const prev = sub.prev_user_group.trim();
    if (!upgrade || !prev || prev === upgrade) return '';
    const user = await this.store.userGroup(trx, sub.user_id);
    if (!user || user.group !== upgrade) return '';
    if (await this.store.hasOtherUpgrade(trx, sub.user_id, sub.id, now)) return '';
    await this.store.setUserGroup(trx, sub.user_id, prev);
    return prev;
  }

  /**
   * Buys a plan with wallet quota (price × QuotaPerUnit, rounded up): the live balance holds the price while one
   * transaction takes it from the wallet, grants the plan and records the order, so neither happens without the
   * other and no concurrent call can spend the same quota.
   */
  async buyWithBalance(userId: number, planId: number): Promise<null> {
    const plan = await this.planOnSale(planId);
    if (Number(plan.allow_balance_pay) !== 1)
      throw coded(ErrorCode.SubscriptionBalanceNotAllowed, HOLDING_MSG.balanceNotAllowed);
    const user = await this.deps.users.get(userId);
    const quota = planPriceQuota(Number(plan.price_micros), this.deps.options.num('QuotaPerUnit'));
    const hold = quota > 0 ? await this.deps.walletHolds.hold(userId, quota) : undefined;
    if (quota > 0 && !hold) throw coded(ErrorCode.SubscriptionBalanceShort, HOLDING_MSG.balanceShort);
    try {
      const now = nowSeconds();
      await this.deps.db.kysely.transaction().execute(async (trx) => {
        if (quota > 0 && !(await this.store.takeFromWallet(trx, userId, quota)))
          throw coded(ErrorCode.SubscriptionBalanceShort, HOLDING_MSG.balanceShort);
        await this.grantIn(trx, userId, plan, 'balance');
        await this.store.insertOrder(trx, {
          user_id: userId,
          plan_id: plan.id,
          money: Number(plan.price_micros) / PLAN_PRICE_SCALE,
          trade_no: `SUBBALUSR${userId}NO${randomString(6)}${Date.now()}`,
          payment_method: 'balance',
          payment_provider: 'balance',
          status: 'success',
          create_time: now,
          complete_time: now,
          provider_payload: `charged_quota=${quota}`,
        });
        await insertAccountLog(trx, {
          userId,
          username: user.username,
          type: LogType.Topup,
          content: `subscription bought with wallet balance: ${plan.title}, quota charged: ${quota}`,
          quota,
        });
      });
      // The live balance re-reads the lower wallet while the hold still stands, then the hold ends.
      await this.deps.users.notifyChanged(userId);
    } finally {
      await hold?.release();
    }
    return null;
  }
}

const wrap = (r: SubscriptionRow) => ({ subscription: toSubscriptionPublic(r) });

export const holdingsOf = perContext((ctx) => new HoldingsService(ctx));
