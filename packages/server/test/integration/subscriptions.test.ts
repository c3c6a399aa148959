import type { SubscriptionPlan, SubscriptionSelf, UserSubscription } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { SubscriptionPeriods } from '../../src/modules/subscriptions/periods.js';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { addChannel, drainWriter, lastLogOf, setQuota, userQuota } from '../support/gateway.js';
import type { MockUpstream } from '../support/mock-upstream.js';
import { FIXED_MODEL, limitedToken, openaiCall, PER_CALL } from '../support/period-limits.js';
import { bindPlan, consolePlan, createPlan, subscriptionRow } from '../support/subscriptions.js';

const WALLET = 100_000_000;
const QUOTA_PER_UNIT = 500_000;

describe.each(dialects)('subscription plans (%s)', (dialect) => {
  let t: TestApp, mock: MockUpstream, root: Client, base: string;
  useGateway(dialect, { users: ['plain'] }, async (gw) => {
    ({ t, mock, root, base } = gw);
    await root.call('PUT', '/api/option/', { key: 'ModelPrice', value: JSON.stringify({ [FIXED_MODEL]: 0.001 }) });
    await root.call('PUT', '/api/option/', { key: 'GroupRatio', value: JSON.stringify({ default: 1, vip: 1 }) });
    await addChannel(root, {
      name: 'main',
      key: 'main-key',
      baseUrl: mock.url,
      models: FIXED_MODEL,
      group: 'default,vip',
    });
  });
  const periods = () => new SubscriptionPeriods(t.runtime.ctx);

  it("saves, reads back, edits and toggles a plan with the exact requests new-api's console sends", async () => {
    const created = await createPlan(root, { title: 'Round trip', total_amount: 1_000_000, sort_order: 5 });
    expect(created).toMatchObject({ title: 'Round trip', price_amount: 9.99, total_amount: 1_000_000, enabled: true });
    const edited = consolePlan({ title: 'Round trip 2', price_amount: 19.5, quota_reset_period: 'custom' });
    const bad = await root.call('PUT', `/api/subscription/admin/plans/${created.id}`, edited);
    expect(bad.body).toMatchObject({ success: false, message: expect.stringContaining('quota_reset_custom_seconds') });
    edited.plan.quota_reset_custom_seconds = 3600;
    expect((await root.call('PUT', `/api/subscription/admin/plans/${created.id}`, edited)).body.success).toBe(true);
    expect(
      (await root.call('PATCH', `/api/subscription/admin/plans/${created.id}`, { enabled: false })).body.success,
    ).toBe(true);
    const all = await root.call<{ plan: SubscriptionPlan }[]>('GET', '/api/subscription/admin/plans');
    expect(all.body.data!.find((p) => p.plan.id === created.id)!.plan).toMatchObject({
      title: 'Round trip 2',
      price_amount: 19.5,
      quota_reset_period: 'custom',
      quota_reset_custom_seconds: 3600,
      enabled: false,
    });
    const onSale = await root.call<{ plan: SubscriptionPlan }[]>('GET', '/api/subscription/plans');
    expect(onSale.body.data!.some((p) => p.plan.id === created.id)).toBe(false);
    for (const plan of [{ price_amount: -1 }, { price_amount: 10_000 }, { upgrade_group: 'nope' }, { title: ' ' }])
      expect((await root.call('POST', '/api/subscription/admin/plans', consolePlan(plan))).body.success).toBe(false);
  });

  it('keeps plan administration to administrators', async () => {
    const [plain] = t.runtime ? [await createUser('perm')] : [];
    for (const [method, url, body] of [
      ['GET', '/api/subscription/admin/plans', undefined],
      ['POST', '/api/subscription/admin/plans', consolePlan()],
      ['POST', '/api/subscription/admin/bind', { user_id: 1, plan_id: 1 }],
      ['DELETE', '/api/subscription/admin/user_subscriptions/1', undefined],
    ] as const) {
      const res = await plain!.call(method, url, body);
      expect(res.body.success).toBe(false);
    }
  });

  async function createUser(name: string): Promise<Client> {
    return (await limitedToken(t, root, `${name}-${dialect}`, {})).user;
  }

  it('draws calls from a bound plan, not the wallet, to its edge; then the wallet (subscription_first)', async () => {
    const { user, key } = await limitedToken(t, root, `draw-${dialect}`, {});
    const plan = await createPlan(root, { title: 'Draw', total_amount: 3 * PER_CALL });
    const sub = await bindPlan(root, user.userId!, plan.id);
    expect(sub).toMatchObject({ amount_total: 3 * PER_CALL, amount_used: 0, status: 'active', source: 'admin' });
    for (let i = 0; i < 3; i++) expect((await openaiCall(base, key)).status).toBe(200);
    expect(Number((await subscriptionRow(t, sub.id)).amount_used)).toBe(3 * PER_CALL);
    expect(await userQuota(t, user.userId!)).toBe(WALLET);
    const log = await lastLogOf(t, FIXED_MODEL);
    expect(JSON.parse(log!.other)).toMatchObject({
      billing_source: 'subscription',
      subscription_id: sub.id,
      subscription_plan_id: plan.id,
      subscription_plan_title: 'Draw',
      subscription_total: 3 * PER_CALL,
      subscription_consumed: PER_CALL,
      subscription_post_delta: 0,
      wallet_quota_deducted: 0,
    });
    // The plan is used up: the next call falls back to the wallet.
    expect((await openaiCall(base, key)).status).toBe(200);
    expect(await userQuota(t, user.userId!)).toBe(WALLET - PER_CALL);
    expect(Number((await subscriptionRow(t, sub.id)).amount_used)).toBe(3 * PER_CALL);
    expect(JSON.parse((await lastLogOf(t, FIXED_MODEL))!.other)).toMatchObject({ billing_source: 'wallet' });
  });

  it('follows each billing preference: wallet_first, wallet_only, subscription_only', async () => {
    const { user, key } = await limitedToken(t, root, `pref-${dialect}`, {});
    const plan = await createPlan(root, { title: 'Pref', total_amount: PER_CALL });
    const sub = await bindPlan(root, user.userId!, plan.id);
    const prefer = async (p: string) =>
      expect(
        (await user.call('PUT', '/api/subscription/self/preference', { billing_preference: p })).body.data,
      ).toEqual({
        billing_preference: p,
      });
    await prefer('wallet_first');
    expect((await openaiCall(base, key)).status).toBe(200);
    expect(await userQuota(t, user.userId!)).toBe(WALLET - PER_CALL);
    await prefer('subscription_only');
    expect((await openaiCall(base, key)).status).toBe(200);
    expect(Number((await subscriptionRow(t, sub.id)).amount_used)).toBe(PER_CALL);
    const refused = await openaiCall(base, key);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain(
      'subscription quota insufficient',
    );
    await setQuota(root, user.userId!, 0);
    await prefer('wallet_only');
    expect((await openaiCall(base, key)).status).toBe(403);
    // Unknown preferences read as the default; saving notification settings keeps the preference.
    await prefer('wallet_first');
    expect((await user.call('PUT', '/api/user/setting', { notify_type: 'email' })).body.success).toBe(true);
    const self = await user.call<SubscriptionSelf>('GET', '/api/subscription/self');
    expect(self.body.data!.billing_preference).toBe('wallet_first');
    expect(
      (await user.call('PUT', '/api/subscription/self/preference', { billing_preference: 'x' })).body.data,
    ).toEqual({
      billing_preference: 'subscription_first',
    });
  });

  it('sells a plan for wallet quota exactly once per call, within the cap, and refuses a short wallet', async () => {
    const { user } = await limitedToken(t, root, `buy-${dialect}`, {});
    const plan = await createPlan(root, { title: 'Buy', price_amount: 0.333333, max_purchase_per_user: 1 });
    const price = Math.ceil((333_333 * QUOTA_PER_UNIT) / 1_000_000);
    const pay = () => user.call('POST', '/api/subscription/balance/pay', { plan_id: plan.id });
    expect((await pay()).body.success).toBe(true);
    expect(await userQuota(t, user.userId!)).toBe(WALLET - price);
    const again = await pay();
    expect(again.body).toMatchObject({ success: false, message: expect.stringContaining('purchase limit') });
    expect(await userQuota(t, user.userId!)).toBe(WALLET - price);
    const self = await user.call<SubscriptionSelf>('GET', '/api/subscription/self');
    expect(self.body.data!.subscriptions.map((s) => s.subscription.source)).toEqual(['balance']);
    const costly = await createPlan(root, { title: 'Costly', price_amount: 9999 });
    await setQuota(root, user.userId!, 1000);
    const short = await user.call('POST', '/api/subscription/balance/pay', { plan_id: costly.id });
    expect(short.body).toMatchObject({ success: false, message: expect.stringContaining('insufficient') });
    expect(await userQuota(t, user.userId!)).toBe(1000);
    const noBalance = await createPlan(root, { title: 'Card only', allow_balance_pay: false, price_amount: 0 });
    expect((await user.call('POST', '/api/subscription/balance/pay', { plan_id: noBalance.id })).body.success).toBe(
      false,
    );
  });

  it("resets a plan's period and expires it, restoring the group its plan upgraded", async () => {
    const { user, key } = await limitedToken(t, root, `period-${dialect}`, {});
    const plan = await createPlan(root, {
      title: 'Daily',
      total_amount: PER_CALL,
      quota_reset_period: 'daily',
      upgrade_group: 'vip',
    });
    const bound = await root.call('POST', '/api/subscription/admin/bind', { user_id: user.userId, plan_id: plan.id });
    expect(bound.body.data).toEqual({ message: expect.stringContaining('vip') });
    const sub = (await user.call<SubscriptionSelf>('GET', '/api/subscription/self')).body.data!.subscriptions[0]!
      .subscription as UserSubscription;
    expect(sub.next_reset_time).toBeGreaterThan(sub.start_time);
    expect((await root.call<{ group: string }>('GET', `/api/user/${user.userId}`)).body.data!.group).toBe('vip');
    expect((await openaiCall(base, key)).status).toBe(200);
    await user.call('PUT', '/api/subscription/self/preference', { billing_preference: 'subscription_only' });
    expect((await openaiCall(base, key)).status).toBe(403);
    // The reset comes: the plan is full again and the next call draws from it. (A charge still on its way to the
    // database when the reset lands counts in the new period: drained first here.)
    await drainWriter(t);
    const result = await periods().runOnce(sub.next_reset_time);
    expect(result.reset).toBeGreaterThanOrEqual(1);
    const after = await subscriptionRow(t, sub.id);
    expect(Number(after.amount_used)).toBe(0);
    expect(Number(after.last_reset_time)).toBe(sub.next_reset_time);
    expect(Number(after.next_reset_time)).toBeGreaterThan(sub.next_reset_time);
    expect((await openaiCall(base, key)).status).toBe(200);
    expect(Number((await subscriptionRow(t, sub.id)).amount_used)).toBe(PER_CALL);
    // Its end passes: expired, and the group goes back.
    expect((await periods().runOnce(sub.end_time)).expired).toBeGreaterThanOrEqual(1);
    expect((await subscriptionRow(t, sub.id)).status).toBe('expired');
    expect((await root.call<{ group: string }>('GET', `/api/user/${user.userId}`)).body.data!.group).toBe('default');
  });

  it('ends and deletes a subscription from the admin routes; the relay stops drawing from it at once', async () => {
    const { user, key } = await limitedToken(t, root, `end-${dialect}`, {});
    const plan = await createPlan(root, { title: 'End', total_amount: 10 * PER_CALL });
    const res = await root.call('POST', `/api/subscription/admin/users/${user.userId}/subscriptions`, {
      plan_id: plan.id,
    });
    expect(res.body.success).toBe(true);
    const [held] = (
      await root.call<{ subscription: UserSubscription }[]>(
        'GET',
        `/api/subscription/admin/users/${user.userId}/subscriptions`,
      )
    ).body.data!;
    expect((await openaiCall(base, key)).status).toBe(200);
    expect(Number((await subscriptionRow(t, held!.subscription.id)).amount_used)).toBe(PER_CALL);
    const end = await root.call(
      'POST',
      `/api/subscription/admin/user_subscriptions/${held!.subscription.id}/invalidate`,
    );
    expect(end.body.success).toBe(true);
    expect((await openaiCall(base, key)).status).toBe(200);
    expect(await userQuota(t, user.userId!)).toBe(WALLET - PER_CALL);
    const again = await root.call(
      'POST',
      `/api/subscription/admin/user_subscriptions/${held!.subscription.id}/invalidate`,
    );
    expect(again.body.success).toBe(false);
    expect(
      (await root.call('DELETE', `/api/subscription/admin/user_subscriptions/${held!.subscription.id}`)).body.success,
    ).toBe(true);
    expect(
      (await root.call<unknown[]>('GET', `/api/subscription/admin/users/${user.userId}/subscriptions`)).body.data,
    ).toEqual([]);
  });

  it('20 concurrent calls on a plan for 7 and a wallet for 5: exactly 12 served, nothing overdrawn', async () => {
    const { user, key } = await limitedToken(t, root, `race-${dialect}`, {});
    await setQuota(root, user.userId!, 5 * PER_CALL);
    const plan = await createPlan(root, { title: 'Race', total_amount: 7 * PER_CALL });
    const sub = await bindPlan(root, user.userId!, plan.id);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => openaiCall(base, key).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(12);
    expect(statuses.filter((s) => s === 403)).toHaveLength(8);
    expect(Number((await subscriptionRow(t, sub.id)).amount_used)).toBe(7 * PER_CALL);
    expect(await userQuota(t, user.userId!)).toBe(0);
  });
});
