import type { CheckInStatus, LogRow } from '@tollway/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayIn } from '../../src/lib/time.js';
import { createUserClient, setupRoot, startTestApp, type Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';
import { expectRefused } from '../support/refusal.js';

describe.each(dialects)('daily check-in on %s', (dialect) => {
  let t: TestApp, root: Client;
  useApp(dialect, {}, (app) => ({ t, root } = app));

  const setOption = async (key: string, value: string) =>
    expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
  const status = async (c: Client) => (await c.call<CheckInStatus>('GET', '/api/user/check_in_status')).body.data!;
  const quotaOf = async (id: number) =>
    Number(
      (await t.database.db.kysely.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow())
        .quota,
    );
  const checkInLogs = async (c: Client) =>
    (await c.call<{ items: LogRow[] }>('GET', '/api/log/self/?type=5&page_size=100')).body.data!.items;

  it('is refused with a clear message while CheckInEnabled is off', async () => {
    await setOption('CheckInEnabled', 'false');
    const user = await createUserClient(t.app, root, 'ci-off');
    expect(await status(user)).toMatchObject({ enabled: false, can_check_in: false, checked_in: false, quota: 0 });
    const res = await user.call('POST', '/api/user/check_in');
    expectRefused(res);
    expect(res.body).toMatchObject({ success: false, message: 'the administrator has not enabled check-in' });
    expect(await quotaOf(user.userId!)).toBe(0);
  });

  it('credits the fixed reward once a day, logs it as type 5 and the relay balance follows at once', async () => {
    await setOption('CheckInEnabled', 'true');
    await setOption('CheckInQuota', '1500');
    await setOption('CheckInMaxQuota', '0');
    const user = await createUserClient(t.app, root, 'ci-fixed');
    await root.call('PUT', '/api/user/', { id: user.userId, quota: 10_000 });
    const ledger = t.runtime.ctx.relay.ledger;
    expect(await ledger.available('users', user.userId!)).toBe(10_000);
    const before = await status(user);
    expect(before).toEqual({
      enabled: true,
      can_check_in: true,
      checked_in: false,
      quota: 0,
      min_quota: 1500,
      max_quota: 1500,
      day: dayIn(t.config.timeZone),
    });

    const res = await user.call<{ quota: number }>('POST', '/api/user/check_in');
    expect(res.body).toEqual({ success: true, message: 'check-in success', data: { quota: 1500 } });
    expect(await quotaOf(user.userId!)).toBe(11_500);
    expect(await ledger.available('users', user.userId!)).toBe(11_500);
    expect(await status(user)).toMatchObject({ can_check_in: false, checked_in: true, quota: 1500 });

    const again = await user.call('POST', '/api/user/check_in');
    expectRefused(again);
    expect(again.body).toMatchObject({ success: false, message: 'you have already checked in today' });
    expect(await quotaOf(user.userId!)).toBe(11_500);

    const logs = await checkInLogs(user);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ type: 5, quota: 1500, user_id: user.userId, username: 'ci-fixed' });
    expect(logs[0]!.content).toContain('1500');
  });

  it('20 parallel check-ins of one user credit exactly once', async () => {
    await setOption('CheckInQuota', '700');
    const user = await createUserClient(t.app, root, 'ci-race');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => user.call<{ quota: number }>('POST', '/api/user/check_in')),
    );
    const ok = results.filter((r) => r.body.success);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.data).toEqual({ quota: 700 });
    for (const r of results.filter((x) => !x.body.success))
      expect(r.body.message).toBe('you have already checked in today');
    expect(await quotaOf(user.userId!)).toBe(700);
    const rows = await t.database.db.kysely
      .selectFrom('checkins')
      .selectAll()
      .where('user_id', '=', user.userId!)
      .execute();
    expect(rows).toHaveLength(1);
    expect(await checkInLogs(user)).toHaveLength(1);
  });

  it('draws a random reward between the minimum and the maximum in steps of 100', async () => {
    await setOption('CheckInQuota', '1000');
    await setOption('CheckInMaxQuota', '2000');
    const rewards: number[] = [];
    for (let i = 0; i < 8; i++) {
      const user = await createUserClient(t.app, root, `ci-range-${i}`);
      expect(await status(user)).toMatchObject({ min_quota: 1000, max_quota: 2000, can_check_in: true });
      const res = await user.call<{ quota: number }>('POST', '/api/user/check_in');
      const q = res.body.data!.quota;
      rewards.push(q);
      expect(await quotaOf(user.userId!)).toBe(q);
    }
    for (const q of rewards) {
      expect(q).toBeGreaterThanOrEqual(1000);
      expect(q).toBeLessThanOrEqual(2000);
      expect(q % 100).toBe(0);
    }
    // 8 draws over 11 values: all equal would mean the range is ignored (chance 11^-7).
    expect(new Set(rewards).size).toBeGreaterThan(1);
  });

  it("yesterday's check-in does not block today's; days follow the server's time zone", async () => {
    await setOption('CheckInMaxQuota', '0');
    await setOption('CheckInQuota', '100');
    const user = await createUserClient(t.app, root, 'ci-days');
    const yesterday = dayIn(t.config.timeZone, new Date(Date.now() - 86_400_000));
    await t.database.db.kysely
      .insertInto('checkins')
      .values({ user_id: user.userId!, day: yesterday, quota: 100, created_at: 0 })
      .execute();
    expect(await status(user)).toMatchObject({ can_check_in: true, checked_in: false });
    expect((await user.call('POST', '/api/user/check_in')).body.success).toBe(true);
    expect(await quotaOf(user.userId!)).toBe(100);
  });

  it('needs a login', async () => {
    const anon = await t.app.inject({ method: 'POST', url: '/api/user/check_in' });
    expect(anon.statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/api/user/check_in_status' })).statusCode).toBe(401);
  });
});

describe('check-in day in a configured time zone (TZ)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { TZ: 'Pacific/Kiritimati' });
  });
  afterAll(async () => t?.close());

  it('counts days in TZ, not UTC', async () => {
    expect(t.config.timeZone).toBe('Pacific/Kiritimati');
    const root = await setupRoot(t.app);
    const s = (await root.call<CheckInStatus>('GET', '/api/user/check_in_status')).body.data!;
    // UTC+14: the local day is always the UTC day or the next one.
    expect(s.day).toBe(dayIn('Pacific/Kiritimati'));
    expect(s.day).toBe(new Date(Date.now() + 14 * 3_600_000).toISOString().slice(0, 10));
  });
});
