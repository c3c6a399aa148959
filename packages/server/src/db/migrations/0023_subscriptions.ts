import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * Subscription plans as new-api has them: plans root defines (a quota pool per period with an optional reset, a
 * group upgrade, a purchase cap), the plans a user holds (a copy of the plan's quota at purchase, drawn by relay
 * calls through the ledger's plan balances) and plan orders paid by card or Epay. Column names follow new-api's
 * tables so an imported database and an operator's SQL keep working; the price is kept in millionths of the
 * currency unit (`price_micros`, exact) where new-api keeps a decimal.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('subscription_plans'))
    .addColumn('title', 'varchar(128)', (c) => c.notNull())
    .addColumn('subtitle', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('price_micros', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('currency', 'varchar(8)', (c) => c.notNull().defaultTo('USD'))
    .addColumn('duration_unit', 'varchar(16)', (c) => c.notNull().defaultTo('month'))
    .addColumn('duration_value', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('custom_seconds', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('sort_order', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('allow_balance_pay', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('stripe_price_id', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('creem_product_id', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('waffo_pancake_product_id', 'varchar(128)', (c) => c.notNull().defaultTo(''))
    .addColumn('max_purchase_per_user', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('upgrade_group', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('total_amount', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('quota_reset_period', 'varchar(16)', (c) => c.notNull().defaultTo('never'))
    .addColumn('quota_reset_custom_seconds', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await col
    .id(db.schema.createTable('user_subscriptions'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('plan_id', 'integer', (c) => c.notNull())
    .addColumn('amount_total', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('amount_used', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('start_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('end_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'varchar(32)', (c) => c.notNull().defaultTo('active'))
    .addColumn('source', 'varchar(32)', (c) => c.notNull().defaultTo('order'))
    .addColumn('last_reset_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('next_reset_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('upgrade_group', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('prev_user_group', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('idx_user_sub_active')
    .on('user_subscriptions')
    .columns(['user_id', 'status', 'end_time'])
    .execute();
  await db.schema
    .createIndex('idx_user_sub_due')
    .on('user_subscriptions')
    .columns(['status', 'next_reset_time'])
    .execute();
  await db.schema.createIndex('idx_user_sub_end').on('user_subscriptions').columns(['status', 'end_time']).execute();

  await col
    .id(db.schema.createTable('subscription_orders'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('plan_id', 'integer', (c) => c.notNull())
    .addColumn('money', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('trade_no', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('payment_method', 'varchar(50)', (c) => c.notNull().defaultTo(''))
    .addColumn('payment_provider', 'varchar(50)', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'varchar(32)', (c) => c.notNull().defaultTo('pending'))
    .addColumn('create_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('complete_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('provider_payload', col.longText, col.text)
    .execute();
  await db.schema.createIndex('idx_sub_orders_user').on('subscription_orders').columns(['user_id', 'id']).execute();
}
