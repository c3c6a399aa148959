import { ErrorCode, QUOTA_MAX } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

/** How far below QUOTA_MAX the user's balance is set before each credit. */
const HEADROOM = 10;

/**
 * No balance passes QUOTA_MAX (2^53 - 1) on any path that raises it (issue 31: "a balance can be pushed past 2^53
 * by add_quota"): each credit is refused with a clear message, atomically in its statement, and changes nothing.
 */
describe.each(dialects)('balances stay within QUOTA_MAX on %s', (dialect) => {
  let t: TestApp, root: Client, user: Client;
  useApp(dialect, { users: ['rich-user'] }, (app) => {
    ({ t, root } = app);
    [user] = app.users as [Client];
  });

  const k = () => t.runtime.ctx.db.kysely;
  const quota = async () =>
    Number(
      (await k().selectFrom('users').select('quota').where('id', '=', user.userId!).executeTakeFirstOrThrow()).quota,
    );
  const setBalance = async (q: number) => {
    await k().updateTable('users').set({ quota: q }).where('id', '=', user.userId!).execute();
  };
  const refusedAsTooLarge = (res: { body: { success: boolean; message: string } }) => {
    expect(res.body.success).toBe(false);
    expect(res.body.message).toMatch(new RegExp(`${QUOTA_MAX}`));
    expect((res.body as { code?: string }).code ?? ErrorCode.InputTooLarge).toBe(ErrorCode.InputTooLarge);
  };

  it('add_quota refuses to add past QUOTA_MAX, and reaches it exactly', async () => {
    await setBalance(QUOTA_MAX - HEADROOM);
    refusedAsTooLarge(
      await root.call('POST', '/api/user/manage', {
        id: user.userId,
        action: 'add_quota',
        mode: 'add',
        value: HEADROOM + 1,
      }),
    );
    expect(await quota()).toBe(QUOTA_MAX - HEADROOM);
    expect(
      (
        await root.call('POST', '/api/user/manage', {
          id: user.userId,
          action: 'add_quota',
          mode: 'add',
          value: HEADROOM,
        })
      ).body.success,
    ).toBe(true);
    expect(await quota()).toBe(QUOTA_MAX);
  });

  it('refuses balances past QUOTA_MAX, fractions and negatives on add_quota override and the user edit', async () => {
    await setBalance(1000);
    for (const value of [1e300, QUOTA_MAX + 1, 1.5, -5_000_000]) {
      const res = await root.call('POST', '/api/user/manage', {
        id: user.userId,
        action: 'add_quota',
        mode: 'override',
        value,
      });
      expect(res.body.success, String(value)).toBe(false);
      const edit = await root.call('PUT', '/api/user/', { id: user.userId, quota: value });
      expect(edit.body.success, String(value)).toBe(false);
    }
    expect(await quota()).toBe(1000);
  });

  it('a redemption code cannot push a balance past QUOTA_MAX: refused, the code stays unused', async () => {
    await setBalance(QUOTA_MAX - HEADROOM);
    const created = await root.call<string[]>('POST', '/api/redemption/', { name: 'big', quota: 100, count: 1 });
    const code = created.body.data![0]!;
    refusedAsTooLarge(await user.call('POST', '/api/user/topup', { key: code }));
    expect(await quota()).toBe(QUOTA_MAX - HEADROOM);
    const row = await k()
      .selectFrom('redemptions')
      .select(['status', 'used_count'])
      .where('key', '=', code)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 1, used_count: 0 });
  });

  it('a top-up order cannot push a balance past QUOTA_MAX: refused, the order stays pending', async () => {
    await setBalance(QUOTA_MAX - HEADROOM);
    await k()
      .insertInto('top_ups')
      .values({
        user_id: user.userId!,
        amount: 1,
        money: 1,
        trade_no: 'CAP-ORDER',
        payment_method: 'alipay',
        create_time: Math.floor(Date.now() / 1000),
        complete_time: 0,
        status: 'pending',
      })
      .execute();
    refusedAsTooLarge(await root.call('POST', '/api/user/topup/complete', { trade_no: 'CAP-ORDER' }));
    expect(await quota()).toBe(QUOTA_MAX - HEADROOM);
    expect(
      (await k().selectFrom('top_ups').select('status').where('trade_no', '=', 'CAP-ORDER').executeTakeFirstOrThrow())
        .status,
    ).toBe('pending');
  });

  it('a top-up amount worth more than QUOTA_MAX is refused before an order exists', async () => {
    const perUnit = 1e9;
    expect((await root.call('PUT', '/api/option/', { key: 'QuotaPerUnit', value: String(perUnit) })).body.success).toBe(
      true,
    );
    try {
      const units = Math.ceil(QUOTA_MAX / perUnit) + 1;
      const res = await user.call('POST', '/api/user/amount', { amount: units });
      expect(res.body.success).toBe(false);
      expect((res.body as { code?: string }).code ?? ErrorCode.InputTooLarge).toBe(ErrorCode.InputTooLarge);
      expect(
        (await user.call('POST', '/api/user/amount', { amount: Math.floor(QUOTA_MAX / perUnit) })).body.success,
      ).toBe(true);
    } finally {
      await root.call('PUT', '/api/option/', { key: 'QuotaPerUnit', value: '500000' });
    }
  });

  it('a token limit stays within QUOTA_MAX', async () => {
    const res = await user.call('POST', '/api/token/', { name: 'huge', remain_quota: QUOTA_MAX + 1 });
    expect(res.body.success).toBe(false);
    expect((await user.call('POST', '/api/token/', { name: 'max', remain_quota: QUOTA_MAX })).body.success).toBe(true);
  });
});
