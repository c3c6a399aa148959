import { ErrorCode, planPriceMicros, type SubscriptionPlan, type SubscriptionPlanInput } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { coded, notFound } from '../../lib/errors.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { toPlanPublic } from './public.js';
import { SubscriptionsStore, type PlanFields } from './store.js';

export const PLAN_MSG = {
  notFound: 'subscription plan not found',
  group: 'the upgrade group does not exist (it must be a key of GroupRatio)',
} as const;

/** Root's plans (new-api's admin plan routes): list, create, edit, enable or disable. Plans are never deleted. */
export class PlansService {
  readonly store: SubscriptionsStore;

  constructor(private readonly ctx: Pick<AppContext, 'db' | 'options'>) {
    this.store = new SubscriptionsStore(ctx.db);
  }

  async list(enabledOnly: boolean): Promise<{ plan: SubscriptionPlan }[]> {
    return (await this.store.listPlans(enabledOnly)).map((p) => ({ plan: toPlanPublic(p) }));
  }

  async create(input: SubscriptionPlanInput): Promise<SubscriptionPlan> {
    const now = nowSeconds();
    return toPlanPublic(await this.store.createPlan({ ...this.fields(input), updated_at: now }, now));
  }

  async update(id: number, input: SubscriptionPlanInput): Promise<null> {
    if (!(await this.store.updatePlan(id, { ...this.fields(input), updated_at: nowSeconds() })))
      throw notFound(PLAN_MSG.notFound, ErrorCode.SubscriptionPlanNotFound);
    return null;
  }

  async setEnabled(id: number, enabled: boolean): Promise<null> {
    if (!(await this.store.updatePlan(id, { enabled: enabled ? 1 : 0, updated_at: nowSeconds() })))
      throw notFound(PLAN_MSG.notFound, ErrorCode.SubscriptionPlanNotFound);
    return null;
  }

  /** The stored columns of a plan as saved; the currency is USD (new-api's rule), the group must exist. */
  private fields(p: SubscriptionPlanInput): Omit<PlanFields, 'updated_at'> {
    if (p.upgrade_group && !(p.upgrade_group in this.ctx.options.json<Record<string, number>>('GroupRatio')))
      throw coded(ErrorCode.SubscriptionGroupUnknown, PLAN_MSG.group);
    return {
      title: p.title,
      subtitle: p.subtitle,
      price_micros: planPriceMicros(p.price_amount),
      currency: 'USD',
      duration_unit: p.duration_unit,
      duration_value: p.duration_value,
      custom_seconds: p.custom_seconds,
      enabled: p.enabled ? 1 : 0,
      sort_order: p.sort_order,
      allow_balance_pay: p.allow_balance_pay ? 1 : 0,
      stripe_price_id: p.stripe_price_id,
      creem_product_id: p.creem_product_id,
      waffo_pancake_product_id: p.waffo_pancake_product_id,
      max_purchase_per_user: p.max_purchase_per_user,
      upgrade_group: p.upgrade_group,
      total_amount: p.total_amount,
      quota_reset_period: p.quota_reset_period,
      quota_reset_custom_seconds: p.quota_reset_custom_seconds,
    };
  }
}

export const plansOf = perContext((ctx) => new PlansService(ctx));
