import type { DialectName } from '../../src/db/connect.js';
import { inserter } from './newapi-rows.js';
import type { AnyKysely, Table } from './newapi-schema.js';

/**
 * new-api's subscription tables (model/subscription.go) as GORM creates them, in two versions: the current one
 * (one quota pool per plan, 0.10 on) and the first, per-model one (plan and subscription items, no pool columns,
 * no payment provider on orders, a double price), with realistic rows for each.
 */

const DAY = 86400;

export const NEW_API_SUBSCRIPTIONS: Record<string, Table> = {
  subscription_plans: {
    columns: [
      ['id', 'pk'],
      ['title', 'varchar(128)', 'NOT NULL'],
      ['subtitle', 'varchar(255)', "DEFAULT ''"],
      ['price_amount', 'decimal(10,6)', 'NOT NULL DEFAULT 0'],
      ['currency', 'varchar(8)', "NOT NULL DEFAULT 'USD'"],
      ['duration_unit', 'varchar(16)', "NOT NULL DEFAULT 'month'"],
      ['duration_value', 'int', 'NOT NULL DEFAULT 1'],
      ['custom_seconds', 'bigint', 'NOT NULL DEFAULT 0'],
      ['enabled', 'bool', 'DEFAULT true'],
      ['sort_order', 'int', 'DEFAULT 0'],
      ['allow_balance_pay', 'bool', 'DEFAULT true'],
      ['stripe_price_id', 'varchar(128)', "DEFAULT ''"],
      ['creem_product_id', 'varchar(128)', "DEFAULT ''"],
      ['waffo_pancake_product_id', 'varchar(128)', "DEFAULT ''"],
      ['max_purchase_per_user', 'int', 'DEFAULT 0'],
      ['upgrade_group', 'varchar(64)', "DEFAULT ''"],
      ['total_amount', 'bigint', 'NOT NULL DEFAULT 0'],
      ['quota_reset_period', 'varchar(16)', "DEFAULT 'never'"],
      ['quota_reset_custom_seconds', 'bigint', 'DEFAULT 0'],
      ['created_at', 'bigint'],
      ['updated_at', 'bigint'],
    ],
  },
  subscription_orders: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['plan_id', 'int'],
      ['money', 'float'],
      ['trade_no', 'varchar(255)'],
      ['payment_method', 'varchar(50)'],
      ['payment_provider', 'varchar(50)', "DEFAULT ''"],
      ['status', 'str'],
      ['create_time', 'bigint'],
      ['complete_time', 'bigint'],
      ['provider_payload', 'text'],
    ],
    unique: ['trade_no'],
  },
  user_subscriptions: {
    columns: [
      ['id', 'pk'],
      ['user_id', 'int'],
      ['plan_id', 'int'],
      ['amount_total', 'bigint', 'NOT NULL DEFAULT 0'],
      ['amount_used', 'bigint', 'NOT NULL DEFAULT 0'],
      ['start_time', 'bigint'],
      ['end_time', 'bigint'],
      ['status', 'varchar(32)'],
      ['source', 'varchar(32)', "DEFAULT 'order'"],
      ['last_reset_time', 'bigint', 'DEFAULT 0'],
      ['next_reset_time', 'bigint', 'DEFAULT 0'],
      ['upgrade_group', 'varchar(64)', "DEFAULT ''"],
      ['prev_user_group', 'varchar(64)', "DEFAULT ''"],
      ['created_at', 'bigint'],
      ['updated_at', 'bigint'],
    ],
  },
  subscription_pre_consume_records: {
    columns: [
      ['id', 'pk'],
      ['request_id', 'varchar(64)'],
      ['user_id', 'int'],
      ['user_subscription_id', 'int'],
      ['pre_consumed', 'bigint', 'NOT NULL DEFAULT 0'],
      ['status', 'varchar(32)'],
      ['created_at', 'bigint'],
      ['updated_at', 'bigint'],
    ],
    unique: ['request_id'],
  },
};

const cols = (table: string, drop: string[]) =>
  NEW_API_SUBSCRIPTIONS[table]!.columns.filter(([name]) => !drop.includes(name));

