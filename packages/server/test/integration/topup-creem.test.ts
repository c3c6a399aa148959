import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creemSign } from '../../src/modules/topup/creem.js';
import { Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { startMockPayments, type MockPayments } from '../support/mock-payments.js';

const WEBHOOK_SECRET = 'creem_whsec_test';
const PRODUCTS = [
  { productId: 'prod_small', name: 'Small', price: 4.99, currency: 'USD', quota: 2_500_000 },
  { productId: 'prod_big', name: 'Big', price: 19.99, currency: 'USD', quota: 12_000_000 },
];

/** A checkout.completed event as Creem sends it, for the order `reference`. */
function completed(reference: string, order: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    eventType: 'checkout.completed',
    created_at: Date.now(),
    object: {
      id: 'ch_1',
      object: 'checkout',
      request_id: reference,
      order: { id: 'ord_1', amount: 499, currency: 'USD', status: 'paid', type: 'onetime', ...order },
      product: { id: 'prod_small', name: 'Small' },
      customer: { id: 'cust_1', email: 'buyer@example.com', name: 'Buyer' },
      status: 'completed',
      metadata: { reference_id: reference },
    },
  });
}

describe.each(dialects)('Creem top-up on %s', (dialect) => {
  let mock: MockPayments;
  const env: Record<string, string> = {};
  beforeAll(async () => {
    mock = await startMockPayments();
    env.CREEM_API_BASE = mock.url;
  });
  afterAll(async () => mock?.close());
  let t: TestApp, root: Client, payer: Client;
  useApp(dialect, { env, users: ['payer'] }, (app) => {
    ({
      t,
      root,
      users: [payer],
    } = app);
  });

  const setOption = async (key: string, value: string) => {
    const res = await root.call('PUT', '/api/option/', { key, value });
    expect(res.body.success, res.body.message).toBe(true);
  };
  const deliver = (payload: string, signature = creemSign(Buffer.from(payload), WEBHOOK_SECRET)) =>
    t.app.inject({
      method: 'POST',
      url: '/api/creem/webhook',
      headers: { 'content-type': 'application/json', 'creem-signature': signature },
      payload,
    });
  const pay = async (productId: string) => {
    const res = await payer.call<{ checkout_url: string; order_id: string }>('POST', '/api/user/creem/pay', {
      product_id: productId,
      payment_method: 'creem',
    });
    expect(res.body.success, res.body.message).toBe(true);
    return res.body.data!;
  };
  const quotaOf = async () => (await payer.call<{ quota: number }>('GET', '/api/user/self')).body.data!.quota;
  const orderOf = (reference: string) =>
    t.database.db.kysely.selectFrom('top_ups').selectAll().where('trade_no', '=', reference).executeTakeFirstOrThrow();
  const topUpLogs = async () =>
    Number(
      (
        await t.database.db.kysely
          .selectFrom('logs')
          .where('type', '=', 1)
          .where('user_id', '=', payer.userId!)
          .select(sql<string>`count(*)`.as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('is off until the API key and products are set; the console reads the products', async () => {
    expect((await payer.call('GET', '/api/user/topup/info')).body.data).toMatchObject({ enable_creem_topup: false });
    expect((await payer.call('POST', '/api/user/creem/pay', { product_id: 'prod_small' })).body).toMatchObject({
      success: false,
      code: 'topup_disabled',
    });
    await setOption('CreemApiKey', 'creem_test_key');
    await setOption('CreemProducts', JSON.stringify(PRODUCTS));
    await setOption('CreemWebhookSecret', WEBHOOK_SECRET);
    const info = await payer.call<{ enable_creem_topup: boolean; creem_products: string }>(
      'GET',
      '/api/user/topup/info',
    );
    expect(info.body.data!.enable_creem_topup).toBe(true);
    expect(JSON.parse(info.body.data!.creem_products)).toEqual(PRODUCTS);
  });

  it('creates a pending order for the product and starts Creem checkout', async () => {
    expect((await payer.call('POST', '/api/user/creem/pay', { product_id: 'prod_none' })).body).toMatchObject({
      success: false,
      code: 'topup_product_not_found',
    });
    const { checkout_url, order_id } = await pay('prod_small');
    expect(checkout_url).toMatch(/^https:\/\/checkout\.creem\.io\//);
    expect(order_id).toMatch(/^ref_[0-9a-f]{40}$/);
    const call = mock.calls.at(-1)!;
    expect(call.path).toBe('/v1/checkouts');
    expect(call.headers['x-api-key']).toBe('creem_test_key');
    expect(call.body).toMatchObject({ product_id: 'prod_small', request_id: order_id, metadata: { quota: '2500000' } });
    const order = await orderOf(order_id);
    expect(order).toMatchObject({ status: 'pending', amount: 2_500_000, payment_method: 'creem' });
    expect(Number(order.money)).toBeCloseTo(4.99, 5);
  });

  it("credits the product's quota once: a replay and five concurrent deliveries add nothing more", async () => {
    const before = await quotaOf();
    const logs = await topUpLogs();
    const small = await pay('prod_small');
    const payload = completed(small.order_id);
    const first = await deliver(payload);
    expect(first.statusCode).toBe(200);
    expect(await quotaOf()).toBe(before + 2_500_000);
    expect((await deliver(payload)).statusCode).toBe(200);
    expect(await quotaOf()).toBe(before + 2_500_000);

    const big = await pay('prod_big');
    const again = completed(big.order_id);
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(again)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await quotaOf()).toBe(before + 14_500_000);
    expect(await topUpLogs()).toBe(logs + 2);
    expect(await orderOf(big.order_id)).toMatchObject({ status: 'success' });
  });

  it('refuses a bad or missing signature (400) and credits nothing', async () => {
    const before = await quotaOf();
    const { order_id } = await pay('prod_small');
    const payload = completed(order_id);
    for (const res of [
      await deliver(payload, creemSign(Buffer.from(payload), 'other-secret')),
      await deliver(payload, ''),
      await deliver(payload.replace('"paid"', '"paid" '), creemSign(Buffer.from(payload), WEBHOOK_SECRET)),
    ])
      expect(res.statusCode).toBe(400);
    expect(await quotaOf()).toBe(before);
    expect(await orderOf(order_id)).toMatchObject({ status: 'pending' });
  });

  it('ignores an unknown order, an unpaid or recurring order and other events', async () => {
    const before = await quotaOf();
    const { order_id } = await pay('prod_small');
    expect((await deliver(completed('ref_unknown'))).statusCode).toBe(200);
    expect((await deliver(completed(order_id, { status: 'pending' }))).statusCode).toBe(200);
    expect((await deliver(completed(order_id, { type: 'recurring' }))).statusCode).toBe(200);
    const refund = JSON.stringify({ id: 'evt_r', eventType: 'refund.created', object: { request_id: order_id } });
    expect((await deliver(refund)).statusCode).toBe(200);
    expect((await deliver(completed(''))).statusCode).toBe(400);
    expect(await orderOf(order_id)).toMatchObject({ status: 'pending' });
    expect(await quotaOf()).toBe(before);
  });

  it('closes the order failed when Creem refuses the checkout', async () => {
    mock.failNext = 500;
    const res = await payer.call('POST', '/api/user/creem/pay', { product_id: 'prod_big', payment_method: 'creem' });
    expect(res.body).toMatchObject({ success: false, code: 'topup_checkout_failed', params: { provider: 'Creem' } });
    const reference = String(mock.calls.at(-1)!.body.request_id);
    expect(await orderOf(reference)).toMatchObject({ status: 'failed' });
    // Paid anyway (it cannot be, but a forged or late event must not credit a failed order).
    await deliver(completed(reference));
    expect(await orderOf(reference)).toMatchObject({ status: 'failed' });
  });

  it('leaves out malformed products (no id, a quota that is not a safe whole number)', async () => {
    const bad = [
      { name: 'No id', price: 1, quota: 1 },
      { productId: 'prod_huge', name: 'Huge', price: 1, quota: 2 ** 60 },
    ];
    await setOption('CreemProducts', JSON.stringify([...bad, PRODUCTS[0]]));
    const info = await payer.call<{ creem_products: string }>('GET', '/api/user/topup/info');
    expect(JSON.parse(info.body.data!.creem_products)).toEqual([PRODUCTS[0]]);
    expect((await payer.call('POST', '/api/user/creem/pay', { product_id: 'prod_huge' })).body).toMatchObject({
      success: false,
      code: 'topup_product_not_found',
    });
  });
});
