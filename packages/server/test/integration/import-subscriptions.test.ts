import type { Insertable } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import type {
  SubscriptionOrdersTable,
  SubscriptionPlansTable,
  UserSubscriptionsTable,
} from '../../src/db/schema-subscriptions.js';
import { runImport, type ImportResult } from '../../src/import/run.js';
import { summaryLines } from '../../src/import/summary.js';
import { SecretBox } from '../../src/lib/secret-box.js';
import { createTestDatabase, dialects, type TestDatabase } from '../support/databases.js';
import { createSourceSchema, NEW_API } from '../support/newapi-schema.js';
import { seedNewApi } from '../support/newapi-rows.js';
import {
  ALICE_LEFT,
  BOB_SETTING,
  FIRST_SUBSCRIPTIONS,
  NEW_API_SUBSCRIPTIONS,
  seedFirstSubscriptions,
  seedSubscriptions,
} from '../support/newapi-subscriptions.js';
import { userRow } from '../support/user-row.js';

const log = pino({ level: 'silent' });
const box = new SecretBox('import-subscriptions-secret-0123456789');
const UPSTREAM = 'http://127.0.0.1:9';
const TABLES = ['subscription_plans', 'user_subscriptions', 'subscription_orders'] as const;
/** The source's last user subscription: the orphan (user 4) is left out, so 7 is the largest id imported. */
const LAST_SUBSCRIPTION = 7;

const report = (r: ImportResult, table: string) => r.reports.find((x) => x.table === table)!;
const counts = (r: ImportResult) =>
  TABLES.map((table) => {
    const x = report(r, table);
    return [table, x.read, x.written, x.skippedCount];
  });
/** A plan row with new-api's defaults, written straight to the table. */
const planRow = (title: string): Insertable<SubscriptionPlansTable> => ({
  title,
  subtitle: '',
  price_micros: 0,
  currency: 'USD',
  duration_unit: 'month',
  duration_value: 1,
  custom_seconds: 0,
  enabled: 1,
  sort_order: 0,
  allow_balance_pay: 1,
  stripe_price_id: '',
  creem_product_id: '',
  waffo_pancake_product_id: '',
  max_purchase_per_user: 0,
  upgrade_group: '',
  total_amount: 0,
  quota_reset_period: 'never',
  quota_reset_custom_seconds: 0,
  created_at: 0,
  updated_at: 0,
});
const subscriptionRow = (userId: number, planId: number): Insertable<UserSubscriptionsTable> => ({
  user_id: userId,
  plan_id: planId,
  amount_total: 0,
  amount_used: 0,
  start_time: 0,
  end_time: 0,
  status: 'active',
  source: 'admin',
  last_reset_time: 0,
  next_reset_time: 0,
  upgrade_group: '',
  prev_user_group: '',
  created_at: 0,
  updated_at: 0,
});
const orderRow = (userId: number, planId: number, tradeNo: string): Insertable<SubscriptionOrdersTable> => ({
  user_id: userId,
  plan_id: planId,
  money: 0,
  trade_no: tradeNo,
  payment_method: '',
  payment_provider: '',
  status: 'pending',
  create_time: 0,
  complete_time: 0,
  provider_payload: '',
});
/** bigint columns come back as text from some drivers. */
const numbers = <T extends Record<string, unknown>>(row: T) =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
  );

