import type { SubscriptionPlan } from '@tollway/shared';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creemSign } from '../../src/modules/topup/creem.js';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { startMockPayments, type MockPayments } from '../support/mock-payments.js';
import {
  creemCompletedEvent,
  expectRefused,
  planPaymentReads,
  setOption,
  stripeSessionEvent,
} from '../support/plan-payments.js';
import { bindPlan, createPlan } from '../support/subscriptions.js';

const STRIPE_WEBHOOK_SECRET = 'whsec_test_plans';
const CREEM_WEBHOOK_SECRET = 'creem_whsec_plans';
const UNIT = 500_000;

describe.each(dialects)('paying for plans with Stripe and Creem on %s', (dialect) => {
  let mock: MockPayments;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    mock = await startMockPayments();
    env.STRIPE_API_BASE = mock.url;
    env.CREEM_API_BASE = mock.url;
  });
  afterAll(async () => mock?.close());
  let t: TestApp, root: Client, buyer: Client, other: Client;
  let reads: ReturnType<typeof planPaymentReads>;
  let pro: SubscriptionPlan;
  useApp(dialect, { env, users: ['plan-buyer', 'plan-other'] }, async (app) => {
    ({
      t,
      root,
      users: [buyer, other],
    } = app);
    reads = planPaymentReads(t);
    await setOption(root, 'GroupRatio', JSON.stringify({ default: 1, vip: 1 }));
    pro = await createPlan(root, {
      title: 'Pro',
      price_amount: 9.99,
      stripe_price_id: 'price_plan_pro',
      creem_product_id: 'prod_plan_pro',
      upgrade_group: 'vip',
    });
  });

  const stripeDeliver = (
    payload: string,
    signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_WEBHOOK_SECRET }),
  ) =>
    t.app.inject({
      method: 'POST',
      url: '/api/stripe/webhook',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
      payload,
    });
  const creemDeliver = (payload: string, signature = creemSign(Buffer.from(payload), CREEM_WEBHOOK_SECRET)) =>
    t.app.inject({
      method: 'POST',
      url: '/api/creem/webhook',
      headers: { 'content-type': 'application/json', 'creem-signature': signature },
      payload,
    });
  const stripePay = async (c: Client, planId: number) => {
    const res = await c.call<{ pay_link: string }>('POST', '/api/subscription/stripe/pay', { plan_id: planId });
    expect(res.body.success, res.body.message).toBe(true);
    const call = mock.calls.at(-1)!;
    return { link: res.body.data!.pay_link, reference: String(call.body.client_reference_id), call };
  };
  const paid = (reference: string) => stripeSessionEvent('checkout.session.completed', reference);
  const quotaOf = async (c: Client) => (await c.call<{ quota: number }>('GET', '/api/user/self')).body.data!.quota;

  it('refuses before any order while Stripe is not set up, and refuses what is not on sale', async () => {
    const orders = await reads.orderCount();
    expectRefused(await buyer.call('POST', '/api/subscription/stripe/pay', { plan_id: pro.id }), 'not set up Stripe');
    await setOption(root, 'ServerAddress', 'https://gw.example.com');
    await setOption(root, 'StripeApiSecret', 'sk_test_plans');
    await setOption(root, 'StripeWebhookSecret', STRIPE_WEBHOOK_SECRET);
    const noPrice = await createPlan(root, { title: 'No Stripe', stripe_price_id: '' });
    const off = await createPlan(root, { title: 'Off', stripe_price_id: 'price_off', enabled: false });
    const calls = mock.calls.length;
    expectRefused(
      await buyer.call('POST', '/api/subscription/stripe/pay', { plan_id: noPrice.id }),
      'it has no Stripe price (stripe_price_id)',
    );
    expectRefused(await buyer.call('POST', '/api/subscription/stripe/pay', { plan_id: off.id }), 'not on sale');
    expectRefused(
      await buyer.call('POST', '/api/subscription/stripe/pay', { plan_id: 987654 }),
      'subscription plan not found',
    );
    expect(mock.calls.length).toBe(calls);
    expect(await reads.orderCount()).toBe(orders);
  });

  it("opens a pending order and a subscription-mode Checkout Session for the plan's price", async () => {
    const { link, reference, call } = await stripePay(buyer, pro.id);
    expect(call.path).toBe('/v1/checkout/sessions');
    expect(call.headers.authorization).toBe('Bearer sk_test_plans');
    expect(call.body).toMatchObject({
      mode: 'subscription',
      'line_items[0][price]': 'price_plan_pro',
      'line_items[0][quantity]': '1',
      success_url: 'https://gw.example.com/app/wallet',
      cancel_url: 'https://gw.example.com/app/wallet',
    });
    expect(call.body).not.toHaveProperty('customer_creation');
    expect(reference).toMatch(/^sub_ref_[0-9a-f]{40}$/);
    expect(link).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const order = await reads.order(reference);
    expect(order).toMatchObject({
      user_id: buyer.userId,
      plan_id: pro.id,
      status: 'pending',
      payment_method: 'stripe',
      payment_provider: 'stripe',
    });
    expect(Number(order.money)).toBeCloseTo(9.99, 6);
  });

  it('grants the plan once for a paid session: a replay and five concurrent duplicates grant nothing more', async () => {
    const quota = await quotaOf(buyer);
    const held = await reads.held(buyer.userId!, pro.id);
    const logs = await reads.planLogs(buyer.userId!);
    const { reference } = await stripePay(buyer, pro.id);
    const payload = paid(reference);
    const first = await stripeDeliver(payload);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: true });
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 1);
    const order = await reads.order(reference);
    expect(order.status).toBe('success');
    expect(Number(order.complete_time)).toBeGreaterThan(0);
    expect(JSON.parse(order.provider_payload)).toMatchObject({ amount_total: 999, currency: 'USD' });
    expect((await stripeDeliver(payload)).statusCode).toBe(200);
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 1);

    const second = await stripePay(buyer, pro.id);
    const again = paid(second.reference);
    const answers = await Promise.all(Array.from({ length: 5 }, () => stripeDeliver(again)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 2);
    expect(await reads.sources(buyer.userId!, pro.id)).toEqual(['order', 'order']);
    expect(await reads.planLogs(buyer.userId!)).toBe(logs + 2);
    // A plan is not a top-up: the wallet is not credited; the plan's group applies at once.
    expect(await quotaOf(buyer)).toBe(quota);
    const self = await buyer.call<{ group: string }>('GET', '/api/user/self');
    expect(self.body.data!.group).toBe('vip');
    const mine = await buyer.call<{ subscriptions: { subscription: { plan_id: number } }[] }>(
      'GET',
      '/api/subscription/self',
    );
    expect(mine.body.data!.subscriptions.filter((s) => s.subscription.plan_id === pro.id)).toHaveLength(2);
  });

  it('a session naming a top-up order credits the top-up and grants no plan', async () => {
    await setOption(root, 'StripePriceId', 'price_unit');
    await setOption(root, 'StripeUnitPrice', '8');
    await setOption(root, 'StripeMinTopUp', '1');
    const held = await reads.held(other.userId!, pro.id);
    const quota = await quotaOf(other);
    const res = await other.call('POST', '/api/user/stripe/pay', { amount: 2, payment_method: 'stripe' });
    expect(res.body.success, res.body.message).toBe(true);
    const reference = String(mock.calls.at(-1)!.body.client_reference_id);
    expect((await stripeDeliver(paid(reference))).statusCode).toBe(200);
    expect(await quotaOf(other)).toBe(quota + 2 * UNIT);
    expect(await reads.held(other.userId!, pro.id)).toBe(held);
  });

  it('an expired session closes the order expired and grants nothing, even if a paid event follows', async () => {
    const held = await reads.held(buyer.userId!, pro.id);
    const { reference } = await stripePay(buyer, pro.id);
    const expired = stripeSessionEvent('checkout.session.expired', reference, {
      status: 'expired',
      payment_status: 'unpaid',
    });
    expect((await stripeDeliver(expired)).statusCode).toBe(200);
    expect(await reads.order(reference)).toMatchObject({ status: 'expired' });
    await stripeDeliver(paid(reference));
    expect(await reads.order(reference)).toMatchObject({ status: 'expired' });
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held);
  });

  it('a bad signature is refused with 400 and grants nothing; a failed checkout closes the order failed', async () => {
    const held = await reads.held(buyer.userId!, pro.id);
    const { reference } = await stripePay(buyer, pro.id);
    const payload = paid(reference);
    const forged = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' });
    expect((await stripeDeliver(payload, forged)).statusCode).toBe(400);
    expect(await reads.order(reference)).toMatchObject({ status: 'pending' });
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held);

    mock.failNext = 400;
    const res = await buyer.call('POST', '/api/subscription/stripe/pay', { plan_id: pro.id });
    expect(res.body).toMatchObject({ success: false, code: 'topup_checkout_failed', params: { provider: 'Stripe' } });
    const failed = String(mock.calls.at(-1)!.body.client_reference_id);
    expect(await reads.order(failed)).toMatchObject({ status: 'failed' });
  });

  it('refuses past the purchase cap before an order is made; a payment landing past it closes the order failed', async () => {
    const capped = await createPlan(root, { title: 'Once', stripe_price_id: 'price_once', max_purchase_per_user: 1 });
    const pending = await stripePay(other, capped.id);
    await bindPlan(root, other.userId!, capped.id);
    const orders = await reads.orderCount();
    const calls = mock.calls.length;
    expectRefused(
      await other.call('POST', '/api/subscription/stripe/pay', { plan_id: capped.id }),
      'reached the purchase limit',
    );
    expect(await reads.orderCount()).toBe(orders);
    expect(mock.calls.length).toBe(calls);
    // The order made before the cap was reached is paid now: acknowledged, not granted, kept failed for a refund.
    const late = await stripeDeliver(paid(pending.reference));
    expect(late.statusCode).toBe(200);
    expect(await reads.held(other.userId!, capped.id)).toBe(1);
    const order = await reads.order(pending.reference);
    expect(order.status).toBe('failed');
    expect(order.provider_payload).toContain('purchase limit');
  });

  it('Creem: a checkout of the plan product, a signed paid event grants it once however often it comes', async () => {
    const creemOff = await buyer.call('POST', '/api/subscription/creem/pay', { plan_id: pro.id });
    expectRefused(creemOff, 'not set up Creem');
    await setOption(root, 'CreemApiKey', 'creem_key_plans');
    await setOption(root, 'CreemWebhookSecret', CREEM_WEBHOOK_SECRET);
    const noProduct = await createPlan(root, { title: 'No Creem', creem_product_id: '' });
    expectRefused(
      await buyer.call('POST', '/api/subscription/creem/pay', { plan_id: noProduct.id }),
      'it has no Creem product (creem_product_id)',
    );

    const held = await reads.held(buyer.userId!, pro.id);
    const res = await buyer.call<{ checkout_url: string; order_id: string }>('POST', '/api/subscription/creem/pay', {
      plan_id: pro.id,
    });
    expect(res.body.success, res.body.message).toBe(true);
    const { checkout_url, order_id } = res.body.data!;
    const call = mock.calls.at(-1)!;
    expect(call.path).toBe('/v1/checkouts');
    expect(call.headers['x-api-key']).toBe('creem_key_plans');
    expect(call.body).toMatchObject({ product_id: 'prod_plan_pro', request_id: order_id });
    expect(checkout_url).toMatch(/^https:\/\/checkout\.creem\.io\//);
    expect(await reads.order(order_id)).toMatchObject({ status: 'pending', payment_provider: 'creem' });

    const unsigned = creemCompletedEvent(order_id);
    expect((await creemDeliver(unsigned, 'deadbeef')).statusCode).toBe(400);
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held);
    const event = creemCompletedEvent(order_id);
    const answers = await Promise.all([event, event, event].map((e) => creemDeliver(e)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect((await creemDeliver(event)).statusCode).toBe(200);
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 1);
    expect(await reads.order(order_id)).toMatchObject({ status: 'success' });
  });

  it("a provider's event never completes another provider's plan order", async () => {
    const held = await reads.held(buyer.userId!, pro.id);
    const stripeOrder = await stripePay(buyer, pro.id);
    expect((await creemDeliver(creemCompletedEvent(stripeOrder.reference))).statusCode).toBe(200);
    expect(await reads.order(stripeOrder.reference)).toMatchObject({ status: 'pending' });
    const creem = await buyer.call<{ order_id: string }>('POST', '/api/subscription/creem/pay', { plan_id: pro.id });
    const creemOrder = creem.body.data!.order_id;
    expect((await stripeDeliver(paid(creemOrder))).statusCode).toBe(200);
    expect(await reads.order(creemOrder)).toMatchObject({ status: 'pending' });
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held);
  });
});
