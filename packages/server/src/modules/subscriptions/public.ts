import {
  PLAN_PRICE_SCALE,
  type SubscriptionDurationUnit,
  type SubscriptionPlan,
  type SubscriptionResetPeriod,
  type UserSubscription,
  type UserSubscriptionStatus,
} from '@tollway/shared';
import type { PlanRow, SubscriptionRow } from './store.js';

/** A stored plan as the API shows it (new-api's shape: the price in currency units, booleans). */
export function toPlanPublic(r: PlanRow): SubscriptionPlan {
  return {
    id: r.id,
    title: r.title,
    subtitle: r.subtitle,
    price_amount: Number(r.price_micros) / PLAN_PRICE_SCALE,
    currency: r.currency,
    duration_unit: r.duration_unit as SubscriptionDurationUnit,
    duration_value: Number(r.duration_value),
    custom_seconds: Number(r.custom_seconds),
    enabled: Number(r.enabled) === 1,
    sort_order: Number(r.sort_order),
    allow_balance_pay: Number(r.allow_balance_pay) === 1,
    stripe_price_id: r.stripe_price_id,
    creem_product_id: r.creem_product_id,
    waffo_pancake_product_id: r.waffo_pancake_product_id,
    max_purchase_per_user: Number(r.max_purchase_per_user),
    upgrade_group: r.upgrade_group,
    total_amount: Number(r.total_amount),
    quota_reset_period: r.quota_reset_period as SubscriptionResetPeriod,
    quota_reset_custom_seconds: Number(r.quota_reset_custom_seconds),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

/** A held subscription as the API shows it. */
export function toSubscriptionPublic(r: SubscriptionRow): UserSubscription {
  return {
    id: r.id,
    user_id: r.user_id,
    plan_id: r.plan_id,
    amount_total: Number(r.amount_total),
    amount_used: Number(r.amount_used),
    start_time: Number(r.start_time),
    end_time: Number(r.end_time),
    status: r.status as UserSubscriptionStatus,
    source: r.source,
    last_reset_time: Number(r.last_reset_time),
    next_reset_time: Number(r.next_reset_time),
    upgrade_group: r.upgrade_group,
    prev_user_group: r.prev_user_group,
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}