/** The first, per-model subscription schema. */
export const FIRST_SUBSCRIPTIONS: Record<string, Table> = {
  subscription_plans: {
    columns: cols('subscription_plans', [
      'price_amount',
      'allow_balance_pay',
      'waffo_pancake_product_id',
      'max_purchase_per_user',
      'upgrade_group',
      'total_amount',
      'quota_reset_period',
      'quota_reset_custom_seconds',
    ]).concat([['price_amount', 'float', 'NOT NULL DEFAULT 0']]),
  },
  subscription_plan_items: {
    columns: [
      ['id', 'pk'],
      ['plan_id', 'int'],
      ['model_name', 'varchar(128)'],
      ['quota_type', 'int', 'DEFAULT 0'],
      ['amount_total', 'bigint', 'NOT NULL DEFAULT 0'],
    ],
  },
  subscription_orders: {
    columns: cols('subscription_orders', ['payment_provider']),
    unique: ['trade_no'],
  },
  user_subscriptions: {
    columns: cols('user_subscriptions', [
      'amount_total',
      'amount_used',
      'last_reset_time',
      'next_reset_time',
      'upgrade_group',
      'prev_user_group',
    ]),
  },
  user_subscription_items: {
    columns: [
      ['id', 'pk'],
      ['user_subscription_id', 'int'],
      ['model_name', 'varchar(128)'],
      ['quota_type', 'int', 'DEFAULT 0'],
      ['amount_total', 'bigint', 'NOT NULL DEFAULT 0'],
      ['amount_used', 'bigint', 'NOT NULL DEFAULT 0'],
    ],
  },
};

/** The quota alice has left on her monthly plan (subscription 1), in both seeds. */
export const ALICE_LEFT = 9_000_000;
/** Bob's stored billing preference (users.setting), which the import keeps. */
export const BOB_SETTING = { billing_preference: 'wallet_first' };

/**
 * Current-schema rows over seedNewApi's users (1 root, 2 alice, 3 bob, 5 carol; there is no user 4): three plans (a
 * monthly one at 9.99 with a monthly reset, an unlimited yearly one, a custom one at 0.123456), five subscriptions
 * (alice's active and expired ones, bob's unlimited and cancelled ones, one of the missing user 4), four orders
 * (one of user 4) and a pre-consume record. Bob's setting names his billing preference.
 */
export async function seedSubscriptions(k: AnyKysely, dialect: DialectName, t: number): Promise<void> {
  const db = inserter(k, dialect);
  await k
    .updateTable('users')
    .set({ setting: JSON.stringify(BOB_SETTING) })
    .where('id', '=', 3)
    .execute();
  await db.insert('subscription_plans', [
    {
      id: 1,
      title: 'Pro Monthly',
      subtitle: 'For daily use',
      price_amount: 9.99,
      duration_unit: 'month',
      duration_value: 1,
      enabled: true,
      sort_order: 10,
      allow_balance_pay: null,
      stripe_price_id: 'price_pro_monthly',
      max_purchase_per_user: 2,
      upgrade_group: 'vip',
      total_amount: 10_000_000,
      quota_reset_period: 'monthly',
      created_at: t - 100 * DAY,
      updated_at: t - 50 * DAY,
    },
    {
      id: 2,
      title: 'Unlimited Yearly',
      price_amount: 199,
      currency: 'CNY',
      duration_unit: 'year',
      duration_value: 1,
      enabled: false,
      allow_balance_pay: false,
      creem_product_id: 'prod_unlimited',
      waffo_pancake_product_id: 'wp_unlimited',
      total_amount: 0,
      created_at: t - 90 * DAY,
      updated_at: t - 90 * DAY,
    },
    {
      id: 4,
      title: 'Hourly burst',
      price_amount: 0.123456,
      duration_unit: 'custom',
      custom_seconds: 7200,
      allow_balance_pay: true,
      total_amount: 1_000_000,
      quota_reset_period: 'custom',
      quota_reset_custom_seconds: 3600,
      created_at: t - 10 * DAY,
      updated_at: t - 10 * DAY,
    },
  ]);
  await db.insert('user_subscriptions', [
    {
      id: 1,
      user_id: 2,
      plan_id: 1,
      amount_total: 10_000_000,
      amount_used: 10_000_000 - ALICE_LEFT,
      start_time: t - 5 * DAY,
      end_time: t + 25 * DAY,
      status: 'active',
      source: 'order',
      last_reset_time: t - 5 * DAY,
      next_reset_time: t + 25 * DAY,
      upgrade_group: 'vip',
      prev_user_group: 'default',
      created_at: t - 5 * DAY,
      updated_at: t - DAY,
    },
    {
      id: 2,
      user_id: 3,
      plan_id: 2,
      amount_total: 0,
      amount_used: 123_456,
      start_time: t - 30 * DAY,
      end_time: t + 335 * DAY,
      status: 'active',
      source: 'admin',
      created_at: t - 30 * DAY,
      updated_at: t - 2 * DAY,
    },
    {
      id: 3,
      user_id: 2,
      plan_id: 4,
      amount_total: 1_000_000,
      amount_used: 1_000_000,
      start_time: t - 20 * DAY,
      end_time: t - 20 * DAY + 7200,
      status: 'expired',
      source: 'balance',
      created_at: t - 20 * DAY,
      updated_at: t - 19 * DAY,
    },
    { id: 5, user_id: 4, plan_id: 1, amount_total: 10_000_000, amount_used: 5, status: 'active', end_time: t + DAY },
    {
      id: 7,
      user_id: 3,
      plan_id: 1,
      amount_total: 10_000_000,
      amount_used: 42,
      start_time: t - 60 * DAY,
      end_time: t - 30 * DAY,
      status: 'cancelled',
      source: 'order',
      created_at: t - 60 * DAY,
      updated_at: t - 40 * DAY,
    },
  ]);
  await db.insert('subscription_orders', [
    {
      id: 1,
      user_id: 2,
      plan_id: 1,
      money: 9.99,
      trade_no: 'sub_ref_alice_1',
      payment_method: 'stripe',
      payment_provider: 'stripe',
      status: 'success',
      create_time: t - 5 * DAY,
      complete_time: t - 5 * DAY + 30,
      provider_payload: '{"id":"cs_test_1"}',
    },
    {
      id: 2,
      user_id: 3,
      plan_id: 2,
      money: 199,
      trade_no: 'SUBUSR3NOabc1231700000000',
      payment_method: 'alipay',
      payment_provider: 'epay',
      status: 'pending',
      create_time: t - DAY,
      complete_time: 0,
    },
    {
      id: 3,
      user_id: 2,
      plan_id: 4,
      money: 0.123456,
      trade_no: 'SUBBALUSR2NOxyz9871700000000',
      payment_method: 'balance',
      payment_provider: 'balance',
      status: 'success',
      create_time: t - 20 * DAY,
      complete_time: t - 20 * DAY,
      provider_payload: 'charged_quota=61728',
    },
    { id: 6, user_id: 4, plan_id: 1, money: 9.99, trade_no: 'orphan-order', status: 'success', create_time: t },
  ]);
  await db.insert('subscription_pre_consume_records', {
    id: 1,
    request_id: 'req-1',
    user_id: 2,
    user_subscription_id: 1,
    pre_consumed: 500,
    status: 'consumed',
    created_at: t - DAY,
    updated_at: t - DAY,
  });
}

