import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { epaySign, epayVerify } from '../../src/modules/topup/epay.js';
import { Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

const EPAY_KEY = 'test-epay-key-123';
const UNIT = 500000;

interface PayAnswer {
  success: boolean;
  message: string;
  data: Record<string, string>;
  url: string;
}
interface Record_ {
  trade_no: string;
  status: string;
  amount: number;
  money: number;
  user_id: number;
  payment_method: string;
  complete_time: number;
}

describe.each(dialects)('online top-up (Epay) on %s', (dialect) => {
  let t: TestApp, root: Client, payer: Client, vip: Client;
  useApp(dialect, { users: ['payer', 'vipper'] }, async (app) => {
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
    await setOption('PayAddress', 'https://pay.example.com/');
    await setOption('EpayId', '1001');
    await setOption('EpayKey', EPAY_KEY);
    await setOption('ServerAddress', 'https://gw.example.com');
    await setOption('Price', '7.3');
    await setOption('MinTopUp', '2');
    await setOption('TopupGroupRatio', JSON.stringify({ default: 1, vip: 0.8 }));
  };
  const pay = async (c: Client, amount: number, payment_method = 'zfb') => {
    const res = await c.call('POST', '/api/user/pay', { amount, payment_method });
    return res.body as unknown as PayAnswer;
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
  const notifyGet = (params: Record<string, string>) =>
    t.app.inject({ method: 'GET', url: `/api/user/epay/notify?${new URLSearchParams(params).toString()}` });
  const quotaOf = async (c: Client) => (await c.call<{ quota: number }>('GET', '/api/user/self')).body.data!.quota;
  const sums = async () => {
    const k = t.database.db.kysely;
    const users = await k
      .selectFrom('users')
      .select(sql<string>`sum(quota)`.as('q'))
      .executeTakeFirstOrThrow();
    const logs = await k
      .selectFrom('logs')
      .where('type', '=', 1)
      .select([sql<string>`coalesce(sum(quota), 0)`.as('q'), sql<string>`count(*)`.as('n')])
      .executeTakeFirstOrThrow();
    return { users: Number(users.q), logs: Number(logs.q), logCount: Number(logs.n) };
  };

  it('says top-up is off until PayAddress, EpayId and EpayKey are set', async () => {
    const info = await payer.call<{ enable_online_topup: boolean }>('GET', '/api/user/topup/info');
    expect(info.body.data!.enable_online_topup).toBe(false);
    const res = await payer.call('POST', '/api/user/pay', { amount: 10, payment_method: 'zfb' });
    expect(res.body).toMatchObject({ success: false, message: 'the administrator has not enabled online top-up' });
    await configure();
    const on = await payer.call<{
      enable_online_topup: boolean;
      min_topup: number;
      group_ratio: number;
      amount_options: number[];
    }>('GET', '/api/user/topup/info');
    expect(on.body.data).toMatchObject({
      enable_online_topup: true,
      min_topup: 2,
      group_ratio: 1,
      amount_options: [5, 10, 20, 50, 100, 200, 500],
    });
  });

  it('prices Price × amount × the group top-up ratio exactly to the cent, with the minimum', async () => {
    expect((await payer.call('POST', '/api/user/amount', { amount: 10 })).body).toEqual({
      success: true,
      message: 'success',
      data: '73.00',
    });
    expect((await vip.call('POST', '/api/user/amount', { amount: 10 })).body.data).toBe('58.40');
    // 7.3 × 3 × 0.8 = 17.52 (binary floating point would give 17.519999…).
    expect((await vip.call('POST', '/api/user/amount', { amount: 3 })).body.data).toBe('17.52');
    expect((await payer.call('POST', '/api/user/amount', { amount: 1 })).body).toMatchObject({
      success: false,
      message: 'the top-up amount cannot be less than 2',
    });
    const frac = await payer.call('POST', '/api/user/amount', { amount: 2.5 });
    expect(frac.body.message).toBe('invalid body: "amount" amount must be a whole number');
    const bad = await payer.call('POST', '/api/user/pay', { amount: 10, payment_method: 'paypal' });
    expect(bad.body.message).toMatch(/payment_method must be zfb \(Alipay\) or wx \(WeChat Pay\)/);
  });

  it('creates a pending order and answers the signed Epay form', async () => {
    const res = await pay(vip, 10, 'wx');
    expect(res.success).toBe(true);
    expect(res.url).toBe('https://pay.example.com/submit.php');
    expect(res.data).toMatchObject({
      pid: '1001',
      type: 'wxpay',
      notify_url: 'https://gw.example.com/api/user/epay/notify',
      return_url: 'https://gw.example.com/app/wallet',
      name: 'TUC10',
      money: '58.40',
      sign_type: 'MD5',
    });
    expect(res.data.out_trade_no).toMatch(new RegExp(`^USR${vip.userId}NO`));
    expect(epayVerify(res.data, EPAY_KEY)).toBe(true);
    const other = await pay(vip, 10, 'wx');
    expect(other.data.out_trade_no).not.toBe(res.data.out_trade_no);
    const list = await vip.call<{ items: Record_[]; total: number }>('GET', '/api/user/topup/self?p=1&page_size=10');
    expect(list.body.data!.total).toBe(2);
    expect(list.body.data!.items[0]).toMatchObject({
      trade_no: other.data.out_trade_no,
      status: 'pending',
      amount: 10,
      money: 58.4,
      payment_method: 'wxpay',
      complete_time: 0,
    });
  });

  it('credits a paid order exactly once when the same notify arrives 20 times at once; the relay balance follows', async () => {
    const order = await pay(payer, 10);
    const before = await sums();
    const quotaBefore = await quotaOf(payer);
    // The relay holds the balance in memory (or Redis): it must learn the credit.
    const ledger = t.runtime.ctx.relay.ledger;
    expect(await ledger.available('users', payer.userId!)).toBe(quotaBefore);
    const params = notifyParams(order.data);
    const answers = await Promise.all(Array.from({ length: 20 }, () => notifyGet(params)));
    expect(answers.map((a) => a.body)).toEqual(Array(20).fill('success'));
    expect(await quotaOf(payer)).toBe(quotaBefore + 10 * UNIT);
    expect(await ledger.available('users', payer.userId!)).toBe(quotaBefore + 10 * UNIT);
    const after = await sums();
    expect(after.users - before.users).toBe(10 * UNIT);
    expect(after.logs - before.logs).toBe(10 * UNIT);
    expect(after.logCount - before.logCount).toBe(1);
    const rec = (
      await payer.call<{ items: Record_[] }>('GET', `/api/user/topup/self?keyword=${order.data.out_trade_no}`)
    ).body.data!.items;
    expect(rec).toHaveLength(1);
    expect(rec[0]!.status).toBe('success');
    expect(rec[0]!.complete_time).toBeGreaterThan(0);
    const log = await payer.call<{ items: { type: number; quota: number; content: string }[] }>(
      'GET',
      '/api/log/self/?type=1&p=1&page_size=10',
    );
    expect(log.body.data!.items[0]).toMatchObject({
      type: 1,
      quota: 10 * UNIT,
      content: 'online top-up succeeded, amount: $10.00, paid: 73.00',
    });
    // A late duplicate is acknowledged and changes nothing.
    expect((await notifyGet(params)).body).toBe('success');
    expect(await quotaOf(payer)).toBe(quotaBefore + 10 * UNIT);
  });

  it('accepts the notify as a POST form too', async () => {
    const order = await pay(vip, 5);
    const quotaBefore = await quotaOf(vip);
    const body = new URLSearchParams(notifyParams(order.data)).toString();
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/user/epay/notify',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: body,
      });
    const answers = await Promise.all([send(), send(), send()]);
    expect(answers.map((a) => a.body)).toEqual(['success', 'success', 'success']);
    expect(await quotaOf(vip)).toBe(quotaBefore + 5 * UNIT);
  });

  it('refuses a bad signature, another merchant key or a changed amount, and credits nothing', async () => {
    const order = await pay(payer, 20);
    const before = await sums();
    const forged = notifyParams(order.data, 'not-the-key');
    expect((await notifyGet(forged)).body).toBe('fail');
    const tampered = { ...notifyParams(order.data), money: '0.01' };
    expect((await notifyGet(tampered)).body).toBe('fail');
    // Correctly signed, but for less money than the order: refused too.
    expect((await notifyGet(notifyParams(order.data, EPAY_KEY, { money: '1.00' }))).body).toBe('fail');
    expect((await notifyGet(notifyParams(order.data, EPAY_KEY, { out_trade_no: 'USR9NOunknown1' }))).body).toBe('fail');
    expect((await notifyGet({})).body).toBe('fail');
    // Signed but not paid yet: acknowledged, nothing credited.
    expect((await notifyGet(notifyParams(order.data, EPAY_KEY, { trade_status: 'WAIT_BUYER_PAY' }))).body).toBe(
      'success',
    );
    expect(await sums()).toEqual(before);
    const rec = (
      await payer.call<{ items: Record_[] }>('GET', `/api/user/topup/self?keyword=${order.data.out_trade_no}`)
    ).body.data!.items[0]!;
    expect(rec.status).toBe('pending');
  });

  it('lets an administrator list every order and complete a pending one once', async () => {
    expect((await payer.call('GET', '/api/user/topup')).status).toBe(403);
    const all = await root.call<{ items: Record_[]; total: number }>('GET', '/api/user/topup?p=1&page_size=100');
    const users = new Set(all.body.data!.items.map((r) => r.user_id));
    expect(users).toEqual(new Set([payer.userId, vip.userId]));
    const own = await payer.call<{ items: Record_[] }>('GET', '/api/user/topup/self?page_size=100');
    expect(own.body.data!.items.every((r) => r.user_id === payer.userId)).toBe(true);
    const order = await pay(payer, 2);
    const quotaBefore = await quotaOf(payer);
    const done = await Promise.all(
      [1, 2, 3].map(() => root.call('POST', '/api/user/topup/complete', { trade_no: order.data.out_trade_no })),
    );
    expect(done.filter((r) => r.body.success)).toHaveLength(1);
    expect(done.filter((r) => !r.body.success).map((r) => r.body.message)).toEqual([
      'the top-up order is not pending',
      'the top-up order is not pending',
    ]);
    expect(await quotaOf(payer)).toBe(quotaBefore + 2 * UNIT);
    expect((await root.call('POST', '/api/user/topup/complete', { trade_no: 'nope' })).body.message).toBe(
      'top-up order not found',
    );
  });

  it('marks orders left unpaid for an hour expired; a paid notify arriving later still credits one once', async () => {
    const stale = await pay(payer, 2);
    const fresh = await pay(payer, 3);
    const now = Math.floor(Date.now() / 1000);
    // Back-date the first order past the hour an order stays pending.
    await t.database.db.kysely
      .updateTable('top_ups')
      .set({ create_time: now - 3601 })
      .where('trade_no', '=', stale.data.out_trade_no!)
      .execute();
    expect(await t.runtime.topUpExpiry!.runOnce(now)).toBe(1);
    expect(await t.runtime.topUpExpiry!.runOnce(now)).toBe(0);
    const statusOf = async (tradeNo: string) =>
      (await payer.call<{ items: Record_[] }>('GET', `/api/user/topup/self?keyword=${tradeNo}`)).body.data!.items[0]!
        .status;
    expect(await statusOf(stale.data.out_trade_no!)).toBe('expired');
    expect(await statusOf(fresh.data.out_trade_no!)).toBe('pending');
    const before = await quotaOf(payer);
    const notices = await Promise.all([1, 2].map(() => notifyGet(notifyParams(stale.data))));
    expect(notices.map((r) => r.body)).toEqual(['success', 'success']);
    expect(await quotaOf(payer)).toBe(before + 2 * UNIT);
    expect(await statusOf(stale.data.out_trade_no!)).toBe('success');
  });

  it('with the quota shown in tokens, amounts are typed in tokens and must be whole units', async () => {
    await setOption('DisplayInCurrencyEnabled', 'false');
    try {
      const info = await payer.call<{ min_topup: number; amount_options: number[] }>('GET', '/api/user/topup/info');
      expect(info.body.data).toMatchObject({
        min_topup: 2 * UNIT,
        amount_options: [5, 10, 20, 50, 100, 200, 500].map((a) => a * UNIT),
      });
      expect((await payer.call('POST', '/api/user/amount', { amount: 3 * UNIT })).body).toEqual({
        success: true,
        message: 'success',
        data: '21.90',
      });
      expect((await payer.call('POST', '/api/user/amount', { amount: 3 * UNIT + 1 })).body).toMatchObject({
        success: false,
        message: `the top-up amount must be a multiple of ${UNIT} (one unit)`,
      });
      expect((await payer.call('POST', '/api/user/amount', { amount: UNIT })).body).toMatchObject({
        success: false,
        message: `the top-up amount cannot be less than ${2 * UNIT}`,
      });
      const order = await pay(payer, 3 * UNIT);
      expect(order.data.money).toBe('21.90');
      const before = await quotaOf(payer);
      expect((await notifyGet(notifyParams(order.data))).body).toBe('success');
      expect(await quotaOf(payer)).toBe(before + 3 * UNIT);
      const rec = (
        await payer.call<{ items: Record_[] }>('GET', `/api/user/topup/self?keyword=${order.data.out_trade_no}`)
      ).body.data!.items[0]!;
      expect(rec).toMatchObject({ status: 'success', amount: 3, money: 21.9 });
    } finally {
      await setOption('DisplayInCurrencyEnabled', 'true');
    }
  });

  it('refuses to create orders once the merchant key is cleared', async () => {
    await setOption('EpayKey', '');
    expect((await pay(payer, 10)).message).toBe('the administrator has not enabled online top-up');
    await setOption('EpayKey', EPAY_KEY);
  });
});
