import { ErrorCode, LogType } from '@tollway/shared';
import { insertAccountLog } from '../../accounting/account-log.js';
import type { AppContext } from '../../context.js';
import { ApiError, notFound } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import type { CardMethod } from '../topup/card-methods.js';
import type { PaidResult, Purchase } from '../topup/purchases.js';
import { HOLDING_MSG, holdingsOf, type HoldingsService } from './holdings.js';
import type { OrderRow } from './store.js';

/** The payment_provider of a plan order paid through Epay (Stripe's and Creem's are their card methods). */
export const EPAY_PROVIDER = 'epay';
export type PlanProvider = CardMethod | typeof EPAY_PROVIDER;

export type PlanOrderDeps = Pick<AppContext, 'db' | 'users' | 'log'>;

/**
 * Plan orders (subscription_orders) as a Purchase of the payment webhooks: a paid delivery completes its order once
 * (the order success and the plan granted in one transaction), an unpaid one closes it. An order of another provider,
 * a top-up's trade number or an unknown one is not this Purchase's (undefined), so the next one is tried.
 */
export class PlanOrders implements Purchase {
  constructor(
    private readonly deps: PlanOrderDeps,
    private readonly holdings: HoldingsService,
  ) {}

  private get store() {
    return this.holdings.store;
  }

  /** The plan order `reference` names, when it is one of `provider`'s. */
  async find(reference: string, provider: PlanProvider): Promise<OrderRow | undefined> {
    const order = reference ? await this.store.order(reference) : undefined;
    if (order && order.payment_provider !== provider) {
      this.deps.log.warn(
        { trade_no: reference, provider, order_provider: order.payment_provider },
        'payment names a plan order of another provider',
      );
      return undefined;
    }
    return order;
  }

  async paid(reference: string, provider: PlanProvider, payload?: string): Promise<PaidResult | undefined> {
    const order = await this.find(reference, provider);
    return order ? this.complete(order, payload) : undefined;
  }

  async unpaid(reference: string, provider: PlanProvider, status: 'failed' | 'expired'): Promise<boolean | undefined> {
    const order = await this.find(reference, provider);
    if (!order) return undefined;
    return this.store.closeOrder(this.deps.db.kysely, order.trade_no, status, nowSeconds());
  }

  /**
   * Completes a pending order exactly once: the UPDATE … WHERE status = 'pending' matches for the first delivery only
   * (a concurrent one waits for the row lock, or SQLite's single writer, then matches nothing), and only that one
   * grants the plan and writes the log, in the same transaction. A paid order whose plan cannot be granted (its
   * purchase cap reached since the order was made, the user deleted) is closed failed, to be refunded.
   */
  async complete(order: OrderRow, payload?: string): Promise<PaidResult> {
    const now = nowSeconds();
    const username = (await this.deps.users.get(order.user_id).catch(() => undefined))?.username ?? '';
    let result: PaidResult;
    try {
      result = await this.deps.db.kysely.transaction().execute(async (trx) => {
        if (!(await this.store.closeOrder(trx, order.trade_no, 'success', now, payload))) return 'already';
        const plan = await this.store.plan(order.plan_id, trx);
        if (!plan) throw notFound(HOLDING_MSG.planNotFound, ErrorCode.SubscriptionPlanNotFound);
        await this.holdings.grantIn(trx, order.user_id, plan, 'order');
        await insertAccountLog(trx, {
          userId: order.user_id,
          username,
          type: LogType.Topup,
          content: `subscription bought: ${plan.title}, paid: ${Number(order.money).toFixed(2)}, payment method: ${order.payment_method}`,
          quota: 0,
        });
        return 'completed';
      });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return this.refuse(order, err.message, payload, now);
    }
    if (result === 'already' && order.status !== 'success')
      this.deps.log.warn({ trade_no: order.trade_no, status: order.status }, 'payment for a closed plan order');
    if (result === 'completed') await this.deps.users.notifyChanged(order.user_id);
    return result;
  }

  private async refuse(order: OrderRow, reason: string, payload: string | undefined, now: number): Promise<'refused'> {
    const note = JSON.stringify({ refused: reason, provider: payload ?? '' });
    if (await this.store.closeOrder(this.deps.db.kysely, order.trade_no, 'failed', now, note))
      this.deps.log.error(
        { trade_no: order.trade_no, user_id: order.user_id, plan_id: order.plan_id, reason },
        'paid plan order could not be granted: closed failed, refund it',
      );
    return 'refused';
  }
}

export const planOrdersOf = perContext((ctx) => new PlanOrders(ctx, holdingsOf(ctx)));