/**
 * First-schema rows: plan 1 at 9.99 with two quota items (6,000,000 + 4,000,000) and a request-count one, plan 2
 * with a request-count item only; alice's subscription 1 with quota items of 10,000,000 (1,000,000 used) and a
 * request-count item, bob's subscription 2 with a request-count item only, bob's subscription 3 with no item; an
 * order without a payment provider.
 */
export async function seedFirstSubscriptions(k: AnyKysely, dialect: DialectName, t: number): Promise<void> {
  const db = inserter(k, dialect);
  await db.insert('subscription_plans', [
    { id: 1, title: 'Legacy Pro', price_amount: 9.99, enabled: true, created_at: t - 200 * DAY },
    { id: 2, title: 'Requests only', price_amount: 1, enabled: true, created_at: t - 200 * DAY },
  ]);
  await db.insert('subscription_plan_items', [
    { id: 1, plan_id: 1, model_name: 'gpt-4o', quota_type: 0, amount_total: 6_000_000 },
    { id: 2, plan_id: 1, model_name: 'claude-3-5-sonnet', quota_type: 0, amount_total: 4_000_000 },
    { id: 3, plan_id: 1, model_name: 'mj_imagine', quota_type: 1, amount_total: 100 },
    { id: 4, plan_id: 2, model_name: 'mj_imagine', quota_type: 1, amount_total: 500 },
  ]);
  const sub = { start_time: t - DAY, end_time: t + 29 * DAY, status: 'active', source: 'order', created_at: t - DAY };
  await db.insert('user_subscriptions', [
    { id: 1, user_id: 2, plan_id: 1, ...sub },
    { id: 2, user_id: 3, plan_id: 2, ...sub },
    { id: 3, user_id: 3, plan_id: 1, ...sub },
  ]);
  await db.insert('user_subscription_items', [
    { id: 1, user_subscription_id: 1, model_name: 'gpt-4o', quota_type: 0, amount_total: 6_000_000, amount_used: 1e6 },
    { id: 2, user_subscription_id: 1, model_name: 'claude-3-5-sonnet', quota_type: 0, amount_total: 4_000_000 },
    { id: 3, user_subscription_id: 1, model_name: 'mj_imagine', quota_type: 1, amount_total: 100, amount_used: 3 },
    { id: 4, user_subscription_id: 2, model_name: 'mj_imagine', quota_type: 1, amount_total: 500, amount_used: 0 },
  ]);
  await db.insert('subscription_orders', {
    id: 1,
    user_id: 2,
    plan_id: 1,
    money: 9.99,
    trade_no: 'legacy-order-1',
    payment_method: 'stripe',
    status: 'success',
    create_time: t - DAY,
    complete_time: t - DAY,
  });
}
