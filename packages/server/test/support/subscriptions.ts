import type { SubscriptionPlan, UserSubscription } from '@tollway/shared';
import type { Client, TestApp } from './app.js';
import { drainWriter } from './gateway.js';

/**
 * A plan as new-api's console saves it (web/default's plan form: every field, currency USD, quota in quota units),
 * with `over` changing some.
 */
export function consolePlan(over: Partial<Record<keyof SubscriptionPlan, unknown>> = {}) {
  return {
    plan: {
      title: 'Pro',
      subtitle: 'for daily use',
      price_amount: 9.99,
      duration_unit: 'month',
      duration_value: 1,
      custom_seconds: 0,
      quota_reset_period: 'never',
      quota_reset_custom_seconds: 0,
      enabled: true,
      sort_order: 0,
      allow_balance_pay: true,
      max_purchase_per_user: 0,
      total_amount: 5000,
      upgrade_group: '',
      stripe_price_id: '',
      creem_product_id: '',
      waffo_pancake_product_id: '',
      currency: 'USD',
      ...over,
    },
  };
}

/** Creates a plan through the admin API; returns it. */
export async function createPlan(
  root: Client,
  over: Parameters<typeof consolePlan>[0] = {},
): Promise<SubscriptionPlan> {
  const res = await root.call<SubscriptionPlan>('POST', '/api/subscription/admin/plans', consolePlan(over));
  if (!res.body.success) throw new Error(`plan refused: ${res.body.message}`);
  return res.body.data!;
}

/** Binds a plan to a user through the admin API; returns the user's newest subscription. */
export async function bindPlan(root: Client, userId: number, planId: number): Promise<UserSubscription> {
  const res = await root.call('POST', '/api/subscription/admin/bind', { user_id: userId, plan_id: planId });
  if (!res.body.success) throw new Error(`bind refused: ${res.body.message}`);
  const list = await root.call<{ subscription: UserSubscription }[]>(
    'GET',
    `/api/subscription/admin/users/${userId}/subscriptions`,
  );
  return list.body.data!.reduce((a, b) => (b.subscription.id > a.subscription.id ? b : a)).subscription;
}

/** A subscription's stored row after the writer committed everything queued. */
export async function subscriptionRow(t: TestApp, id: number) {
  await drainWriter(t);
  return t.database.db.kysely
    .selectFrom('user_subscriptions')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}
