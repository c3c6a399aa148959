import { LogType, type RedemptionPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { CallResult, Client, TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

const now = () => Math.floor(Date.now() / 1000);
const HOUR = 3600;
const DAY = 86_400;

/** A refusal as new-api's console reads it: success false and the reason (the HTTP status is another test's concern). */
const refusedWith = (res: CallResult, message: string) => {
  expect(res.body.success, res.body.message).toBe(false);
  expect(res.body.message).toContain(message);
};
const ok = <T>(res: CallResult<T>): T => {
  expect(res.body.success, res.body.message).toBe(true);
  return res.body.data as T;
};

type LogRow = { type: number; content: string; quota: number; username: string };
type Binding = {
  provider_id: string;
  provider_name: string;
  provider_slug: string;
  provider_icon: string;
  provider_user_id: string;
};

/** new-api's console calls on balances, codes, check-ins, usage and bindings, answered with real behaviour. */
describe.each(dialects)('new-api console account routes on %s', (dialect) => {
  let t: TestApp, root: Client, admin: Client, admin2: Client, alice: Client, bob: Client;
  useApp(dialect, { admins: ['adm1', 'adm2'], users: ['alice', 'bob'], timeout: 60_000 }, (app) => {
    ({ t, root } = app);
    [admin, admin2] = app.admins as [Client, Client];
    [alice, bob] = app.users as [Client, Client];
  });

  const k = () => t.runtime.ctx.db.kysely;
  const quotaOf = async (c: Client) =>
    Number((await k().selectFrom('users').select('quota').where('id', '=', c.userId!).executeTakeFirstOrThrow()).quota);
  const setOption = async (key: string, value: string) => ok(await root.call('PUT', '/api/option/', { key, value }));

  describe('redemption codes', () => {
    const create = async (body: Record<string, unknown>) =>
      ok(await admin.call<string[]>('POST', '/api/redemption/', { quota: 1000, ...body }))[0]!;
    const byKey = (key: string) =>
      k().selectFrom('redemptions').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
    const get = async (key: string) =>
      ok(await admin.call<RedemptionPublic>('GET', `/api/redemption/${(await byKey(key)).id}`));

    it('carry expired_time (the expiry), taken on create and update as new-api\u2019s console sends it', async () => {
      const until = now() + DAY;
      // The console's create body: name, quota, amount, count and expired_time.
      const key = await create({ name: 'exp-a', quota: 500000, amount: 1, count: 1, expired_time: until });
      expect(await get(key)).toMatchObject({ expired_time: until, valid_until: until });
      const page = ok(await admin.call<{ items: RedemptionPublic[] }>('GET', '/api/redemption/?p=1&page_size=100'));
      expect(page.items.find((r) => r.key === key)).toMatchObject({ expired_time: until });
      const id = (await byKey(key)).id;
      ok(
        await admin.call('PUT', '/api/redemption/', {
          id,
          name: 'exp-a2',
          quota: 500000,
          amount: 1,
          count: 1,
          expired_time: until + HOUR,
        }),
      );
      expect(await get(key)).toMatchObject({ name: 'exp-a2', expired_time: until + HOUR, valid_until: until + HOUR });
      ok(await admin.call('PUT', '/api/redemption/', { id, expired_time: 0 }));
      expect((await get(key)).expired_time).toBe(0);
      refusedWith(
        await admin.call('PUT', '/api/redemption/', { id, expired_time: until, valid_until: until + 1 }),
        'must agree',
      );
      expect((await get(key)).expired_time).toBe(0);
      // Without an expiry the code never expires.
      expect((await get(await create({ name: 'exp-none', expired_time: 0 }))).expired_time).toBe(0);
    });

    it('an expired code is refused with a clear message and credits nothing', async () => {
      const key = await create({ name: 'exp-past', expired_time: now() - 5 });
      const before = await quotaOf(alice);
      refusedWith(await alice.call('POST', '/api/user/topup', { key }), 'this redemption code has expired');
      expect(await quotaOf(alice)).toBe(before);
    });

    it('DELETE /api/redemption/invalid deletes used, disabled, expired and used-up codes and answers how many', async () => {
      await admin.call('DELETE', '/api/redemption/invalid');
      const valid = await create({ name: 'inv-valid' });
      const future = await create({ name: 'inv-future', expired_time: now() + DAY });
      await create({ name: 'inv-expired', expired_time: now() - 5 });
      const disabled = await create({ name: 'inv-disabled' });
      ok(await admin.call('PUT', '/api/redemption/?status_only=true', { id: (await byKey(disabled)).id, status: 2 }));
      const used = await create({ name: 'inv-used' });
      ok(await bob.call('POST', '/api/user/topup', { key: used }));
      const gift = await create({ name: 'inv-gift', is_gift: true, max_uses: 1 });
      ok(await bob.call('POST', '/api/user/topup', { key: gift }));
      const giftId = (await byKey(gift)).id;

      expect(ok(await admin.call<number>('DELETE', '/api/redemption/invalid'))).toBe(4);
      const left = (await k().selectFrom('redemptions').select('key').where('name', 'like', 'inv-%').execute()).map(
        (r) => r.key,
      );
      expect(left.sort()).toEqual([valid, future].sort());
      expect(
        await k().selectFrom('redemption_uses').select('user_id').where('redemption_id', '=', giftId).execute(),
      ).toEqual([]);
      expect(ok(await admin.call<number>('DELETE', '/api/redemption/invalid'))).toBe(0);
    });
  });

  describe('check-in under /api/user/checkin', () => {
    it('shares the check-in service: one reward a day whichever path is used, and the month view shows it', async () => {
      await setOption('CheckInEnabled', 'true');
      await setOption('CheckInQuota', '1000');
      await setOption('CheckInMaxQuota', '0');
      const empty = ok(await alice.call('GET', '/api/user/checkin'));
      expect(empty).toEqual({
        enabled: true,
        min_quota: 1000,
        max_quota: 1000,
        stats: { total_quota: 0, total_checkins: 0, checkin_count: 0, checked_in_today: false, records: [] },
      });
      const before = await quotaOf(alice);
      const res = await alice.call<{ quota_awarded: number; checkin_date: string }>('POST', '/api/user/checkin');
      const today = ok(await alice.call<{ day: string }>('GET', '/api/user/check_in_status')).day;
      expect(ok(res)).toEqual({ quota_awarded: 1000, checkin_date: today });
      expect(await quotaOf(alice)).toBe(before + 1000);
      refusedWith(await alice.call('POST', '/api/user/checkin'), 'already checked in today');
      refusedWith(await alice.call('POST', '/api/user/check_in'), 'already checked in today');
      expect(await quotaOf(alice)).toBe(before + 1000);

      const month = ok(await alice.call('GET', `/api/user/checkin?month=${today.slice(0, 7)}`));
      expect(month).toMatchObject({
        stats: {
          total_quota: 1000,
          total_checkins: 1,
          checkin_count: 1,
          checked_in_today: true,
          records: [{ checkin_date: today, quota_awarded: 1000 }],
        },
      });
      expect(ok(await alice.call('GET', '/api/user/checkin?month=2001-02'))).toMatchObject({
        stats: { total_checkins: 1, checkin_count: 0, records: [] },
      });
      refusedWith(await alice.call('GET', '/api/user/checkin?month=2001-2'), 'month must be YYYY-MM');
      // bob's view is his own.
      expect(ok(await bob.call('GET', '/api/user/checkin'))).toMatchObject({
        stats: { total_checkins: 0, checked_in_today: false },
      });
      await setOption('CheckInEnabled', 'false');
      refusedWith(await bob.call('POST', '/api/user/checkin'), 'the administrator has not enabled check-in');
    });
  });

  describe('GET /api/data/users', () => {
    it('sums each user\u2019s hours over models, oldest hour first', async () => {
      const h = Math.floor(now() / HOUR) * HOUR - 10 * HOUR;
      const row = (c: Client, name: string, model: string, at: number, count: number) => ({
        user_id: c.userId!,
        username: name,
        model_name: model,
        created_at: at,
        count,
        token_used: count * 10,
        quota: count * 100,
      });
      await k()
        .insertInto('quota_data')
        .values([
          row(alice, 'alice', 'm-1', h, 2),
          row(alice, 'alice', 'm-2', h, 3),
          row(bob, 'bob', 'm-1', h, 1),
          row(alice, 'alice', 'm-1', h + HOUR, 4),
          row(bob, 'bob', 'm-1', h - 5 * HOUR, 9),
        ])
        .execute();
      const rows = ok(await admin.call('GET', `/api/data/users?start_timestamp=${h}&end_timestamp=${h + HOUR}`));
      expect(rows).toEqual([
        { username: 'alice', created_at: h, count: 5, token_used: 50, quota: 500 },
        { username: 'bob', created_at: h, count: 1, token_used: 10, quota: 100 },
        { username: 'alice', created_at: h + HOUR, count: 4, token_used: 40, quota: 400 },
      ]);
      refusedWith(
        await admin.call('GET', `/api/data/users?start_timestamp=${h + HOUR}&end_timestamp=${h}`),
        'must not be after end_timestamp',
      );
    });
  });

  describe('POST /api/user/manage add_quota', () => {
    const manage = (c: Client, target: Client, mode: string | undefined, value: unknown) =>
      c.call('POST', '/api/user/manage', { id: target.userId, action: 'add_quota', mode, value });
    const manageLogs = async () =>
      ok(await alice.call<{ items: LogRow[] }>('GET', `/api/log/self/?type=${LogType.Manage}&page_size=100`)).items;

    it('adds, subtracts and overrides the balance, each logged as a manage entry', async () => {
      const start = await quotaOf(alice);
      ok(await manage(root, alice, 'add', 5000));
      expect(await quotaOf(alice)).toBe(start + 5000);
      ok(await manage(admin, alice, 'subtract', 2000));
      expect(await quotaOf(alice)).toBe(start + 3000);
      refusedWith(
        await manage(admin, alice, 'subtract', start + 3001),
        'the balance is lower than the amount to subtract',
      );
      expect(await quotaOf(alice)).toBe(start + 3000);
      ok(await manage(admin, alice, 'override', 777));
      expect(await quotaOf(alice)).toBe(777);
      ok(await manage(admin, alice, 'override', 0));
      expect(await quotaOf(alice)).toBe(0);
      const logs = await manageLogs();
      expect(logs.map((l) => [l.content, l.quota])).toEqual(
        expect.arrayContaining([
          ['administrator root added 5000 quota', 5000],
          ['administrator adm1 subtracted 2000 quota', -2000],
          ['administrator adm1 set the balance to 777 quota', 777],
        ]),
      );
      expect(logs).toHaveLength(4);
      // The administrators' audit log names the action and keeps mode and value.
      const audit = await k()
        .selectFrom('audit_logs')
        .select(['actor_name', 'detail'])
        .where('action', '=', 'user.add_quota')
        .where('target_id', '=', String(alice.userId))
        .orderBy('id')
        .execute();
      expect(audit.map((a) => a.actor_name)).toEqual(['root', 'adm1', 'adm1', 'adm1']);
      expect(audit[1]!.detail).toContain('subtract');
      expect(audit[1]!.detail).toContain('2000');
    });

    it('refuses amounts that are not positive, unknown modes, and users at or above the caller\u2019s level', async () => {
      const start = await quotaOf(bob);
      refusedWith(await manage(admin, bob, 'add', 0), 'the amount must be greater than 0');
      refusedWith(await manage(admin, bob, 'subtract', 0), 'the amount must be greater than 0');
      refusedWith(await manage(admin, bob, 'add', -5), 'value must not be negative');
      refusedWith(await manage(admin, bob, 'double', 5), 'mode must be add, subtract or override');
      refusedWith(await manage(admin, bob, undefined, 5), 'mode must be add, subtract or override');
      refusedWith(await manage(admin, admin2, 'add', 5), 'same or a higher permission level');
      refusedWith(await manage(admin, root, 'add', 5), 'same or a higher permission level');
      const denied = await manage(alice, bob, 'add', 5);
      expect(denied.status).toBe(403);
      expect(denied.body.success).toBe(false);
      expect(await quotaOf(bob)).toBe(start);
      // The other actions keep their form: an unknown action is still refused.
      refusedWith(await admin.call('POST', '/api/user/manage', { id: bob.userId, action: 'explode' }), 'action');
    });

    it('20 parallel additions are each applied once', async () => {
      const start = await quotaOf(bob);
      const results = await Promise.all(Array.from({ length: 20 }, () => manage(root, bob, 'add', 100)));
      for (const r of results) ok(r);
      expect(await quotaOf(bob)).toBe(start + 2000);
    });
  });

  describe('OAuth bindings', () => {
    const bind = async (c: Client, provider: string, field: 'github_id' | 'telegram_id', id: string) => {
      await k()
        .insertInto('user_identities')
        .values({ provider, external_id: id, user_id: c.userId!, created_at: now() })
        .execute();
      await k()
        .updateTable('users')
        .set({ [field]: id })
        .where('id', '=', c.userId!)
        .execute();
    };
    const own = async (c: Client) => ok(await c.call<Binding[]>('GET', '/api/user/oauth/bindings'));

    it('list the caller\u2019s bound providers, and a user\u2019s for administrators above them', async () => {
      expect(await own(alice)).toEqual([]);
      await bind(alice, 'github', 'github_id', 'gh-alice');
      await bind(alice, 'telegram', 'telegram_id', 'tg-alice');
      const expected = [
        {
          provider_id: 'github',
          provider_name: 'GitHub',
          provider_slug: 'github',
          provider_icon: '',
          provider_user_id: 'gh-alice',
        },
        {
          provider_id: 'telegram',
          provider_name: 'Telegram',
          provider_slug: 'telegram',
          provider_icon: '',
          provider_user_id: 'tg-alice',
        },
      ];
      expect(await own(alice)).toEqual(expected);
      expect(await own(bob)).toEqual([]);
      expect(ok(await admin.call('GET', `/api/user/${alice.userId}/oauth/bindings`))).toEqual(expected);
      expect(ok(await root.call('GET', `/api/user/${admin2.userId}/oauth/bindings`))).toEqual([]);
      refusedWith(
        await admin.call('GET', `/api/user/${admin2.userId}/oauth/bindings`),
        'no permission to manage this user',
      );
      refusedWith(
        await admin.call('GET', `/api/user/${root.userId}/oauth/bindings`),
        'no permission to manage this user',
      );
    });

    it('unbind releases the account, but never a user\u2019s last way to sign in', async () => {
      refusedWith(await alice.call('DELETE', '/api/user/oauth/bindings/discord'), 'unknown provider: discord');
      refusedWith(await alice.call('DELETE', '/api/user/oauth/bindings/oidc'), 'no OIDC account is bound');
      ok(await alice.call('DELETE', '/api/user/oauth/bindings/github'));
      expect((await own(alice)).map((b) => b.provider_id)).toEqual(['telegram']);
      expect(
        await k()
          .selectFrom('user_identities')
          .select('user_id')
          .where('provider', '=', 'github')
          .where('external_id', '=', 'gh-alice')
          .execute(),
      ).toEqual([]);
      // alice has no email address: Telegram is now her only third-party sign-in and stays.
      refusedWith(await alice.call('DELETE', '/api/user/oauth/bindings/telegram'), 'the only way to sign in');
      refusedWith(
        await admin.call('DELETE', `/api/user/${alice.userId}/oauth/bindings/telegram`),
        'the only way to sign in',
      );
      await k().updateTable('users').set({ email: 'alice@example.com' }).where('id', '=', alice.userId!).execute();
      refusedWith(
        await admin.call('DELETE', `/api/user/${admin2.userId}/oauth/bindings/telegram`),
        'no permission to manage this user',
      );
      ok(await admin.call('DELETE', `/api/user/${alice.userId}/oauth/bindings/telegram`));
      expect(await own(alice)).toEqual([]);
      const row = await k()
        .selectFrom('users')
        .select(['github_id', 'telegram_id'])
        .where('id', '=', alice.userId!)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ github_id: '', telegram_id: '' });
      // The released account can be bound by someone else now.
      await bind(bob, 'github', 'github_id', 'gh-alice');
      expect((await own(bob)).map((b) => b.provider_user_id)).toEqual(['gh-alice']);
    });

    it('an administrator clears a binding by type (new-api\u2019s /api/user/:id/bindings/:type), email included', async () => {
      // alice: email only now, which is kept while it is her only way to recover the account.
      refusedWith(
        await admin.call('DELETE', `/api/user/${alice.userId}/bindings/email`),
        'the only way to recover this account',
      );
      await bind(alice, 'telegram', 'telegram_id', 'tg-alice-2');
      ok(await admin.call('DELETE', `/api/user/${alice.userId}/bindings/email`));
      refusedWith(await admin.call('DELETE', `/api/user/${alice.userId}/bindings/email`), 'no email address is bound');
      refusedWith(await admin.call('DELETE', `/api/user/${alice.userId}/bindings/telegram`), 'the only way to sign in');
      await bind(alice, 'github', 'github_id', 'gh-alice-2');
      ok(await admin.call('DELETE', `/api/user/${alice.userId}/bindings/telegram`));
      expect((await own(alice)).map((b) => b.provider_id)).toEqual(['github']);
      expect(
        await k()
          .selectFrom('users')
          .select(['email', 'telegram_id'])
          .where('id', '=', alice.userId!)
          .executeTakeFirstOrThrow(),
      ).toEqual({ email: '', telegram_id: '' });
      refusedWith(
        await admin.call('DELETE', `/api/user/${root.userId}/bindings/email`),
        'no permission to manage this user',
      );
      expect((await alice.call('DELETE', `/api/user/${bob.userId}/bindings/github`)).status).toBe(403);
    });
  });
});
