import type { LogRow, UserPublic } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { Client, type TestApp } from '../support/app.js';
import { dialects } from '../support/databases.js';
import { useApp } from '../support/fixture.js';

describe.each(dialects)('invite rewards on %s', (dialect) => {
  let t: TestApp, root: Client;
  useApp(dialect, {}, async (app) => {
    ({ t, root } = app);
    for (const [key, value] of [
      ['AffEnabled', 'true'],
      ['QuotaForNewUser', '1000'],
      ['QuotaForInviter', '250000'],
      ['QuotaForInvitee', '200'],
    ]) {
      expect((await root.call('PUT', '/api/option/', { key, value })).body.success).toBe(true);
    }
  });

  const register = async (username: string, aff_code = '') => {
    const c = new Client(t.app);
    const res = await c.call('POST', '/api/user/register', {
      username,
      password: `${username}-pass`,
      password2: `${username}-pass`,
      aff_code,
    });
    expect(res.body).toMatchObject({ success: true });
    expect((await c.login(username, `${username}-pass`)).body.success).toBe(true);
    return c;
  };
  const self = async (c: Client) => (await c.call<UserPublic>('GET', '/api/user/self')).body.data!;
  const systemLogs = async (c: Client) =>
    (await c.call<{ items: LogRow[] }>('GET', '/api/log/self/?type=4&page_size=100')).body.data!.items;

  it('rewards both sides on registration with a code, logs both, and shows counts and history', async () => {
    const inviter = await register('inviter');
    const code = (await inviter.call<string>('GET', '/api/user/aff')).body.data!;
    expect(code).toMatch(/^\w{4,}$/);
    const invitee = await register('invitee', code);

    expect(await self(invitee)).toMatchObject({ quota: 1200, inviter_id: inviter.userId, aff_count: 0 });
    expect(await self(inviter)).toMatchObject({
      quota: 1000,
      aff_count: 1,
      aff_quota: 250000,
      aff_history_quota: 250000,
    });
    const inviteeLogs = await systemLogs(invitee);
    expect(inviteeLogs).toHaveLength(1);
    expect(inviteeLogs[0]).toMatchObject({ type: 4, quota: 200, username: 'invitee' });
    const inviterLogs = await systemLogs(inviter);
    expect(inviterLogs).toHaveLength(1);
    expect(inviterLogs[0]).toMatchObject({ type: 4, quota: 250000, username: 'inviter' });
    expect(inviterLogs[0]!.content).toContain('invitee');
  });

  it('parallel registrations with one code count every invitee and credit every reward', async () => {
    const inviter = await register('popular');
    const code = (await inviter.call<string>('GET', '/api/user/aff')).body.data!;
    await Promise.all(Array.from({ length: 8 }, (_, i) => register(`fan${i}`, code)));
    expect(await self(inviter)).toMatchObject({
      aff_count: 8,
      aff_quota: 8 * 250000,
      aff_history_quota: 8 * 250000,
      quota: 1000,
    });
    const fans = await t.database.db.kysely
      .selectFrom('users')
      .select(['quota', 'inviter_id'])
      .where('username', 'like', 'fan%')
      .execute();
    expect(fans).toHaveLength(8);
    expect(fans.every((f) => Number(f.quota) === 1200 && f.inviter_id === inviter.userId)).toBe(true);
  });

  it('transfers invite quota to the balance (at least one unit); the history stays and the relay sees it', async () => {
    const inviter = await register('saver');
    const code = (await inviter.call<string>('GET', '/api/user/aff')).body.data!;
    await register('friend1', code);
    await register('friend2', code);
    const small = await inviter.call('POST', '/api/user/aff_transfer', { quota: 1000 });
    expect(small.body).toMatchObject({ success: false, message: 'the minimum transfer amount is 500000' });
    expect(await t.runtime.ctx.relay.ledger.available('users', inviter.userId!)).toBe(1000);
    const ok = await inviter.call('POST', '/api/user/aff_transfer', { quota: 500000 });
    expect(ok.body.success).toBe(true);
    expect(await self(inviter)).toMatchObject({ quota: 501000, aff_quota: 0, aff_history_quota: 500000, aff_count: 2 });
    expect(await t.runtime.ctx.relay.ledger.available('users', inviter.userId!)).toBe(501000);
    const over = await inviter.call('POST', '/api/user/aff_transfer', { quota: 500000 });
    expect(over.body).toMatchObject({ success: false, message: 'insufficient invite quota' });
  });

  it('an unknown code registers without rewards; with AffEnabled off a valid code gives none', async () => {
    const stranger = await register('stranger', 'nosuchcode');
    expect(await self(stranger)).toMatchObject({ quota: 1000, inviter_id: 0 });
    const host = await register('host');
    const code = (await host.call<string>('GET', '/api/user/aff')).body.data!;
    expect((await root.call('PUT', '/api/option/', { key: 'AffEnabled', value: 'false' })).body.success).toBe(true);
    const guest = await register('guest', code);
    expect(await self(guest)).toMatchObject({ quota: 1000, inviter_id: 0 });
    expect(await self(host)).toMatchObject({ aff_count: 0, aff_quota: 0, aff_history_quota: 0 });
    expect(await systemLogs(guest)).toHaveLength(0);
    expect((await root.call('PUT', '/api/option/', { key: 'AffEnabled', value: 'true' })).body.success).toBe(true);
  });

  it('the invite code and transfer need a login', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/user/aff' })).statusCode).toBe(401);
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/user/aff_transfer', payload: { quota: 500000 } })).statusCode,
    ).toBe(401);
  });
});
