import type { SubscriptionPlan } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { epaySign } from '../../src/modules/topup/epay.js';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused, planPaymentReads, setOption } from '../support/plan-payments.js';
import { createPlan } from '../support/subscriptions.js';

const EPAY_KEY = 'epay-plan-key';

interface EpayAnswer {
  success: boolean;
  message: string;
  data: Record<string, string>;
  url: string;
}

describe.each(dialects)('paying for plans with Epay on %s', (dialect) => {
  let t: TestApp, root: Client, buyer: Client;
  let reads: ReturnType<typeof planPaymentReads>;
  let pro: SubscriptionPlan;
  useApp(dialect, { users: ['epay-buyer'] }, async (app) => {
    ({
      t,
      root,
      users: [buyer],
    } = app);
    reads = planPaymentReads(t);
    pro = await createPlan(root, { title: 'Pro', price_amount: 9.99 });
  });

  const pay = async (planId: number, payment_method = 'zfb') => {
    const res = await buyer.call('POST', '/api/subscription/epay/pay', { plan_id: planId, payment_method });
    return res.body as unknown as EpayAnswer;
  };
  /** What Epay sends for a paid order, signed with the merchant key (or another one). */
  const notifyParams = (fields: Record<string, string>, key = EPAY_KEY, overrides: Record<string, string> = {}) => {
    const p: Record<string, string> = {
      pid: fields.pid!,
      trade_no: `EP${fields.out_trade_no}`,
      out_trade_no: fields.out_trade_no!,
      type: fields.type!,
      name: fields.name!,
      money: fields.money!,
      trade_status: 'TRADE_SUCCESS',
      ...overrides,
    };
    return { ...p, sign: epaySign(p, key), sign_type: 'MD5' };
  };
  const get = (path: string, params: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `${path}?${new URLSearchParams(params).toString()}` });
  const notify = async (params: Record<string, string>) => (await get('/api/subscription/epay/notify', params)).body;

  it('refuses while Epay is not set up, then for an unknown method, a plan not on sale, a price too low', async () => {
    const orders = await reads.orderCount();
    expectRefused(
      await buyer.call('POST', '/api/subscription/epay/pay', { plan_id: pro.id, payment_method: 'zfb' }),
      'not set up Epay',
    );
    await setOption(root, 'PayAddress', 'https://pay.example.com/');
    await setOption(root, 'EpayId', '1001');
    await setOption(root, 'EpayKey', EPAY_KEY);
    await setOption(root, 'ServerAddress', 'https://gw.example.com');
    expectRefused(
      await buyer.call('POST', '/api/subscription/epay/pay', { plan_id: pro.id, payment_method: 'bitcoin' }),
      'payment method does not exist',
    );
    const off = await createPlan(root, { title: 'Off', enabled: false });
    expectRefused(
      await buyer.call('POST', '/api/subscription/epay/pay', { plan_id: off.id, payment_method: 'zfb' }),
      'not on sale',
    );
    const free = await createPlan(root, { title: 'Free', price_amount: 0 });
    expectRefused(
      await buyer.call('POST', '/api/subscription/epay/pay', { plan_id: free.id, payment_method: 'zfb' }),
      'too low',
    );
    expect(await reads.orderCount()).toBe(orders);
  });

  it('answers the signed form for submit.php and opens a pending Epay order', async () => {
    const answer = await pay(pro.id, 'wx');
    expect(answer.success, answer.message).toBe(true);
    expect(answer.url).toBe('https://pay.example.com/submit.php');
    expect(answer.data).toMatchObject({
      pid: '1001',
      type: 'wxpay',
      money: '9.99',
      name: 'SUB:Pro',
      notify_url: 'https://gw.example.com/api/subscription/epay/notify',
      return_url: 'https://gw.example.com/api/subscription/epay/return',
      sign_type: 'MD5',
    });
    expect(answer.data.sign).toBe(epaySign(answer.data, EPAY_KEY));
    expect(answer.data.out_trade_no).toMatch(new RegExp(`^SUBUSR${buyer.userId}NO[A-Za-z0-9]{6}\\d+$`));
    const order = await reads.order(answer.data.out_trade_no!);
    expect(order).toMatchObject({ status: 'pending', payment_method: 'wxpay', payment_provider: 'epay' });
  });

  it('grants the plan once for a signed notify: a replay and ten concurrent ones grant nothing more', async () => {
    const held = await reads.held(buyer.userId!, pro.id);
    const { data } = await pay(pro.id);
    const params = notifyParams(data);
    expect(await notify(params)).toBe('success');
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 1);
    expect(await notify(params)).toBe('success');
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 1);
    const order = await reads.order(data.out_trade_no!);
    expect(order.status).toBe('success');
    expect(JSON.parse(order.provider_payload)).toMatchObject({ trade_no: `EP${data.out_trade_no}`, money: '9.99' });
    expect(order.provider_payload).not.toContain(params.sign);

    const second = await pay(pro.id);
    const answers = await Promise.all(Array.from({ length: 10 }, () => notify(notifyParams(second.data))));
    expect(new Set(answers)).toEqual(new Set(['success']));
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 2);
    expect(await reads.sources(buyer.userId!, pro.id)).toEqual(Array.from({ length: held + 2 }, () => 'order'));
  });

  it('accepts the notify as a POST form too', async () => {
    const held = await reads.held(buyer.userId!, pro.id);
    const { data } = await pay(pro.id);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/subscription/epay/notify',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(notifyParams(data)).toString(),
    });
    expect(res.body).toBe('success');
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 1);
  });

  it('refuses a bad signature, other money, an unknown order; waits on an unpaid status', async () => {
    const held = await reads.held(buyer.userId!, pro.id);
    const { data } = await pay(pro.id);
    expect(await notify(notifyParams(data, 'not-the-key'))).toBe('fail');
    expect(await notify({ ...notifyParams(data), money: '0.01' })).toBe('fail');
    expect(await notify(notifyParams(data, EPAY_KEY, { money: '0.01' }))).toBe('fail');
    expect(await notify(notifyParams(data, EPAY_KEY, { out_trade_no: 'SUBUSR1NOunknown1' }))).toBe('fail');
    expect(await notify({})).toBe('fail');
    expect(await notify(notifyParams(data, EPAY_KEY, { trade_status: 'WAIT_BUYER_PAY' }))).toBe('success');
    expect(await reads.order(data.out_trade_no!)).toMatchObject({ status: 'pending' });
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held);
  });

  it("is never a wallet top-up: the wallet's notify does not know a plan order", async () => {
    const held = await reads.held(buyer.userId!, pro.id);
    const quota = (await buyer.call<{ quota: number }>('GET', '/api/user/self')).body.data!.quota;
    const { data } = await pay(pro.id);
    expect((await get('/api/user/epay/notify', notifyParams(data))).body).toBe('fail');
    expect(await reads.order(data.out_trade_no!)).toMatchObject({ status: 'pending' });
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held);
    expect((await buyer.call<{ quota: number }>('GET', '/api/user/self')).body.data!.quota).toBe(quota);
  });

  it("the buyer's return completes a paid order (once) and redirects to the wallet", async () => {
    const held = await reads.held(buyer.userId!, pro.id);
    const { data } = await pay(pro.id);
    const back = await get('/api/subscription/epay/return', notifyParams(data));
    expect(back.statusCode).toBe(302);
    expect(back.headers.location).toBe('https://gw.example.com/app/wallet?pay=success');
    expect(await notify(notifyParams(data))).toBe('success');
    expect(await reads.held(buyer.userId!, pro.id)).toBe(held + 1);
    const forged = await get('/api/subscription/epay/return', notifyParams(data, 'not-the-key'));
    expect(forged.headers.location).toBe('https://gw.example.com/app/wallet?pay=fail');
    const waiting = await get('/api/subscription/epay/return', notifyParams(data, EPAY_KEY, { trade_status: 'WAIT' }));
    expect(waiting.headers.location).toBe('https://gw.example.com/app/wallet?pay=pending');
  });

  it('refuses past the purchase cap before an order is made', async () => {
    const once = await createPlan(root, { title: 'Once', max_purchase_per_user: 1 });
    const { data } = await pay(once.id);
    expect(await notify(notifyParams(data))).toBe('success');
    expect(await reads.held(buyer.userId!, once.id)).toBe(1);
    const orders = await reads.orderCount();
    expectRefused(
      await buyer.call('POST', '/api/subscription/epay/pay', { plan_id: once.id, payment_method: 'zfb' }),
      'reached the purchase limit',
    );
    expect(await reads.orderCount()).toBe(orders);
  });
});
