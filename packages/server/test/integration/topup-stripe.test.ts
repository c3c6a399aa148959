import Stripe from 'stripe';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { startMockPayments, type MockPayments } from '../support/mock-payments.js';

const WEBHOOK_SECRET = 'whsec_test_tollway';
const UNIT = 500000;

interface Order {
  trade_no: string;
  status: string;
  amount: number;
  money: number;
  payment_method: string;
}

/** A Checkout Session event as Stripe sends it, for the order `reference`. */
function sessionEvent(type: string, reference: string, session: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    api_version: '2025-01-27.acacia',
    created: Math.floor(Date.now() / 1000),
    type,
    data: {
      object: {
        id: 'cs_test_1',
        object: 'checkout.session',
        client_reference_id: reference,
        status: 'complete',
        payment_status: 'paid',
        amount_total: 1600,
        currency: 'usd',
        ...session,
      },
    },
  });
}

describe.each(dialects)('Stripe top-up on %s', (dialect) => {
  let mock: MockPayments;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    mock = await startMockPayments();
    env.STRIPE_API_BASE = mock.url;
  });
  afterAll(async () => mock?.close());
  let t: TestApp, root: Client, payer: Client, vip: Client;
  useApp(dialect, { env, users: ['payer', 'vipper'] }, async (app) => {
    ({
      t,
      root,
      users: [payer, vip],
    } = app);
    await root.call('PUT', '/api/user/', { id: vip.userId, group: 'vip' });
  });

  const setOption = async (key: string, value: string) => {
    const res = await root.call('PUT', '/api/option/', { key, value });
    expect(res.body.success, res.body.message).toBe(true);
  };
  const configure = async () => {
    await setOption('ServerAddress', 'https://gw.example.com');
    await setOption('StripeApiSecret', 'sk_test_123');
    await setOption('StripeWebhookSecret', WEBHOOK_SECRET);
    await setOption('StripePriceId', 'price_unit');
    await setOption('StripeUnitPrice', '8');
    await setOption('StripeMinTopUp', '2');
    await setOption('TopupGroupRatio', JSON.stringify({ default: 1, vip: 0.75 }));
  };
  const deliver = (
    payload: string,
    signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
  ) =>
    t.app.inject({
      method: 'POST',
      url: '/api/stripe/webhook',
      headers: { 'content-type': 'application/json; charset=utf-8', 'stripe-signature': signature },
      payload,
    });
  const pay = async (c: Client, amount: number) => {
    const res = await c.call<{ pay_link: string }>('POST', '/api/user/stripe/pay', {
      amount,
      payment_method: 'stripe',
    });
    expect(res.body.success, res.body.message).toBe(true);
    const call = mock.calls.at(-1)!;
    return { link: res.body.data!.pay_link, reference: String(call.body.client_reference_id), call };
  };
  const quotaOf = async (c: Client) => (await c.call<{ quota: number }>('GET', '/api/user/self')).body.data!.quota;
  const orderOf = async (reference: string) =>
    (await t.database.db.kysely
      .selectFrom('top_ups')
      .selectAll()
      .where('trade_no', '=', reference)
      .executeTakeFirstOrThrow()) as unknown as Order;
  const topUpLogs = async (userId: number) =>
    Number(
      (
        await t.database.db.kysely
          .selectFrom('logs')
          .where('type', '=', 1)
          .where('user_id', '=', userId)
          .select(sql<string>`count(*)`.as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('is off until the API secret, webhook secret and price are set; then the console sees it', async () => {
    const off = await payer.call<Record<string, unknown>>('GET', '/api/user/topup/info');
    expect(off.body.data).toMatchObject({
      enable_stripe_topup: false,
      enable_creem_topup: false,
      creem_products: '[]',
    });
    const refused = await payer.call('POST', '/api/user/stripe/pay', { amount: 10, payment_method: 'stripe' });
    expect(refused.body).toMatchObject({ success: false, code: 'topup_disabled' });
    await configure();
    const on = await payer.call<{ pay_methods: { type: string; min_topup?: string }[] }>('GET', '/api/user/topup/info');
    expect(on.body.data).toMatchObject({ enable_stripe_topup: true, stripe_min_topup: 2 });
    expect(on.body.data!.pay_methods).toContainEqual(expect.objectContaining({ type: 'stripe', min_topup: '2' }));
  });

  it('prices StripeUnitPrice × units × the group ratio, with the minimum and the maximum', async () => {
    expect((await payer.call('POST', '/api/user/stripe/amount', { amount: 10 })).body).toEqual({
      success: true,
      message: 'success',
      data: '80.00',
    });
    expect((await vip.call('POST', '/api/user/stripe/amount', { amount: 3 })).body.data).toBe('18.00');
    expect((await payer.call('POST', '/api/user/stripe/amount', { amount: 1 })).body).toMatchObject({
      success: false,
      code: 'topup_minimum',
      params: { min: 2 },
    });
    expect(
      (await payer.call('POST', '/api/user/stripe/pay', { amount: 10001, payment_method: 'stripe' })).body,
    ).toMatchObject({
      success: false,
      code: 'input_too_large',
      params: { field: 'amount', max: 10000 },
    });
    const calls = mock.calls.length;
    const wrong = await payer.call('POST', '/api/user/stripe/pay', { amount: 10, payment_method: 'zfb' });
    expect(wrong.body).toMatchObject({ success: false });
    expect(mock.calls.length).toBe(calls);
  });

  it('creates a pending order and its Checkout Session (price × units, our trade number as the reference)', async () => {
    const { link, reference, call } = await pay(vip, 10);
    expect(call.path).toBe('/v1/checkout/sessions');
    expect(call.headers.authorization).toBe('Bearer sk_test_123');
    expect(call.body).toMatchObject({
      mode: 'payment',
      'line_items[0][price]': 'price_unit',
      'line_items[0][quantity]': '10',
      success_url: 'https://gw.example.com/app/wallet',
      cancel_url: 'https://gw.example.com/app/wallet',
      allow_promotion_codes: 'false',
    });
    expect(reference).toMatch(/^ref_[0-9a-f]{40}$/);
    expect(link).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    expect(await orderOf(reference)).toMatchObject({ status: 'pending', amount: 10, payment_method: 'stripe' });
    expect(Number((await orderOf(reference)).money)).toBe(60);
  });

  it('credits a paid session once: a replay and five concurrent deliveries add nothing more', async () => {
    const before = await quotaOf(payer);
    const logs = await topUpLogs(payer.userId!);
    const { reference } = await pay(payer, 3);
    const payload = sessionEvent('checkout.session.completed', reference);
    const first = await deliver(payload);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ received: true });
    expect(await quotaOf(payer)).toBe(before + 3 * UNIT);
    expect((await deliver(payload)).statusCode).toBe(200);
    expect(await quotaOf(payer)).toBe(before + 3 * UNIT);
    expect(await orderOf(reference)).toMatchObject({ status: 'success' });

    const second = await pay(payer, 4);
    const again = sessionEvent('checkout.session.completed', second.reference);
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(again)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await quotaOf(payer)).toBe(before + 7 * UNIT);
    expect(await topUpLogs(payer.userId!)).toBe(logs + 2);
  });

  it('refuses a bad signature with 400 and credits nothing', async () => {
    const before = await quotaOf(payer);
    const { reference } = await pay(payer, 5);
    const payload = sessionEvent('checkout.session.completed', reference);
    const wrongSecret = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other' });
    const signed = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    const tampered = payload.replace('"amount_total":1600', '"amount_total":1');
    for (const res of [
      await deliver(payload, wrongSecret),
      await deliver(payload, ''),
      await deliver(payload, 't=1,v1=deadbeef'),
      await deliver(tampered, signed),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ received: false });
    }
    expect(await quotaOf(payer)).toBe(before);
    expect(await orderOf(reference)).toMatchObject({ status: 'pending' });
  });

  it('ignores an unknown order and an order of another method', async () => {
    const before = await quotaOf(payer);
    expect((await deliver(sessionEvent('checkout.session.completed', 'ref_unknown'))).statusCode).toBe(200);
    await t.database.db.kysely
      .insertInto('top_ups')
      .values({
        user_id: payer.userId!,
        amount: 9,
        money: 9,
        trade_no: 'USR-epay-1',
        payment_method: 'alipay',
        create_time: 1,
        complete_time: 0,
        status: 'pending',
      })
      .execute();
    expect((await deliver(sessionEvent('checkout.session.completed', 'USR-epay-1'))).statusCode).toBe(200);
    expect(await orderOf('USR-epay-1')).toMatchObject({ status: 'pending' });
    expect(await quotaOf(payer)).toBe(before);
  });

  it('waits for an asynchronous payment, closes failed and expired sessions', async () => {
    const before = await quotaOf(payer);
    const slow = await pay(payer, 2);
    await deliver(sessionEvent('checkout.session.completed', slow.reference, { payment_status: 'unpaid' }));
    expect(await orderOf(slow.reference)).toMatchObject({ status: 'pending' });
    await deliver(sessionEvent('checkout.session.async_payment_succeeded', slow.reference));
    expect(await orderOf(slow.reference)).toMatchObject({ status: 'success' });
    expect(await quotaOf(payer)).toBe(before + 2 * UNIT);

    const failed = await pay(payer, 2);
    await deliver(
      sessionEvent('checkout.session.async_payment_failed', failed.reference, { payment_status: 'unpaid' }),
    );
    expect(await orderOf(failed.reference)).toMatchObject({ status: 'failed' });
    // A failed order is never credited, whatever arrives later.
    await deliver(sessionEvent('checkout.session.async_payment_succeeded', failed.reference));
    expect(await orderOf(failed.reference)).toMatchObject({ status: 'failed' });

    const lapsed = await pay(payer, 2);
    await deliver(
      sessionEvent('checkout.session.expired', lapsed.reference, { status: 'expired', payment_status: 'unpaid' }),
    );
    expect(await orderOf(lapsed.reference)).toMatchObject({ status: 'expired' });
    expect(await quotaOf(payer)).toBe(before + 2 * UNIT);
  });

  it('closes the order failed when Stripe refuses the session, and refuses a key that is not sk_ or rk_', async () => {
    mock.failNext = 400;
    const res = await payer.call('POST', '/api/user/stripe/pay', { amount: 2, payment_method: 'stripe' });
    expect(res.body).toMatchObject({ success: false, code: 'topup_checkout_failed', params: { provider: 'Stripe' } });
    const reference = String(mock.calls.at(-1)!.body.client_reference_id);
    expect(await orderOf(reference)).toMatchObject({ status: 'failed' });
    await setOption('StripeApiSecret', 'pk_test_publishable');
    const calls = mock.calls.length;
    expect(
      (await payer.call('POST', '/api/user/stripe/pay', { amount: 2, payment_method: 'stripe' })).body,
    ).toMatchObject({
      success: false,
      code: 'topup_checkout_failed',
    });
    expect(mock.calls.length).toBe(calls);
  });
});