describe.each(dialects)('import of new-api subscriptions on %s', (dialect) => {
  let source: TestDatabase, target: TestDatabase, dry: ImportResult, first: ImportResult, plansAfterDry: number;
  const t = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    source = await createTestDatabase(dialect);
    await createSourceSchema(source.db.kysely, dialect, { ...NEW_API, ...NEW_API_SUBSCRIPTIONS });
    await seedNewApi(source.db.kysely, dialect, UPSTREAM);
    await seedSubscriptions(source.db.kysely, dialect, t);
    target = await createTestDatabase(dialect);
    await migrateToLatest(target.db);
    dry = await runImport({ from: source.dsn, target: target.db, box, log, dryRun: true });
    plansAfterDry = (await target.db.kysely.selectFrom('subscription_plans').select('id').execute()).length;
    first = await runImport({ from: source.dsn, target: target.db, box, log });
  });
  afterAll(async () => {
    await target?.drop();
    await source?.drop();
  });

  it('counts the three tables in the report, the dry run predicting them without writing, and checks the plan quota', () => {
    expect(counts(first)).toEqual([
      ['subscription_plans', 3, 3, 0],
      ['user_subscriptions', 5, 4, 1],
      ['subscription_orders', 4, 3, 1],
    ]);
    expect(counts(dry)).toEqual(counts(first));
    expect(plansAfterDry).toBe(0);
    expect(report(first, 'user_subscriptions').lines().join('\n')).toContain(
      'skipped 1: its user is not in the target (not imported) (id 5)',
    );
    expect(report(first, 'subscription_orders').lines().join('\n')).toContain('(id 6)');
    // The orphan's 10,000,000 and 5 are left out of the comparison, as skipped.
    expect(first.quota.slice(3).map((q) => [q.label, q.before, q.skipped, q.after, q.ok])).toEqual([
      ['user_subscriptions.amount_total', 31_000_000, 10_000_000, 21_000_000, true],
      ['user_subscriptions.amount_used', 2_123_503, 5, 2_123_498, true],
    ]);
    expect(summaryLines(first).join('\n')).toContain('subscription_pre_consume_records:');
  });

  it('carries plans with their ids, the exact price in millionths, booleans as 0/1 and defaults', async () => {
    const plans = await target.db.kysely.selectFrom('subscription_plans').selectAll().orderBy('id').execute();
    expect(plans.map(numbers)).toEqual([
      {
        id: 1,
        title: 'Pro Monthly',
        subtitle: 'For daily use',
        price_micros: 9_990_000,
        currency: 'USD',
        duration_unit: 'month',
        duration_value: 1,
        custom_seconds: 0,
        enabled: 1,
        sort_order: 10,
        allow_balance_pay: 1,
        stripe_price_id: 'price_pro_monthly',
        creem_product_id: '',
        waffo_pancake_product_id: '',
        max_purchase_per_user: 2,
        upgrade_group: 'vip',
        total_amount: 10_000_000,
        quota_reset_period: 'monthly',
        quota_reset_custom_seconds: 0,
        created_at: t - 100 * 86400,
        updated_at: t - 50 * 86400,
      },
      expect.objectContaining({
        id: 2,
        price_micros: 199_000_000,
        currency: 'CNY',
        duration_unit: 'year',
        enabled: 0,
        allow_balance_pay: 0,
        creem_product_id: 'prod_unlimited',
        waffo_pancake_product_id: 'wp_unlimited',
        total_amount: 0,
        quota_reset_period: 'never',
      }),
      expect.objectContaining({
        id: 4,
        price_micros: 123_456,
        duration_unit: 'custom',
        custom_seconds: 7200,
        allow_balance_pay: 1,
        quota_reset_period: 'custom',
        quota_reset_custom_seconds: 3600,
      }),
    ]);
  });

  it("carries users' subscriptions with their ids, quota left intact, reset times and groups", async () => {
    const subs = await target.db.kysely.selectFrom('user_subscriptions').selectAll().orderBy('id').execute();
    expect(subs.map((s) => s.id)).toEqual([1, 2, 3, LAST_SUBSCRIPTION]);
    const alice = numbers(subs[0]!);
    expect(alice).toEqual({
      id: 1,
      user_id: 2,
      plan_id: 1,
      amount_total: 10_000_000,
      amount_used: 1_000_000,
      start_time: t - 5 * 86400,
      end_time: t + 25 * 86400,
      status: 'active',
      source: 'order',
      last_reset_time: t - 5 * 86400,
      next_reset_time: t + 25 * 86400,
      upgrade_group: 'vip',
      prev_user_group: 'default',
      created_at: t - 5 * 86400,
      updated_at: t - 86400,
    });
    expect(Number(alice.amount_total) - Number(alice.amount_used)).toBe(ALICE_LEFT);
    expect(subs.slice(1).map((s) => [s.user_id, s.plan_id, Number(s.amount_total), s.status, s.source])).toEqual([
      [3, 2, 0, 'active', 'admin'],
      [2, 4, 1_000_000, 'expired', 'balance'],
      [3, 1, 10_000_000, 'cancelled', 'order'],
    ]);
  });

  it('carries orders, and users keep their billing preference', async () => {
    const k = target.db.kysely;
    const orders = await k.selectFrom('subscription_orders').selectAll().orderBy('id').execute();
    expect(orders.map(numbers)).toEqual([
      {
        id: 1,
        user_id: 2,
        plan_id: 1,
        money: 9.99,
        trade_no: 'sub_ref_alice_1',
        payment_method: 'stripe',
        payment_provider: 'stripe',
        status: 'success',
        create_time: t - 5 * 86400,
        complete_time: t - 5 * 86400 + 30,
        provider_payload: '{"id":"cs_test_1"}',
      },
      expect.objectContaining({ id: 2, status: 'pending', payment_provider: 'epay', complete_time: 0 }),
      expect.objectContaining({ id: 3, payment_method: 'balance', provider_payload: 'charged_quota=61728' }),
    ]);
    const bob = await k.selectFrom('users').select('setting').where('id', '=', 3).executeTakeFirstOrThrow();
    expect(JSON.parse(bob.setting)).toEqual(BOB_SETTING);
  });

  it('a re-run writes nothing, and rows made afterwards get ids past the imported ones', async () => {
    const again = await runImport({ from: source.dsn, target: target.db, box, log });
    expect(again.written).toBe(0);
    expect(counts(again).map(([table, read, written]) => [table, read, written])).toEqual([
      ['subscription_plans', 3, 0],
      ['user_subscriptions', 5, 0],
      ['subscription_orders', 4, 0],
    ]);
    const k = target.db.kysely;
    await k.insertInto('subscription_plans').values(planRow('After import')).execute();
    const plan = await k
      .selectFrom('subscription_plans')
      .select('id')
      .where('title', '=', 'After import')
      .executeTakeFirstOrThrow();
    expect(plan.id).toBe(5);
    await k.insertInto('user_subscriptions').values(subscriptionRow(2, 5)).execute();
    const sub = await k
      .selectFrom('user_subscriptions')
      .select('id')
      .where('plan_id', '=', 5)
      .executeTakeFirstOrThrow();
    expect(sub.id).toBe(LAST_SUBSCRIPTION + 1);
    await k
      .insertInto('subscription_orders')
      .values(orderRow(2, 5, 'after-import'))
      .execute();
    const order = await k
      .selectFrom('subscription_orders')
      .select('id')
      .where('trade_no', '=', 'after-import')
      .executeTakeFirstOrThrow();
    expect(order.id).toBe(4);
  });

  it('a merge shifts the ids past the target’s and the references follow', async () => {
    const other = await createTestDatabase(dialect);
    try {
      await migrateToLatest(other.db);
      const k = other.db.kysely;
      await k.insertInto('users').values(userRow('zed')).execute();
      await k.insertInto('subscription_plans').values(planRow('Target plan')).execute();
      const merged = await runImport({ from: source.dsn, target: other.db, box, log, merge: true });
      expect(merged.offsets).toMatchObject({ users: 1, subscription_plans: 1, user_subscriptions: 0 });
      const alice = await k.selectFrom('user_subscriptions').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
      expect([alice.user_id, alice.plan_id, Number(alice.amount_total) - Number(alice.amount_used)]).toEqual([
        3,
        2,
        ALICE_LEFT,
      ]);
      const order = await k.selectFrom('subscription_orders').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
      expect([order.user_id, order.plan_id]).toEqual([3, 2]);
      const plans = await k.selectFrom('subscription_plans').select(['id', 'title']).orderBy('id').execute();
      expect(plans.map((p) => p.title)).toEqual(['Target plan', 'Pro Monthly', 'Unlimited Yearly', 'Hourly burst']);
      expect(merged.quota.every((q) => q.ok)).toBe(true);
    } finally {
      await other.drop();
    }
  });
});

describe.each(dialects)("import of new-api's first, per-model subscriptions on %s", (dialect) => {
  let source: TestDatabase, target: TestDatabase, result: ImportResult;
  const t = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    source = await createTestDatabase(dialect);
    await createSourceSchema(source.db.kysely, dialect, { ...NEW_API, ...FIRST_SUBSCRIPTIONS });
    await seedNewApi(source.db.kysely, dialect, UPSTREAM);
    await seedFirstSubscriptions(source.db.kysely, dialect, t);
    target = await createTestDatabase(dialect);
    await migrateToLatest(target.db);
    result = await runImport({ from: source.dsn, target: target.db, box, log });
  });
  afterAll(async () => {
    await target?.drop();
    await source?.drop();
  });

  it("sums each plan's and subscription's quota items, refusing request counts with their reason", async () => {
    const k = target.db.kysely;
    const plans = await k.selectFrom('subscription_plans').selectAll().orderBy('id').execute();
    expect(
      plans.map((p) => [p.id, Number(p.price_micros), Number(p.total_amount), p.enabled, p.allow_balance_pay]),
    ).toEqual([
      [1, 9_990_000, 10_000_000, 1, 1],
      // Only request counts: a pool of 0 would be unlimited, so the plan is not offered.
      [2, 1_000_000, 0, 0, 1],
    ]);
    expect(plans[0]).toMatchObject({ quota_reset_period: 'never', upgrade_group: '', waffo_pancake_product_id: '' });
    const planLines = report(result, 'subscription_plans').lines().join('\n');
    expect(planLines).toContain(
      "refused id 1: 1 request-count item(s) (quota_type other than 0) not carried: Tollway's",
    );
    expect(planLines).toContain('refused id 2: no quota item in subscription_plan_items');
    const subs = await k.selectFrom('user_subscriptions').selectAll().execute();
    expect(subs.map((s) => [s.id, s.user_id, Number(s.amount_total), Number(s.amount_used)])).toEqual([
      [1, 2, 10_000_000, 1_000_000],
    ]);
    expect(Number(subs[0]!.amount_total) - Number(subs[0]!.amount_used)).toBe(ALICE_LEFT);
    const subLines = report(result, 'user_subscriptions').lines().join('\n');
    expect(subLines).toContain('skipped 1: it holds only request-count items (refused; listed below) (id 2)');
    expect(subLines).toContain('skipped 1: no item in user_subscription_items: its quota is unknown (id 3)');
    expect(subLines).toContain('refused id 1: 1 request-count item(s)');
    expect(subLines).toContain('refused id 2: 1 request-count item(s)');
    const order = await k.selectFrom('subscription_orders').selectAll().executeTakeFirstOrThrow();
    expect(order).toMatchObject({ trade_no: 'legacy-order-1', payment_provider: '', status: 'success' });
    // No pool columns in the source: only the users' and tokens' sums are compared.
    expect(result.quota.map((q) => q.label)).toEqual(['users.quota', 'users.used_quota', 'tokens.remain_quota']);
    expect(result.quota.every((q) => q.ok)).toBe(true);
  });
});
